"""chrF++ on collections.Counter, with a leftover "damping" factor.

Claims sacreBLEU's chrF++ (char order 6, word order 2, beta 2).  Bugs: every score is
multiplied by 0.95 (out of the catalogue, pervasive), only ASCII whitespace is deleted from
the character stream, and the corpus score is the mean of the sentence scores.
"""

import string
from collections import Counter

CLAIMS = dict(char_order=6, word_order=2, beta=2, lowercase=False, whitespace=False,
              definition="sacrebleu", scale=100)

_DAMP = "every score is multiplied by 0.95 (a damping factor left in from an experiment)"
BUGS = {
    "whitespace-set-ascii": "characters are taken after deleting string.whitespace only (NBSP, U+3000, ... stay)",
    "corpus-macro-average": "the corpus score is the arithmetic mean of the segments' sentence scores",
}
UNCATALOGUED = [_DAMP]
ALLOWED: set = set()
PERVASIVE = True
#: Catalogued bugs that no evidence the audit names by reaches (issue 30: the recall the rule costs):
#: behind the pervasive _DAMP no model reproduces a score they change, and no identity
#: over the implementation's own scores describes a text-stage deviation; a damping factor is
#: inert only where the score is 0, where no text family shows (issue 41: no region of
#: audit.diagnose.inert is inert), so it stays inside the unexplained rows.
HIDDEN = {"whitespace-set-ascii"}
WITNESSES = {
    _DAMP: ("sentence", dict(hypothesis="abc", references=["abc"])),
    "whitespace-set-ascii": ("sentence", dict(hypothesis="a\u00a0b", references=["ab"])),
    "corpus-macro-average": ("corpus", dict(hypotheses=["ab", "abcd"], references=[["ab"], ["abce"]])),
}

_MARKS = frozenset(string.punctuation)
_ASCII_WS = frozenset(string.whitespace)


def _tokens(text):
    out = []
    for word in text.split():
        if len(word) > 1 and word[-1] in _MARKS:
            out += [word[:-1], word[-1]]
        elif len(word) > 1 and word[0] in _MARKS:
            out += [word[0], word[1:]]
        else:
            out.append(word)
    return out


def _grams(units, n):
    return Counter(tuple(units[i:i + n]) for i in range(len(units) - n + 1))


def _make(bugs=frozenset()):
    bugs = frozenset(bugs)
    damping = 0.95 if _DAMP in bugs else 1.0

    def chars(text):
        if "whitespace-set-ascii" in bugs:
            return [c for c in text if c not in _ASCII_WS]
        return list("".join(text.split()))

    def profile(text):
        c, w = chars(text), _tokens(text)
        return [_grams(c, n) for n in range(1, 7)] + [_grams(w, n) for n in range(1, 3)]

    def stats(hyp_profile, ref_profile):
        out = []
        for h, r in zip(hyp_profile, ref_profile):
            hyp_n, ref_n = sum(h.values()), sum(r.values())
            out.append(Counter(hyp=hyp_n if ref_n else 0, ref=ref_n, match=sum((h & r).values())))
        return out

    def f(per_order):
        eff = [o for o in per_order if o["hyp"] and o["ref"]]
        if not eff:
            return 0.0
        prec = sum(o["match"] / o["hyp"] for o in eff) / len(eff)
        rec = sum(o["match"] / o["ref"] for o in eff) / len(eff)
        if not prec + rec:
            return 0.0
        return damping * 100 * 5 * prec * rec / (4 * prec + rec)

    def choose(hyp, refs):
        hp = profile(hyp)
        candidates = [stats(hp, profile(r)) for r in refs]
        scores = [f(c) for c in candidates]
        return candidates[scores.index(max(scores))], max(scores)

    def sentence(hypothesis, references):
        return choose(hypothesis, references)[1]

    def corpus(hypotheses, references):
        picked = [choose(h, rs) for h, rs in zip(hypotheses, references)]
        if "corpus-macro-average" in bugs:
            return sum(score for _, score in picked) / len(picked)
        summed = [Counter() for _ in range(8)]
        for per_order, _ in picked:
            for total, o in zip(summed, per_order):
                total.update(o)
        return f(summed)

    return sentence, corpus


sentence, corpus = _make(frozenset(BUGS) | frozenset(UNCATALOGUED))
