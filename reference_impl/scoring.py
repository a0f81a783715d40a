"""From integer statistics to an exact score.

The arithmetic is done on integers (numerator and denominator built by hand, one gcd at
the end in ``Fraction``) because this runs once per segment in every audit; generic
Fraction arithmetic would cost ~30 gcds per score.  Every formula here is exact.
"""

from __future__ import annotations

from fractions import Fraction
from .params import EPSILON, ChrfParams
from .segment import SegmentStats


def effective_order_score(stats: "SegmentStats", params: ChrfParams) -> Fraction:
    """``sacrebleu`` definition: P and R averaged over effective orders, then F-beta.

    An order is effective when both its hypothesis and reference counts are positive.
    No effective order, or P + R = 0, scores 0.
    """
    # P = pn / pd and R = rn / rd, summed over effective orders (the 1/k cancels below).
    pn, pd, rn, rd = 0, 1, 0, 1
    k = 0
    for h, r, m in zip(stats.hyp, stats.ref, stats.match):
        if h and r:
            k += 1
            if m:  # adding 0/h or 0/r leaves the sums unchanged
                pn, pd = pn * h + m * pd, pd * h
                rn, rd = rn * r + m * rd, rd * r
    if k == 0 or pn == 0 or rn == 0:
        # P + R = 0, or one of them 0: F-beta is 0 (sacreBLEU returns 0.0 for P + R = 0).
        return Fraction(0)
    beta = params.beta  # beta^2 = bn / bd, reduced as beta is (no Fraction arithmetic per segment)
    bn, bd = beta.numerator ** 2, beta.denominator ** 2
    # F = (1 + b2) P R / (b2 P + R) with P = pn/(pd k), R = rn/(rd k); k cancels once.
    num = 100 * (bd + bn) * pn * rn
    den = k * (bn * pn * rd + bd * rn * pd)
    return Fraction(num, den)


def mean_order_f(stats: "SegmentStats", params: ChrfParams, *, eps: bool) -> Fraction:
    """Per-order F-beta averaged over *all* requested orders (nc + nw).

    With ``eps`` (sacrebleu-eps, and chrF++.py's document score) an order whose F has a zero
    denominator scores the substitute EPSILON: no match with both counts positive, or both
    counts zero.  Without it (chrF++.py's sentence score) an order with no match scores 0.
    """
    beta = params.beta
    bn, bd = beta.numerator ** 2, beta.denominator ** 2
    sn, sd = 0, 1
    n_eps = 0
    for h, r, m in zip(stats.hyp, stats.ref, stats.match):
        if m:
            # F_n = (1 + b2) (m/h)(m/r) / (b2 m/h + m/r) = (1 + b2) m / (b2 r + h)
            fn, fd = (bd + bn) * m, bn * r + bd * h
            sn, sd = sn * fd + fn * sd, sd * fd
        elif (h and r) or (not h and not r):
            n_eps += 1
        # else exactly one count is 0 with no match: precision or recall is 0 and the
        # other is the substitute, so F = 0.
    total = Fraction(sn, sd)
    if eps and n_eps:
        total += n_eps * EPSILON
    return total * 100 / len(stats.hyp)


def sentence_fscore(stats: "SegmentStats", params: ChrfParams) -> Fraction:
    """The sentence-level score of one segment's statistics under ``params.definition``."""
    d = params.definition
    if d == "sacrebleu":
        return effective_order_score(stats, params)
    return mean_order_f(stats, params, eps=(d == "sacrebleu-eps"))


def corpus_fscore(stats: "SegmentStats", params: ChrfParams) -> Fraction:
    """The corpus-level score of summed statistics under ``params.definition``."""
    if params.definition == "sacrebleu":
        return effective_order_score(stats, params)
    return mean_order_f(stats, params, eps=True)


def score_from_stats(stats: "SegmentStats", params: ChrfParams, level: str = "corpus") -> Fraction:
    """Score of (summed) statistics at ``level`` "sentence" or "corpus"."""
    if level == "sentence":
        return sentence_fscore(stats, params)
    if level == "corpus":
        return corpus_fscore(stats, params)
    raise ValueError(f"level must be 'sentence' or 'corpus', got {level!r}")
