"""Exact (fractions) chrF whose corpus loop assigns where it should accumulate.

Claims sacreBLEU's chrF (char order 6, beta 2, case-sensitive) and accepts ``lowercase``.
Bugs: the corpus score is the last segment's score (``totals = ...`` instead of ``+=``), the
``lowercase`` argument is ignored (never lowercased), and beta weights precision instead of
recall (P and R swapped in F).
"""

from collections import Counter
from fractions import Fraction

CLAIMS = dict(char_order=6, word_order=0, beta=2, lowercase=False, whitespace=False,
              definition="sacrebleu", scale=100)
ACCEPTS = ("lowercase",)

BUGS = {
    "corpus-single-segment": "the corpus loop assigns each segment's statistics to the totals: only the last counts",
    "parameter-ignored-lowercase": "lowercase=True is accepted and never applied",
    "precision-recall-swapped": "F = (1 + b2) P R / (b2 R + P): beta weights precision",
}
UNCATALOGUED: list = []
ALLOWED: set = set()
PERVASIVE = True
WITNESSES = {
    "corpus-single-segment": ("corpus", dict(hypotheses=["ab", "abc"], references=[["xy"], ["abc"]])),
    "parameter-ignored-lowercase": ("sentence", dict(hypothesis="AB", references=["ab"], lowercase=True)),
    "precision-recall-swapped": ("sentence", dict(hypothesis="ab", references=["abc"])),
}

B2 = Fraction(4)


def _make(bugs=frozenset()):
    bugs = frozenset(bugs)

    def grams(text, lowercase):
        if lowercase and "parameter-ignored-lowercase" not in bugs:
            text = text.lower()
        text = "".join(text.split())
        return [Counter(text[i:i + n] for i in range(len(text) - n + 1)) for n in range(1, 7)]

    def segment_stats(hyp, ref, lowercase):
        return [(h.total() if r else 0, r.total(), (h & r).total())
                for h, r in zip(grams(hyp, lowercase), grams(ref, lowercase))]

    def f(stats):
        eff = [(h, r, m) for h, r, m in stats if h and r]
        if not eff:
            return Fraction(0)
        p = sum(Fraction(m, h) for h, _, m in eff) / len(eff)
        r = sum(Fraction(m, rr) for _, rr, m in eff) / len(eff)
        if p + r == 0:
            return Fraction(0)
        if "precision-recall-swapped" in bugs:
            return 100 * (1 + B2) * p * r / (B2 * r + p)
        return 100 * (1 + B2) * p * r / (B2 * p + r)

    def chosen(hyp, refs, lowercase):
        stats = [segment_stats(hyp, ref, lowercase) for ref in refs]
        scores = [f(s) for s in stats]
        return stats[scores.index(max(scores))]

    def sentence(hypothesis, references, lowercase=False):
        return float(f(chosen(hypothesis, references, lowercase)))

    def corpus(hypotheses, references, lowercase=False):
        totals = [(0, 0, 0)] * 6
        for hyp, refs in zip(hypotheses, references):
            stats = chosen(hyp, refs, lowercase)
            if "corpus-single-segment" in bugs:
                totals = stats
            else:
                totals = [tuple(a + b for a, b in zip(t, s)) for t, s in zip(totals, stats)]
        return float(f(totals))

    return sentence, corpus


sentence, corpus = _make(frozenset(BUGS) | frozenset(UNCATALOGUED))
