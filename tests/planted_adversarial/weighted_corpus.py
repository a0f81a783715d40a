"""A generator pipeline that averages sentence scores weighted by hypothesis length.

Claims sacreBLEU's chrF (char order 6, beta 2, case-sensitive).  Bugs: the corpus score is
the mean of the segment scores weighted by each hypothesis's length in characters (at least
1), and every text is lowercased.
"""

from collections import Counter

CLAIMS = dict(char_order=6, word_order=0, beta=2, lowercase=False, whitespace=False,
              definition="sacrebleu", scale=100)
FOOLS = "corpus-macro-average: on segments of equal length a weighted mean is the plain mean"

BUGS = {
    "corpus-length-weighted-mean": "corpus = sum(len(h) * s) / sum(len(h))",
    "case-folded": "texts are lowercased before counting",
}
UNCATALOGUED: list = []
ALLOWED: set = set()
PERVASIVE = False
WITNESSES = {
    "corpus-length-weighted-mean": ("corpus", dict(hypotheses=["ab", "abcdefgh"], references=[["ab"], ["abcdefxy"]])),
    "case-folded": ("sentence", dict(hypothesis="Abc", references=["abc"])),
}


def _make(bugs=frozenset()):
    bugs = frozenset(bugs)

    def prepared(texts):
        for t in texts:
            t = t.lower() if "case-folded" in bugs else t
            yield "".join(t.split())

    def counted(text):
        for n in range(1, 7):
            yield Counter(text[i:i + n] for i in range(len(text) - n + 1))

    def rows(hyp, ref):
        h, r = prepared([hyp, ref])
        for a, b in zip(counted(h), counted(r)):
            rt = sum(b.values())
            yield (sum(a.values()) if rt else 0), rt, sum((a & b).values())

    def fscore(table):
        live = [t for t in table if t[0] and t[1]]
        if not live:
            return 0.0
        p = sum(m / h for h, _, m in live) / len(live)
        r = sum(m / rr for _, rr, m in live) / len(live)
        return 0.0 if p + r == 0 else 500 * p * r / (4 * p + r)

    def scored(hyp, refs):
        options = ((fscore(t), t) for t in (list(rows(hyp, r)) for r in refs))
        return max(options, key=lambda st: st[0])

    def sentence(hypothesis, references):
        return scored(hypothesis, references)[0]

    def corpus(hypotheses, references):
        picked = [scored(h, rs) for h, rs in zip(hypotheses, references)]
        if "corpus-length-weighted-mean" in bugs:
            weights = [max(1, len(h)) for h in hypotheses]
            return sum(w * s for w, (s, _) in zip(weights, picked)) / sum(weights)
        return fscore([tuple(map(sum, zip(*col))) for col in zip(*(t for _, t in picked))])

    return sentence, corpus


sentence, corpus = _make(frozenset(BUGS))
