"""Segment statistics: the integer sufficient statistics every chrF score is computed from.

A segment's statistics are, per order (character orders 1..nc, then word orders 1..nw),
the hypothesis n-gram count, the reference n-gram count and the clipped match count.  They
are additive, so a corpus score, a bootstrap resample and a bug model that changes the
aggregation are all functions of these integers and nothing else.
"""

from __future__ import annotations

from collections import Counter
from typing import Sequence

from .conventions import NOT_COUNTED, hypothesis_count
from .params import ChrfParams
from .scoring import sentence_fscore
from .segment import SegmentStats, sum_stats  # noqa: F401  (re-exported)
from .text import char_ngrams, char_sequence, word_ngrams, word_tokens


def _matches(hc: Counter, rc: Counter, ht: int, rt: int) -> int:
    # Clipped matches: sum over common n-grams of min(hyp count, ref count).  The key
    # intersection and the min/sum run in C; this is the hot loop of every score.
    common = hc.keys() & rc.keys()
    if not common:
        return 0
    if len(hc) == ht or len(rc) == rt:
        # Every n-gram on one side occurs once (typical of higher orders): each common
        # n-gram contributes min(1, other count) = 1.
        return len(common)
    return sum(map(min, map(hc.__getitem__, common), map(rc.__getitem__, common)))


class TextProfile:
    """A text's n-gram counters, built once and matched against many others.

    ``counters``/``totals``: char orders 1..nc then word orders 1..nw; ``char_order`` = nc.
    """

    __slots__ = ("counters", "totals", "char_order")

    def __init__(self, text: str, params: ChrfParams):
        if params.lowercase:
            text = text.lower()
        counters, totals = char_ngrams(
            char_sequence(text, params.whitespace, params.definition), params.char_order
        )
        if params.word_order:
            wc, wt = word_ngrams(word_tokens(text), params.word_order)
            counters = counters + wc
            totals = totals + wt
        self.counters = counters
        self.totals = totals
        self.char_order = params.char_order


def match_profiles(hyp: TextProfile, ref: TextProfile) -> SegmentStats:
    hyp_counts = []
    match_counts = []
    # A profile built without __init__ may lack char_order: then no order is skipped.
    nc = getattr(hyp, "char_order", -1)
    previous = 1
    for i, (hc, rc, ht, rt) in enumerate(zip(hyp.counters, ref.counters, hyp.totals, ref.totals)):
        if i == nc or nc < 0:
            previous = 1
        if rt and ht:
            hyp_counts.append(ht)
            # An n-gram match contains an (n-1)-gram match of the same kind, so an order
            # after one without matches has none (orders restart at the first word order).
            m = _matches(hc, rc, ht, rt) if previous else 0
            match_counts.append(m)
        else:
            # where the reference has no n-gram of the order, the reference's reading of
            # conventions.HYPOTHESIS_NGRAMS_WHERE_REFERENCE_HAS_NONE (sacreBLEU 2.x's): not counted
            hyp_counts.append(hypothesis_count(ht, rt, NOT_COUNTED))
            match_counts.append(0)
            m = 0
        previous = m
    return SegmentStats(tuple(hyp_counts), tuple(ref.totals), tuple(match_counts))


def select_reference(candidates: Sequence[SegmentStats], params: ChrfParams) -> int:
    """Index of the reference whose statistics the segment uses.

    ``sacrebleu``/``sacrebleu-eps``: highest sentence F, the first one on ties.
    ``chrfpp``: the first reference with F strictly greater than every earlier one and than
    0.  chrF++.py keeps no best reference when every F is 0 (it then crashes on the first
    segment or silently re-adds the previous segment's counts); the reference models the
    evident intent and uses the first reference, whose counts are what a fixed script adds.
    """
    if len(candidates) == 1:
        return 0
    best_index = 0
    best_f = sentence_fscore(candidates[0], params)
    for i in range(1, len(candidates)):
        f = sentence_fscore(candidates[i], params)
        if f > best_f:
            best_index, best_f = i, f
    return best_index


def segment_statistics(
    hypothesis: str, references: Sequence[str], params: ChrfParams
) -> tuple[SegmentStats, int]:
    """Statistics of one segment against its best reference, and that reference's index.

    Inputs are assumed valid (the public API validates); this is the hot path.
    """
    hyp = TextProfile(hypothesis, params)
    if len(references) == 1:
        return match_profiles(hyp, TextProfile(references[0], params)), 0
    candidates = [match_profiles(hyp, TextProfile(r, params)) for r in references]
    best = select_reference(candidates, params)
    return candidates[best], best
