"""A generator-pipeline chrF++ that raises on two kinds of input.

Claims sacreBLEU's chrF++ (char order 6, word order 2, beta 2).  Bugs: no effective order
(an empty hypothesis or reference) divides by zero, a character outside the BMP raises
ValueError from a BMP-only code table (both out of the catalogue), a sentence score against
several references is their mean, and word tokens keep their punctuation.
"""

import string
from collections import Counter
from itertools import islice

CLAIMS = dict(char_order=6, word_order=2, beta=2, lowercase=False, whitespace=False,
              definition="sacrebleu", scale=100)

_ZERO = "no order with n-grams on both sides (e.g. an empty hypothesis) raises ZeroDivisionError"
_NON_BMP = "a character outside the Basic Multilingual Plane raises ValueError (BMP-only code table)"
BUGS = {
    "references-averaged": "the sentence score is the mean over the references (the corpus uses the best one)",
    "word-punctuation-not-split": "word tokens are str.split() words, punctuation left attached",
}
UNCATALOGUED = [_ZERO, _NON_BMP]
EXCEPTIONS = {_ZERO: ("ZeroDivisionError", "division by zero"),
              _NON_BMP: ("ValueError", "unsupported character")}
ALLOWED = {"exception"}
PERVASIVE = False
WITNESSES = {
    _ZERO: ("sentence", dict(hypothesis="", references=["a cat"])),
    _NON_BMP: ("sentence", dict(hypothesis="a \U0001f600", references=["a"])),
    "references-averaged": ("sentence", dict(hypothesis="a cat", references=["a cat", "dog"])),
    "word-punctuation-not-split": ("sentence", dict(hypothesis="the cat.", references=["the cat ."])),
}

MARKS = set(string.punctuation)
CHAR_ORDER, WORD_ORDER, B2 = 6, 2, 4


def _make(bugs=frozenset()):
    bugs = frozenset(bugs)

    def checked(text):
        for ch in text:
            if _NON_BMP in bugs and ord(ch) > 0xFFFF:
                raise ValueError(f"unsupported character U+{ord(ch):05X}")
        return text

    def words(text):
        for word in text.split():
            if "word-punctuation-not-split" in bugs or len(word) == 1:
                yield word
            elif word[-1] in MARKS:
                yield from (word[:-1], word[-1])
            elif word[0] in MARKS:
                yield from (word[0], word[1:])
            else:
                yield word

    def windows(seq, n):
        return (tuple(islice(seq, i, i + n)) for i in range(len(seq) - n + 1))

    def profile(text):
        text = checked(text)
        chars, toks = "".join(text.split()), list(words(text))
        yield from (Counter(windows(chars, n)) for n in range(1, CHAR_ORDER + 1))
        yield from (Counter(windows(toks, n)) for n in range(1, WORD_ORDER + 1))

    def stats(hyp, ref):
        for h, r in zip(profile(hyp), profile(ref)):
            rn = sum(r.values())
            yield (sum(h.values()) if rn else 0, rn, sum((h & r).values()))

    def f(rows):
        live = [row for row in rows if row[0] and row[1]]
        if not live and _ZERO not in bugs:
            return 0.0
        p = sum(m / h for h, _, m in live) / len(live)
        r = sum(m / rr for _, rr, m in live) / len(live)
        return (1 + B2) * p * r / (B2 * p + r) * 100 if p + r else 0.0

    def best(hyp, refs):
        rows = [list(stats(hyp, ref)) for ref in refs]
        scores = [f(x) for x in rows]
        return rows[scores.index(max(scores))]

    def sentence(hypothesis, references):
        if "references-averaged" in bugs:
            return sum(f(list(stats(hypothesis, r))) for r in references) / len(references)
        return f(best(hypothesis, references))

    def corpus(hypotheses, references):
        chosen = [best(h, rs) for h, rs in zip(hypotheses, references)]
        return f([tuple(map(sum, zip(*column))) for column in zip(*chosen)])

    return sentence, corpus


sentence, corpus = _make(frozenset(BUGS) | frozenset(UNCATALOGUED))
