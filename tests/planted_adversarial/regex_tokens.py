"""chrF++ whose word tokens come from a regular expression, \\w+|[^\\w\\s].

Claims sacreBLEU's chrF++ (char order 6, word order 2, beta 2).  Bugs: word tokens are the
runs of ``re.findall(r"\\w+|[^\\w\\s]", text)`` (out of the catalogue: every mark is a token of
its own, "e.g." is four tokens, "a-b" three, a word with a non-ASCII mark splits), and the
corpus score is the mean of the sentence scores.
"""

import re
from collections import Counter
from itertools import islice

CLAIMS = dict(char_order=6, word_order=2, beta=2, lowercase=False, whitespace=False,
              definition="sacrebleu", scale=100)
FOOLS = ("word-punctuation-split-both: on a word with one ASCII mark at each end both tokenisers "
         "give mark, word, mark")

_REGEX = "word tokens are the runs of the regular expression \\w+|[^\\w\\s]"
BUGS = {"corpus-macro-average": "corpus() returns the mean of the segment scores"}
UNCATALOGUED = [_REGEX]
ALLOWED: set = set()
PERVASIVE = False
WITNESSES = {
    _REGEX: ("sentence", dict(hypothesis="e.g. it", references=["e.g it"])),
    "corpus-macro-average": ("corpus", dict(hypotheses=["ab", "abcd"], references=[["ab"], ["abce"]])),
}

_PUNCT = set("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
_RUNS = re.compile(r"\w+|[^\w\s]")


def _standard(text):
    out = []
    for w in text.split():
        if len(w) > 1 and w[-1] in _PUNCT:
            out += [w[:-1], w[-1]]
        elif len(w) > 1 and w[0] in _PUNCT:
            out += [w[0], w[1:]]
        else:
            out.append(w)
    return out


def _grams(seq, n):
    return Counter(zip(*(islice(seq, i, None) for i in range(n))))


def _make(bugs=frozenset()):
    bugs = frozenset(bugs)
    tokens = _RUNS.findall if _REGEX in bugs else _standard

    def table(hyp, ref):
        hc, rc = "".join(hyp.split()), "".join(ref.split())
        ht, rt = tokens(hyp), tokens(ref)
        rows = []
        for seq_h, seq_r, top in ((hc, rc, 6), (ht, rt, 2)):
            for n in range(1, top + 1):
                a, b = _grams(seq_h, n), _grams(seq_r, n)
                r = sum(b.values())
                rows.append((sum(a.values()) if r else 0, r, sum((a & b).values())))
        return rows

    def f(rows):
        live = [x for x in rows if x[0] and x[1]]
        if not live:
            return 0.0
        p = sum(m / h for h, _, m in live) / len(live)
        r = sum(m / rr for _, rr, m in live) / len(live)
        return 0.0 if p + r == 0 else 500 * p * r / (4 * p + r)

    def best(hyp, refs):
        scored = [(f(t), t) for t in (table(hyp, r) for r in refs)]
        top = max(s for s, _ in scored)
        return next((s, t) for s, t in scored if s == top)

    def sentence(hypothesis, references):
        return best(hypothesis, references)[0]

    def corpus(hypotheses, references):
        picked = [best(h, rs) for h, rs in zip(hypotheses, references)]
        if "corpus-macro-average" in bugs:
            return sum(s for s, _ in picked) / len(picked)
        return f([tuple(map(sum, zip(*col))) for col in zip(*(t for _, t in picked))])

    return sentence, corpus


sentence, corpus = _make(frozenset(BUGS) | frozenset(UNCATALOGUED))
