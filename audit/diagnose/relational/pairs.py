"""Pairs: two inputs whose statistics a stage variant makes equal (or different) get equal
(or different) scores from an implementation built that way, whatever it does next."""

from __future__ import annotations

from dataclasses import replace
from typing import Optional

from .. import deviations
from ..deviations.triggers import draw
from ..deviations.triggers import pool as trigger_pool
from ..text_model import text_stats
from ..variants import TextVariant
from .edits import TEXT_FIELDS, _apply
from .evidence import INPUTS_PER_FAMILY, MIN_DECISIVE, STRONG_SHARE, WEAK_SHARE, RelationalFit


# ------------------------------------------------------------------------------ fitting


def _near(text: str) -> str:
    """``text`` with its last letter replaced by one it does not hold."""
    i = max((j for j, c in enumerate(text) if c.isalpha()), default=len(text) - 1)
    new = next(c for c in "zyxwvu" if c not in text) if any(c not in text for c in "zyxwvu") else "q"
    return text[:i] + new + text[i + 1:]


def _key(segs, params, tv: TextVariant, references: Optional[str] = None, summed: bool = False):
    """What an implementation with text variant ``tv`` computes its score from, whatever it
    does with it: per segment, the statistics of the references it reads that can decide
    its score -- the first one's (first reference only), all of them as a multiset (mean),
    else those that match (the best reference scores above 0 and does not depend on the
    order), or the first when none matches (a tie at 0), or nothing (a best-reference search
    that starts from 0).  ``summed`` (a corpus score from summed statistics): when every
    segment's choice is decided, their sum per order, which is all such a score sees."""
    out = []
    for seg in text_stats(segs, params, tv):
        stats = [(s.hyp, s.ref, s.match) for s in seg]
        matched = sorted(x for x in stats if any(x[2]))
        if references == "first":
            out.append(tuple(stats[:1]))
        elif references == "mean":
            out.append(tuple(sorted(stats)))
        elif matched:  # the best reference is one that matches (a score above 0), whichever
            out.append(tuple(matched))
        elif references != "sentinel-zero":  # none matches: a tie at 0, the first one wins
            out.append(tuple(stats[:1]))
        # (sentinel-zero: a segment that matches no reference adds nothing)
    if summed and references != "mean" and all(len(set(c)) == 1 for c in out):
        chosen = [c[0] for c in out]
        return ("sum",) + tuple(tuple(map(sum, zip(*parts))) for parts in zip(*chosen)) if chosen else ("sum",)
    return tuple(out)


def _pool(fields: set, params, level: str, nrefs: int, nsegs: int) -> list:
    """Trigger inputs of every family modelled by ``fields`` (deterministic)."""
    out, raw, seen = [], [], set()
    for dev in deviations.modelled("text"):
        if not any(f in fields for f, _ in dev.models) or dev.trigger is None:
            continue
        for segs in trigger_pool(dev.id, params, level, nrefs)[:INPUTS_PER_FAMILY]:
            # and a near copy: the hypothesis is its first reference with one letter changed,
            # so that every order has some matches and scores stay off the ends of the scale
            near = [(_near(rs[0]) if rs and len(rs[0]) > 2 else h, rs) for h, rs in segs]
            for cand, into in ((near, out), (segs, raw)):
                k = repr(cand)
                if k not in seen:
                    seen.add(k)
                    into.append(cand)
    if "clip" in fields:  # a hypothesis that holds its reference twice: every n-gram over-represented
        for segs in draw("relational-clip", "plain", params, level, 1)[:INPUTS_PER_FAMILY]:
            out.append([(rs[0] + rs[0], rs) for _, rs in segs])
    if "hyp_where_no_ref" in fields and level == "corpus":
        # a segment whose reference has one character, then one that holds its reference and
        # a letter more (whose last character the edit moves to the first segment)
        for segs in draw("relational-short-references", "segments", params, level, 1)[:INPUTS_PER_FAMILY]:
            (h0, r0), (_, r1) = segs[0], segs[1]
            out.append([(h0, [r0[0][:1]]), (r1[0] + "z", r1)] + segs[2:])
    if level == "corpus":  # layout families need several segments (and references)
        for segs in draw("relational-corpus", "segments", params, level, 1)[:INPUTS_PER_FAMILY]:
            out.append(segs)
        for segs in draw("relational-refs", "references", params, level, max(2, nrefs))[:INPUTS_PER_FAMILY]:
            out.append(segs + [(h + "b", rs[::-1]) for h, rs in segs])
    return out + raw  # the inputs made to score off the ends of the scale first


def _alternatives(field: str, model_tv: TextVariant, params, level, nrefs, nsegs, exclude) -> list:
    alts = []
    for fam_field, value in deviations.alternatives("text", params, level, nrefs, nsegs):
        fam = deviations.family_of("text", fam_field, value)
        if fam_field == field and fam not in exclude:
            alts.append((fam, value))
    return alts


def fit_text_fields(score_many, params, level: str, model: tuple, nrefs: int, nsegs: int,
                    tolerance: float, exclude=frozenset()) -> list[RelationalFit]:
    """Text and layout deviations named by pairs, one field at a time, each on top of the
    model fitted so far (``model``, and the fields named before it here).  How references
    are read competes with which reference is used: ``first-reference-only`` is a candidate
    of the reference layout (a reference string read as its characters also depends on the
    first reference alone; only pairs tell them apart).
    ``score_many(list of segment lists) -> list of float|None``."""
    tv0, sv0 = model
    fits = []
    for field, edits in TEXT_FIELDS.items():
        if getattr(tv0, field) != getattr(TextVariant(), field):
            continue  # fitted exactly already
        alts = [(fam, "text", field, v) for fam, v in _alternatives(field, tv0, params, level, nrefs, nsegs, exclude)]
        if field == "refs_layout" and nrefs > 1 and sv0.references is None and "first-reference-only" not in exclude:
            alts.append(("first-reference-only", "score", "references", "first"))
        if not alts:
            continue
        candidates = [(None, "text", field, getattr(tv0, field))] + alts
        # sums (coarser, so more exposed to an unfitted deviation of an earlier stage) only
        # where the deviation is one of how sums are made
        summed = level == "corpus" and not sv0.macro and field == "hyp_where_no_ref"
        variants = [(replace(tv0, **{f: v}), sv0.references, summed) if stage == "text" else (tv0, v, summed)
                    for _, stage, f, v in candidates]
        pairs = _pairs(_pool({field}, params, level, nrefs, nsegs), edits, params, variants, nrefs)
        if not pairs:
            continue
        inputs = [p[0] for p in pairs] + [p[1] for p in pairs]
        values = score_many(inputs)
        n = len(pairs)
        scored = [(x, y, eq, values[i], values[n + i], edit) for i, (x, y, eq, edit) in enumerate(pairs)
                  if _informative(values[i], values[n + i], tolerance)]
        best = _best(candidates, [row[:5] for row in scored], tolerance)
        if best is not None:
            (fam, stage, fld, value), agreed, wrong, example, i = best
            edit = next(row[5] for row in scored if row[0] is example[0] and row[1] is example[1])
            fits.append(RelationalFit(fam, stage, fld, value, agreed, len(scored), wrong, example[0], example[1],
                                      _pair_relation(score_many, params, variants[0], variants[i], edit, tolerance),
                                      _shown(params, variants[0], variants[i], edit)))
            tv0, refs, _ = variants[i]  # the next fields are judged on top of this one
            sv0 = replace(sv0, references=refs)
    return fits


#: Pairs kept per pattern of predictions (which candidates say "equal"), and in all: every
#: pattern that tells two candidates apart is represented, none crowds the others out.
PAIRS_PER_PATTERN = 10
MAX_PAIRS = 80
#: Inputs of a field's pool that pairs are made from (the ones made to score off the ends
#: of the scale come first).
POOL_PER_FIELD = 32


def _pairs(pool, edits, params, variants, nrefs: int) -> list:
    """Pairs (x, edit of x) that some candidates say are equal and others not, none with
    more than ``nrefs`` references in a segment (what the implementation takes)."""
    by_pattern: dict = {}
    pool = [x for x in pool if all(len(rs) <= nrefs for _, rs in x)]
    for x in pool[:POOL_PER_FIELD]:
        try:
            keys_x = [_key(x, params, *variant) for variant in variants]
        except Exception:  # noqa: BLE001 - an input a model cannot read (an empty layout)
            continue
        for edit in edits:
            y = _apply(edit, x)
            if y is not None and any(len(rs) > nrefs for _, rs in y):
                continue
            eq = _equalities_to(keys_x, y, params, variants) if y is not None else None
            if eq is not None and len(set(eq)) > 1:
                rows = by_pattern.setdefault(tuple(eq), [])
                if len(rows) < PAIRS_PER_PATTERN:
                    rows.append((x, y, eq, edit))
    pairs = []
    for i in range(PAIRS_PER_PATTERN):  # round robin over the patterns, in the order first met
        pairs += [rows[i] for rows in by_pattern.values() if i < len(rows)]
    return pairs[:MAX_PAIRS]


def _equalities_to(keys_x, y, params, variants) -> Optional[list[bool]]:
    try:
        return [kx == _key(y, params, *variant) for kx, variant in zip(keys_x, variants)]
    except Exception:  # noqa: BLE001
        return None


def _equalities(x, y, params, variants) -> Optional[list[bool]]:
    """Per variant ``(TextVariant, reference selection)``: does it compute the same
    statistics for ``x`` and ``y``?"""
    try:
        return [_key(x, params, *v) == _key(y, params, *v) for v in variants]
    except Exception:  # noqa: BLE001 - an input a model cannot read (an empty layout)
        return None


def _shown(params, before: tuple, after: tuple, edit):
    """Which input of a pair to report: the one whose statistics the deviation changes
    (the one holding the whitespace inserted, the one with repeated n-grams, ...)."""
    def pick(x):
        y = _apply(edit, x)
        for cand in (x, y) if y is not None else (x,):
            try:
                if _key(cand, params, *before) != _key(cand, params, *after):
                    return cand
            except Exception:  # noqa: BLE001
                continue
        return x
    return pick


def _pair_relation(score_many, params, before: tuple, after: tuple, edit, tolerance):
    """The evidence as a predicate on one input (to reduce it): the edit still makes a pair
    the two variants disagree on, and the implementation sides with ``after``."""
    def holds(x) -> bool:
        y = _apply(edit, x)
        eq = _equalities(x, y, params, [before, after]) if y is not None else None
        if eq is None or eq[0] == eq[1]:
            return False
        a, b = score_many([x, y])
        return _informative(a, b, tolerance) and (abs(a - b) <= tolerance) == eq[1]
    return holds


def _informative(a: Optional[float], b: Optional[float], tolerance: float) -> bool:
    """Two different scores always say the implementation told the inputs apart; two equal
    scores say it did not only away from the ends of the scale: an implementation that
    scores most inputs 0 (or 100) makes such pairs look "equal" whatever their statistics."""
    if a is None or b is None:
        return False
    return abs(a - b) > tolerance or tolerance < a < 100 - tolerance


def _best(candidates, scored, tolerance):
    """The alternative the implementation follows, or None (the fitted model's own value,
    an ambiguous pattern, or too little evidence)."""
    results = []
    for i, cand in enumerate(candidates):
        strong = weak = unequal = 0
        for x, y, eq, a, b in scored:
            same = abs(a - b) <= tolerance
            if eq[i] and not same:
                strong += 1
            elif not eq[i]:
                unequal += 1
                weak += same
        results.append((strong, weak, unequal))
    model_fail = results[0][0] + results[0][1]
    ok = []
    for i, (strong, weak, unequal) in enumerate(results[1:], 1):
        # An "equal" that comes out different can only be another unfitted deviation of an
        # earlier stage at work: a few are tolerated, where the model fitted so far fails
        # three times as often.
        if strong <= max(1, STRONG_SHARE * len(scored)) and weak <= max(1, WEAK_SHARE * unequal) \
                and model_fail >= 3 * (strong + weak) + MIN_DECISIVE:
            ok.append((strong + weak, i))
    if not ok:
        return None
    ok.sort()
    if len(ok) > 1 and ok[0][0] == ok[1][0]:
        return None  # two alternatives fit equally well: no name
    _, i = ok[0]
    agreed = len(scored) - ok[0][0]
    example = next((x, y) for x, y, eq, a, b in scored if eq[i] != eq[0] and (abs(a - b) <= tolerance) == eq[i])
    return candidates[i], agreed, model_fail, example, i


