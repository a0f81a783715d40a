"""A dataclass pipeline chrF that averages per-order F-scores.

Claims sacreBLEU's chrF (char order 6, beta 2).  Bugs: per-order F-scores are averaged
instead of precision and recall (pervasive on
sentences of words, rarer on short texts), inputs with no n-grams on either side score
100, and matches are not clipped.
"""

from collections import Counter
from dataclasses import dataclass

CLAIMS = dict(char_order=6, word_order=0, beta=2, lowercase=False, whitespace=False,
              definition="sacrebleu", scale=100)

BUGS = {
    "f-score-averaged": "Order.f() is computed per order and the F-scores are averaged",
    "empty-input-perfect": "a pair without any n-gram on either side is a perfect 100",
    "no-clipping": "Order.match counts every hypothesis occurrence of an n-gram the reference has",
}
UNCATALOGUED: list = []
ALLOWED = {"out-of-range"}
PERVASIVE = False
WITNESSES = {
    "f-score-averaged": ("sentence", dict(hypothesis="abcd", references=["abd"])),
    "empty-input-perfect": ("corpus", dict(hypotheses=["", "\t"], references=[[" "], [""]])),
    "no-clipping": ("sentence", dict(hypothesis="abab", references=["ab"])),
}


@dataclass(frozen=True)
class Order:
    hyp: int
    ref: int
    match: int
    raw: int  # hypothesis n-grams before zeroing (an order the reference lacks has hyp 0)

    def __add__(self, other):
        return Order(self.hyp + other.hyp, self.ref + other.ref, self.match + other.match, self.raw + other.raw)

    @property
    def live(self):
        return self.hyp > 0 and self.ref > 0

    def p(self):
        return self.match / self.hyp

    def r(self):
        return self.match / self.ref


def _fbeta(p, r, b2=4.0):
    return 0.0 if p + r == 0 else (1 + b2) * p * r / (b2 * p + r)


def _make(bugs=frozenset()):
    bugs = frozenset(bugs)

    def grams(text, n):
        text = "".join(text.split())
        return Counter(text[i:i + n] for i in range(len(text) - n + 1))

    def orders(hyp, ref):
        out = []
        for n in range(1, 7):
            h, r = grams(hyp, n), grams(ref, n)
            if "no-clipping" in bugs:
                match = sum(c for g, c in h.items() if g in r)
            else:
                match = sum((h & r).values())
            ref_total = r.total()
            out.append(Order(h.total() if ref_total else 0, ref_total, match, h.total()))
        return out

    def score(os):
        live = [o for o in os if o.live]
        if not live:
            empty = all(o.raw == 0 and o.ref == 0 for o in os)
            return 100.0 if empty and "empty-input-perfect" in bugs else 0.0
        if "f-score-averaged" in bugs:
            return 100 * sum(_fbeta(o.p(), o.r()) for o in live) / len(live)
        return 100 * _fbeta(sum(o.p() for o in live) / len(live), sum(o.r() for o in live) / len(live))

    def best(hyp, refs):
        candidates = [orders(hyp, r) for r in refs]
        values = [score(c) for c in candidates]
        return candidates[values.index(max(values))]

    def sentence(hypothesis, references):
        return score(best(hypothesis, references))

    def corpus(hypotheses, references):
        per_segment = [best(h, rs) for h, rs in zip(hypotheses, references)]
        return score([sum(column[1:], column[0]) for column in zip(*per_segment)])

    return sentence, corpus


sentence, corpus = _make(frozenset(BUGS) | frozenset(UNCATALOGUED))
