"""Candidate explanations of one divergence: the deviation sets whose exact model gives the
implementation's output on this input.

A candidate is only a hypothesis: ``audit.diagnose.classify`` accepts it when it also predicts the
implementation on held-out inputs drawn to exercise its families' triggers.  Candidates come
by increasing size (number of deviations, an output deviation counting as one), text
deviations before score deviations, so that classification is deterministic.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Optional

from reference_impl import ChrfParams, SegmentStats

from . import deviations
from .models import FLOAT32_BOUND, agrees, describe_output, variant_score
from .text_model import text_stats
from .variants import ScoreVariant, TextVariant


@dataclass
class Explanation:
    families: list[str]
    value: Fraction
    detail: str = ""
    variant: tuple = ()  # (TextVariant, ScoreVariant), to predict other inputs
    #: held-out targeted inputs the explanation predicted, of how many (set on confirmation)
    predicted: int = 0
    targeted: int = 0


def rounded_matches(value: Fraction, actual: float, scale: int, tol: float) -> Optional[tuple]:
    """(decimals k, rounding mode) at which ``value`` rounded on the implementation's scale
    gives ``actual`` ((-1, None): float32 of the result), or None."""
    from .models import ROUNDING_MODES, float32, rounded

    exact = float(value)
    if abs(exact - actual) > 50.0 * 100 / scale:  # more than any rounding can move it
        return None
    own = exact * scale / 100
    # Coarser than whole points on 0..100 is not "precision loss" but a different score.
    for k in range(0 if scale == 100 else 2, 9):
        for mode in ROUNDING_MODES:
            if abs(rounded(own, k, mode) * 100 / scale - actual) <= tol:
                return k, mode
    if abs(float32(exact) - actual) <= tol:
        return -1, None
    return None


def _relevant_score_alternatives(raw: list[list[SegmentStats]], alts, params: ChrfParams):
    """Score deviations that can change a score computed from these statistics (each test is
    structural: it holds in any combination)."""
    flat = [c for seg in raw for c in seg]
    pool = list(flat)
    if len(flat) > 1:
        pool.append(SegmentStats(tuple(map(sum, zip(*(x.hyp for x in flat)))),
                                 tuple(map(sum, zip(*(x.ref for x in flat)))),
                                 tuple(map(sum, zip(*(x.match for x in flat))))))
    partial = any(any(h and r for h, r in zip(x.hyp, x.ref)) and not all(h and r for h, r in zip(x.hyp, x.ref))
                  for x in pool)
    unequal = any(h and r and m * r != m * h for x in pool for h, r, m in zip(x.hyp, x.ref, x.match))
    matched = any(any(x.match) for x in pool)
    empty = any(not getattr(x, "hyp_total", sum(x.hyp)) and not any(x.ref) for x in flat)
    refs_differ = any(len(set(seg)) > 1 for seg in raw)
    zero_segment = len(raw) > 1 and any(not any(any(c.match) for c in seg) for seg in raw)
    # an order without n-grams on one side or both (counted by "an empty order scores 1")
    gaps = any(not (h and r) for x in pool for h, r in zip(getattr(x, "hyp_orders", ()) or x.hyp, x.ref))
    # orders the reference has that are not effective (the reference-length cap counts them)
    ref_only = any(r and not h for x in pool for h, r in zip(x.hyp, x.ref))
    lengths = len(raw) > 1 and len({(seg[0].hyp_len, seg[0].ref_len) for seg in raw if seg}) > 1
    keep = []
    for f, val in alts:
        if f == "divisor" and val == "reference":
            if not ref_only:
                continue
        elif f == "divisor" and not partial:
            continue
        if f == "empty_order" and not gaps:
            continue
        if f == "macro" and val is not True and not lengths:
            continue
        if f == "average" and val == "char-word-mean" and not matched:
            continue
        if f == "average" and val not in ("pooled", "char-word-mean") and not unequal:
            continue
        if f == "average" and val == "pooled" and not matched:
            continue
        if f in ("swapped", "beta_not_squared", "beta") and not unequal:
            continue
        if f in ("swapped", "beta_not_squared") and params.beta == 1:
            continue
        if f == "empty_perfect" and not empty:
            continue
        if f == "references" and val in ("first", "mean") and not refs_differ:
            continue
        if f == "references" and val == "sentinel-zero" and not zero_segment:
            continue
        keep.append((f, val))
    return keep


#: Text fields that change which texts are compared (references read otherwise, segments
#: dropped, texts cut): another deviation may matter only on top of one of them.
_LAYOUT_FIELDS = ("refs_layout", "corpus_layout", "truncate")


def explain(segments: list[tuple[str, list[str]]], params: ChrfParams, level: str, actual: float,
            tolerance: float, scale: int = 100, max_size: int = 3, base: Optional[tuple] = None):
    """Yield, by increasing size, the lists of deviation sets whose model gives ``actual`` on
    this input (exactly, or after an output deviation: rounding, float32).

    ``base``: a fitted model (a ``(TextVariant, ScoreVariant)``) the sets are added to (the
    peel: a new deviation is looked for on top of the ones fitted already, so that an
    implementation with four or five deviations needs no set larger than two); each
    explanation then names and carries only the added deviations, its value is the merged
    model's."""
    base_tv, base_sv = base if base is not None else (TextVariant(), ScoreVariant())
    nrefs, nsegs = max(len(rs) for _, rs in segments), len(segments)  # (ragged: the longest list)
    stats_cache: dict = {}
    #: statistics -> one canonical copy: text variants that read this input alike share their
    #: scores (``scored``) and their relevant score deviations (``relevant``)
    canonical: dict = {}

    def stats(tv: TextVariant):
        if tv not in stats_cache:
            raw = text_stats(segments, params, tv)
            key = tuple(map(tuple, raw))
            stats_cache[tv] = canonical.setdefault(key, raw)
        return stats_cache[tv]

    def unset(part, fld) -> bool:
        return getattr(part, fld) == getattr(type(part)(), fld)

    base_stats = stats(base_tv)
    longest = max(len(t) for h, rs in segments for t in (h, *rs))
    # Only text deviations that change the statistics of this very input can matter (a text
    # cut after more characters than any text holds changes nothing).
    candidates = [(f, v) for f, v in deviations.alternatives("text", params, level, nrefs, nsegs)
                  if unset(base_tv, f) and not (f == "truncate" and v[1] >= longest)]
    text_alts = [(f, v) for f, v in candidates if stats(replace(base_tv, **{f: v})) != base_stats]
    # ... or on top of a deviation that changes which texts are compared (a reference string
    # read as its characters makes clipping matter on "aa" against "aa")
    for lf, lv in [(f, v) for f, v in text_alts if f in _LAYOUT_FIELDS]:
        read = stats(replace(base_tv, **{lf: lv}))
        text_alts += [(f, v) for f, v in candidates if f not in _LAYOUT_FIELDS and (f, v) not in text_alts
                      and stats(replace(base_tv, **{lf: lv, f: v})) != read]
    score_alts = [(f, v) for f, v in deviations.alternatives("score", params, level, nrefs, nsegs) if unset(base_sv, f)]
    relevant_cache: dict = {}
    base_output = base_sv.rounding is not None or base_sv.float32

    def relevant(tv: TextVariant):
        raw = stats(tv)
        if id(raw) not in relevant_cache:
            relevant_cache[id(raw)] = _relevant_score_alternatives(raw, score_alts, params)
        return relevant_cache[id(raw)]

    score_cache: dict = {}

    def scored(tv: TextVariant, sv: ScoreVariant) -> Fraction:
        raw = stats(tv)
        key = (id(raw), sv)
        if key not in score_cache:
            score_cache[key] = variant_score(raw, params, sv, level)
        return score_cache[key]

    pending: list[Explanation] = []  # output-deviation explanations of the previous size
    for size in range(0 if base is None else 1, max_size + 1):
        exact: list[Explanation] = []
        output: list[Explanation] = []
        for n_text in range(size, -1, -1):
            for tcombo in itertools.combinations(text_alts, n_text):
                fields = [f for f, _ in tcombo]
                if len(set(fields)) != len(fields):
                    continue  # two values for one field are mutually exclusive
                tv = replace(base_tv, **dict(tcombo))
                for scombo in itertools.combinations(relevant(tv), size - n_text):
                    sfields = [f for f, _ in scombo]
                    if len(set(sfields)) != len(sfields):
                        continue
                    sv = replace(base_sv, **dict(scombo))
                    value = scored(tv, sv)
                    added = (TextVariant(**dict(tcombo)), ScoreVariant(**dict(scombo))) if base is not None else (tv, sv)
                    if (agrees(value, sv, actual, scale, tolerance) if base_output
                            else abs(float(value) - actual) <= tolerance):
                        exact.append(Explanation(added[0].families() + added[1].families(), value, variant=added))
                    elif size < max_size and not base_output:
                        km = rounded_matches(value, actual, scale, tolerance)
                        if km is not None:
                            sv2 = replace(added[1], rounding=km[0], rounding_mode=km[1])
                            detail = describe_output(sv2, scale)
                            output.append(Explanation(added[0].families() + sv2.families(), value, detail,
                                                      (added[0], sv2)))
                        if abs(float(value) - actual) <= FLOAT32_BOUND * max(1.0, abs(float(value)) / 100):
                            sv2 = replace(added[1], float32=True)
                            output.append(Explanation(added[0].families() + sv2.families(), value,
                                                      "within float32 error", (added[0], sv2)))
        found = _unique(pending + exact)
        if found:
            yield found
        pending = output
    if pending:
        yield _unique(pending)


def _unique(exps: list[Explanation]) -> list[Explanation]:
    """One explanation per model (two models of one family -- a reference string read as its
    first character or as its characters -- are two candidates: the judge tells them apart)."""
    seen, out = set(), []
    for e in exps:
        k = (tuple(e.families), e.variant)
        if k not in seen:
            seen.add(k)
            out.append(e)
    return out
