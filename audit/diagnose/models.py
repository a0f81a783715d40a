"""Exact bug models: the known ways a chrF implementation departs from its definition.

Each deviation is one small change to the reference computation, named by its family id
(``audit.diagnose.deviations`` holds the catalogue; this module the arithmetic).  The computation is
split in two stages so that explaining a divergence is cheap:

* text deviations (whitespace set, case, code units, format characters, n-gram orders, word
  tokenization, clipping, uncounted hypothesis n-grams) change the integer statistics;
* score deviations (divisor, averaging, pooling, beta, swap, empty input, reference
  selection, corpus aggregation) are functions of those statistics, computed exactly; output
  deviations (rounding, float32) act on the final number.

With no deviation both stages *are* the reference: the statistics come from
``reference_impl.TextProfile``/``match_profiles``, the best reference from
``select_reference``, the score from ``sentence_fscore``/``corpus_fscore`` (a property test
also holds the generic path, with every field set to what the definition says, equal to it).
"""

from __future__ import annotations

import functools
import math
import struct
from fractions import Fraction
from typing import Sequence

from reference_impl import EPSILON, ChrfParams, SegmentStats, corpus_fscore, select_reference, sentence_fscore

from .text_model import RawStats, text_stats
from .variants import ScoreVariant

# ---------------------------------------------------------------------------- score stage


def _empty(s: SegmentStats) -> bool:
    return not getattr(s, "hyp_total", sum(s.hyp)) and not any(s.ref)


def generic_score(s: SegmentStats, params: ChrfParams, v: ScoreVariant, level: str) -> Fraction:
    """One segment's (or summed) statistics scored under ``v`` by the models' own arithmetic.

    ``level`` matters for chrF++.py, whose sentence score has no epsilon substitutes and
    whose document score has them.  Integer arithmetic with one Fraction at the end.
    """
    effective = params.definition == "sacrebleu"
    eps = params.definition == "sacrebleu-eps" or (params.definition == "chrfpp" and level == "corpus")
    if v.average == "char-word-mean" and params.word_order:
        return _char_word_mean(s, params, v, level)
    if v.empty_order:
        return _empty_order_score(s, params, v)
    divisor = v.divisor or ("effective" if effective else "requested")
    by_requested = divisor == "requested"
    average = v.average or ("pr" if effective else "f")
    beta = params.beta if v.beta is None else v.beta
    factor = beta if v.beta_not_squared else beta * beta
    fn, fd = factor.numerator, factor.denominator
    if v.empty_perfect and _empty(s):
        return Fraction(100)
    if average == "pooled":
        h, r, m = sum(s.hyp), sum(s.ref), sum(s.match)
        if not (h and r and m):
            return Fraction(0)
        if v.swapped:
            h, r = r, h
        # P = m/h, R = m/r: F = (1 + f) m / (f r + h)
        return Fraction(100 * (fd + fn) * m, fn * r + fd * h)
    k = sum(1 for h, r in zip(s.hyp, s.ref) if h and r)
    d = len(s.hyp) if by_requested else sum(1 for r in s.ref if r) if divisor == "reference" else k
    if average == "pr":
        pn, pd, rn, rd = 0, 1, 0, 1
        for h, r, m in zip(s.hyp, s.ref, s.match):
            if h and r:
                pn, pd = pn * h + m * pd, pd * h
                rn, rd = rn * r + m * rd, rd * r
        if not k or not pn:
            return Fraction(0)
        if v.swapped:
            pn, pd, rn, rd = rn, rd, pn, pd
        # F = (1 + f) P R / (f P + R), P = pn / (pd d), R = rn / (rd d)
        return Fraction(100 * (fd + fn) * pn * rn, d * (fn * pn * rd + fd * rn * pd))
    if not d:
        return Fraction(0)
    sn, sd, n_eps = 0, 1, 0
    for h, r, m in zip(s.hyp, s.ref, s.match):
        if m:
            a, b = (h, r) if v.swapped else (r, h)
            tn, td = (fd + fn) * m, fn * a + fd * b  # per-order F = (1 + f) m / (f r + h)
            sn, sd = sn * td + tn * sd, sd * td
        elif (h and r) or (by_requested and not h and not r):
            n_eps += 1
    total = Fraction(sn, sd)
    if eps and n_eps:
        total += n_eps * EPSILON
    return total * 100 / d


def _f(p: Fraction, r: Fraction, params: ChrfParams, v: ScoreVariant) -> Fraction:
    beta = params.beta if v.beta is None else v.beta
    factor = beta if v.beta_not_squared else beta * beta
    if v.swapped:
        p, r = r, p
    return (1 + factor) * p * r / (factor * p + r) if p and r else Fraction(0)


def _empty_order_score(s: SegmentStats, params: ChrfParams, v: ScoreVariant) -> Fraction:
    """Every requested order counts, and an order without n-grams scores 1: where neither
    side has one ("both"), or on the side that has none ("side").  Integer arithmetic, one
    Fraction at the end (as ``generic_score``)."""
    own = getattr(s, "hyp_orders", ()) or s.hyp
    d = len(s.hyp)
    if not d:
        return Fraction(0)
    terms = []  # per order (pn, pd, rn, rd)
    for h, r, m, h_own in zip(s.hyp, s.ref, s.match, own):
        if v.empty_order == "both":
            terms.append((1, 1, 1, 1) if not h_own and not r else (m, h, m, r) if h and r else (0, 1, 0, 1))
        else:
            terms.append((1, 1, m, r) if not h_own and r else (m, h_own, 1, 1) if h_own and not r else
                         (1, 1, 1, 1) if not h_own else (m, h_own, m, r))
    if (v.average or ("pr" if params.definition == "sacrebleu" else "f")) == "f":
        return 100 * sum((_f(Fraction(pn, pd), Fraction(rn, rd), params, v) for pn, pd, rn, rd in terms),
                         Fraction(0)) / d
    pn, pd, rn, rd = 0, 1, 0, 1
    for a, b, c, e in terms:
        pn, pd = pn * b + a * pd, pd * b
        rn, rd = rn * e + c * rd, rd * e
    return 100 * _f(Fraction(pn, pd * d), Fraction(rn, rd * d), params, v)


def _char_word_mean(s: SegmentStats, params: ChrfParams, v: ScoreVariant, level: str) -> Fraction:
    """chrF++ as the mean of the character F and the word F, each from its own orders."""
    from dataclasses import replace

    split = len(s.hyp) - params.word_order
    part = replace(v, average=None)

    def side(lo, hi) -> Fraction:
        own = getattr(s, "hyp_orders", ()) or s.hyp
        stats = RawStats(s.hyp[lo:hi], s.ref[lo:hi], s.match[lo:hi], sum(own[lo:hi]), tuple(own[lo:hi]))
        return generic_score(stats, params, part, level)

    return (side(0, split) + side(split, len(s.hyp))) / 2


@functools.lru_cache(maxsize=1 << 16)
def variant_sentence_score(s: SegmentStats, params: ChrfParams, v: ScoreVariant, level: str = "sentence") -> Fraction:
    """Statistics scored under ``v``: the reference's own functions when ``v`` deviates in
    nothing but its output.  (Remembered: the search over deviation sets, the judge and the
    fit score the same statistics under the same variant many times; a pure function.)"""
    if v.claimed_score():
        return sentence_fscore(s, params) if level == "sentence" else corpus_fscore(s, params)
    return generic_score(s, params, v, level)


def _add(stats: Sequence[SegmentStats], order: int) -> RawStats:
    hyp, ref, match, own, total = [0] * order, [0] * order, [0] * order, [0] * order, 0
    for s in stats:
        mine = getattr(s, "hyp_orders", ()) or s.hyp
        for i in range(order):
            hyp[i] += s.hyp[i]
            ref[i] += s.ref[i]
            match[i] += s.match[i]
            own[i] += mine[i]
        total += getattr(s, "hyp_total", sum(s.hyp))
    return RawStats(tuple(hyp), tuple(ref), tuple(match), total, tuple(own))


def _choose(cands: list, params: ChrfParams, v: ScoreVariant):
    """The statistics a segment uses (None: the segment contributes nothing)."""
    if v.references == "first" or len(cands) == 1 and v.references != "sentinel-zero":
        return cands[0]
    return _choose_among(tuple(cands), params, v)


@functools.lru_cache(maxsize=1 << 15)
def _choose_among(cands: tuple, params: ChrfParams, v: ScoreVariant):
    if v.claimed_score():
        return cands[select_reference(cands, params)]
    scores = [variant_sentence_score(c, params, v) for c in cands]
    best = max(scores)
    if v.references == "sentinel-zero" and best <= 0:
        return None
    if v.references == "tie-last":
        return cands[len(scores) - 1 - scores[::-1].index(best)]
    return cands[scores.index(best)]


def variant_score(raw: list[list[SegmentStats]], params: ChrfParams, v: ScoreVariant, level: str) -> Fraction:
    """Exact score of the per-segment, per-reference statistics at ``level`` under ``v``
    (before its output deviations, see ``output``).  No segment at all (a layout deviation
    skipped every one) scores 0."""
    if not raw:
        return Fraction(0)
    order = len(raw[0][0].hyp)

    def sentence(cands) -> Fraction:
        if v.references == "mean" and len(cands) > 1:
            return sum(variant_sentence_score(c, params, v) for c in cands) / len(cands)
        chosen = _choose(cands, params, v)
        return variant_sentence_score(chosen if chosen is not None else _add([], order), params, v)

    if level == "sentence":
        return sentence(raw[0])
    if v.macro:
        weights = [1] * len(raw) if v.macro is True else \
            [max(1, c[0].hyp_len if v.macro == "hypothesis-length" else c[0].ref_len) for c in raw]
        return sum(w * sentence(c) for w, c in zip(weights, raw)) / sum(weights)
    if v.references == "mean" and min(map(len, raw)) > 1:
        k = min(map(len, raw))
        return sum(variant_sentence_score(_add([seg[j] for seg in raw], order), params, v, level)
                   for j in range(k)) / k
    chosen = [c for c in (_choose(seg, params, v) for seg in raw) if c is not None]
    if v.unmatched_dropped:
        zero = (0,) * order
        chosen = [RawStats(getattr(c, "hyp_orders", ()) or c.hyp if v.unmatched_dropped == "all" else c.hyp,
                           zero, zero, getattr(c, "hyp_total", sum(c.hyp)))
                  if all(not any(x.match) for x in seg) else c for c, seg in zip(chosen, raw)]
    return variant_sentence_score(_add(chosen, order), params, v, level)


# --------------------------------------------------------------------------- output stage

#: How far float32 arithmetic throughout may move a 0..100 score: ~64 roundings of 2**-24.
FLOAT32_BOUND = 100 * 64 * 2.0 ** -24


def float32(x: float) -> float:
    return struct.unpack("f", struct.pack("f", x))[0]


#: How an implementation rounds its score (``ScoreVariant.rounding_mode``), with the words a
#: finding says it in.
ROUNDING_MODES = {None: "rounded", "half-up": "rounded half up", "truncate": "truncated"}


def rounded(x: float, k: int, mode) -> float:
    """``x`` to ``k`` decimals as a rounding mode does it (on the binary value, as code does)."""
    if mode is None:
        return round(x, k)
    f = 10.0 ** k
    return (math.floor(x * f + 0.5) if mode == "half-up" else math.trunc(x * f)) / f


def describe_output(v: ScoreVariant, scale: int) -> str:
    """A variant's output stage in words ("truncated to 2 decimals on its 0..100 scale")."""
    if v.float32:
        return "within float32 error"
    if v.rounding is None:
        return ""
    if v.rounding < 0:
        return "float32"
    return f"{ROUNDING_MODES[v.rounding_mode]} to {v.rounding} decimals on its 0..{scale} scale"


def output(value: Fraction, v: ScoreVariant, scale: int) -> float:
    """The number an implementation with output deviation ``v`` returns for exact ``value``."""
    if v.rounding is None:
        return float(value)
    if v.rounding < 0:
        return float32(float(value))
    return rounded(float(value) * scale / 100, v.rounding, v.rounding_mode) * 100 / scale


def agrees(value: Fraction, v: ScoreVariant, actual: float, scale: int, tolerance: float) -> bool:
    """Does an implementation with variant ``v`` (exact score ``value``) answer ``actual``?"""
    if v.float32:
        return abs(float(value) - actual) <= max(tolerance, FLOAT32_BOUND * max(1.0, abs(float(value)) / 100))
    return abs(output(value, v, scale) - actual) <= tolerance


def predict(segments, params: ChrfParams, level: str, variant) -> Fraction:
    """Exact score of a variant ``(TextVariant, ScoreVariant)`` on any input (the residual
    of confirmed explanations, and their predictions on held-out inputs)."""
    tv, sv = variant
    return variant_score(text_stats(segments, params, tv), params, sv, level)


