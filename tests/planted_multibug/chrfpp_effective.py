"""chrF++.py's formulas redone in exact fractions, with three departures from the script.

Claims ``chrfpp`` (char order 6, word order 2, beta 2).  Bugs: per-order F-scores are
averaged over the orders with n-grams on both sides only (pervasive on short texts), every
str.isspace() character is deleted (the script deletes only U+0020 inside a line), and F is
computed with beta where the formula has beta squared.
"""

import string
from collections import Counter
from fractions import Fraction

CLAIMS = dict(char_order=6, word_order=2, beta=2, lowercase=False, whitespace=False,
              definition="chrfpp", scale=100)

BUGS = {
    "effective-order-divisor": "the mean of the per-order F-scores is over the orders with n-grams on both sides",
    "whitespace-set-isspace": "characters are ''.join(line.split()): tabs, NBSP, U+3000 inside a line go too",
    "beta-not-squared": "F = (1 + beta) P R / (beta P + R)",
}
UNCATALOGUED: list = []
ALLOWED: set = set()
PERVASIVE = True
WITNESSES = {
    "effective-order-divisor": ("sentence", dict(hypothesis="abc", references=["abc"])),
    "whitespace-set-isspace": ("sentence", dict(hypothesis="a\tb", references=["ab"])),
    "beta-not-squared": ("sentence", dict(hypothesis="abcd", references=["abd"])),
}

EPSILON = Fraction(1, 10 ** 16)
BETA = Fraction(2)


def _make(bugs=frozenset()):
    bugs = frozenset(bugs)
    weight = BETA if "beta-not-squared" in bugs else BETA * BETA

    def char_line(line):
        if "whitespace-set-isspace" in bugs:
            return "".join(line.split())
        return line.strip().replace(" ", "")

    def word_line(line):
        tokens = []
        for w in line.split():
            if len(w) > 1 and w[-1] in string.punctuation:
                tokens.extend((w[:-1], w[-1]))
            elif len(w) > 1 and w[0] in string.punctuation:
                tokens.extend((w[0], w[1:]))
            else:
                tokens.append(w)
        return tokens

    def counts(seq, n):
        return Counter(tuple(seq[i:i + n]) for i in range(len(seq) - n + 1))

    def stats(hyp, ref):
        out = []
        for split, top in ((char_line, 6), (word_line, 2)):
            h, r = split(hyp), split(ref)
            for n in range(1, top + 1):
                hc, rc = counts(h, n), counts(r, n)
                out.append((hc.total() if rc else 0, rc.total(), (hc & rc).total()))
        return out

    def order_f(h, r, m, smoothed):
        if not smoothed:
            return (1 + weight) * m / (weight * r + h) if m else Fraction(0)
        p = Fraction(m, h) if h else EPSILON
        rc = Fraction(m, r) if r else EPSILON
        return (1 + weight) * p * rc / (weight * p + rc) if weight * p + rc > 0 else EPSILON

    def average(rows, smoothed):
        if "effective-order-divisor" in bugs:
            rows = [row for row in rows if row[0] and row[1]]
            if not rows:
                return Fraction(0)
        return 100 * sum(order_f(*row, smoothed) for row in rows) / len(rows)

    def best(hyp, refs):
        keep, keep_f = None, Fraction(0)
        for ref in refs:
            rows = stats(hyp, ref)
            f = average(rows, smoothed=False)
            if f > keep_f:
                keep, keep_f = rows, f
        return keep if keep is not None else stats(hyp, refs[0])

    def sentence(hypothesis, references):
        return float(average(best(hypothesis, references), smoothed=False))

    def corpus(hypotheses, references):
        chosen = [best(h, rs) for h, rs in zip(hypotheses, references)]
        summed = [tuple(map(sum, zip(*column))) for column in zip(*chosen)]
        return float(average(summed, smoothed=True))

    return sentence, corpus


sentence, corpus = _make(frozenset(BUGS) | frozenset(UNCATALOGUED))
