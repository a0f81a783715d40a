"""chrF in exact rational arithmetic (fractions.Fraction) that reads two references at most.

Claims sacreBLEU's chrF (char order 6, beta 2).  Bugs: only the first two references of a
segment are scored (a third, fourth, ... is ignored), and F-beta uses beta where beta squared
belongs.
"""

from collections import Counter
from fractions import Fraction

CLAIMS = dict(char_order=6, word_order=0, beta=2, lowercase=False, whitespace=False,
              definition="sacrebleu", scale=100)
FOOLS = "first-reference-only: with the best reference first or second, both ignore nothing that matters"

BUGS = {
    "references-beyond-first-ignored": "refs = references[:2]",
    "beta-not-squared": "F = (1 + b) P R / (b P + R) with b = beta",
}
UNCATALOGUED: list = []
ALLOWED: set = set()
PERVASIVE = True
WITNESSES = {
    "references-beyond-first-ignored": ("sentence", dict(hypothesis="abc", references=["xyz", "uvw", "abc"])),
    "beta-not-squared": ("sentence", dict(hypothesis="abcd", references=["abc"])),
}
BETA = Fraction(2)


def _make(bugs=frozenset()):
    bugs = frozenset(bugs)
    weight = BETA if "beta-not-squared" in bugs else BETA * BETA

    def stats(hyp, ref):
        h, r = "".join(hyp.split()), "".join(ref.split())
        rows = []
        for n in range(1, 7):
            a = Counter(h[i:i + n] for i in range(len(h) - n + 1))
            b = Counter(r[i:i + n] for i in range(len(r) - n + 1))
            rt = sum(b.values())
            rows.append((sum(a.values()) if rt else 0, rt, sum((a & b).values())))
        return rows

    def f(rows):
        live = [(h, r, m) for h, r, m in rows if h and r]
        if not live:
            return Fraction(0)
        p = sum(Fraction(m, h) for h, _, m in live) / len(live)
        r = sum(Fraction(m, rr) for _, rr, m in live) / len(live)
        return Fraction(0) if p + r == 0 else 100 * (1 + weight) * p * r / (weight * p + r)

    def best(hyp, refs):
        if "references-beyond-first-ignored" in bugs:
            refs = refs[:2]
        tables = [stats(hyp, r) for r in refs]
        values = [f(t) for t in tables]
        return tables[values.index(max(values))], max(values)

    def sentence(hypothesis, references):
        return float(best(hypothesis, references)[1])

    def corpus(hypotheses, references):
        rows = [best(h, rs)[0] for h, rs in zip(hypotheses, references)]
        return float(f([tuple(map(sum, zip(*col))) for col in zip(*rows)]))

    return sentence, corpus


sentence, corpus = _make(frozenset(BUGS))
