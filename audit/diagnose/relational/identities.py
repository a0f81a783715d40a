"""Identities: the score of an input as a fixed function of the implementation's own scores
of its parts (the first reference's, the mean over references, the mean over segments)."""

from __future__ import annotations

from dataclasses import replace

from ..deviations.triggers import draw
from ..models import predict
from .evidence import INPUTS_PER_FAMILY, MIN_DECISIVE, RelationalFit


def fit_identities(score_many, params, level: str, model: tuple, nrefs: int, tolerance: float,
                   exclude=frozenset()) -> list[RelationalFit]:
    """Reference selection (first reference, mean over references) and corpus aggregation
    (mean of segment scores) named by identities over the implementation's own scores."""
    tv0, sv0 = model
    fits = []
    if level == "sentence" and nrefs > 1 and sv0.references is None:
        pool = [segs[:1] for segs in draw("relational-references", "references", params, level, max(2, nrefs))]
        rows = [(segs, _parts(level, segs)) for segs in pool[:2 * INPUTS_PER_FAMILY]]
        fits += _identity_fit(score_many, params, level, model, rows, tolerance, exclude, "sentence")
    if level == "corpus" and not sv0.macro and "corpus-macro-average" not in exclude:
        rows = [(segs, _parts(level, segs)) for segs in draw("relational-macro", "segment-lengths", params, level, 1)]
        fits += _identity_fit(score_many, params, level, model, rows, tolerance, exclude, "corpus")
    return fits


def _mean(whole, ps):
    return sum(ps) / len(ps)


def _weighted(which):
    def mean(whole, ps):
        ws = [max(1, len(h) if which == "hypothesis" else len(rs[0])) for h, rs in whole]
        return sum(w * p for w, p in zip(ws, ps)) / sum(ws)
    return mean


#: family -> (score field, value, identity over (whole input, its parts' scores)); an
#: identity names its family only where the others of its level (its rivals: a mean weighted
#: by length, the first part alone) are refuted too.
_IDENTITIES = {
    "sentence": [("references-averaged", "references", "mean", _mean),
                 ("first-reference-only", "references", "first", lambda whole, ps: ps[0]),
                 # rivals only: the definition's best reference, and the references after the
                 # first two ignored (the smallest K of references-beyond-first-ignored)
                 ("the best reference", None, None, lambda whole, ps: max(ps)),
                 ("references-beyond-first-ignored", None, None, lambda whole, ps: max(ps[:2]))],
    "corpus": [("corpus-macro-average", "macro", True, _mean),
               ("corpus-length-weighted-mean", "macro", "hypothesis-length", _weighted("hypothesis")),
               ("corpus-length-weighted-mean", "macro", "reference-length", _weighted("reference")),
               ("corpus-single-segment", None, None, lambda whole, ps: ps[0])],
}
#: Decisive inputs on which each rival identity must fail.
MIN_REFUTED = 2


def _identity_fit(score_many, params, level, model, rows, tolerance, exclude, kind) -> list[RelationalFit]:
    flat = []
    for whole, parts in rows:
        flat += [whole] + parts
    values = score_many(flat)
    fits, i = [], 0
    scored = []
    for whole, parts in rows:
        vals = values[i:i + 1 + len(parts)]
        i += 1 + len(parts)
        if all(v is not None for v in vals):
            scored.append((whole, parts, vals[0], vals[1:]))
    if kind == "sentence":
        scored += _best_second(score_many, scored)
    for fam, field, value, ident in _IDENTITIES[kind]:
        if fam in exclude or field is None or any(f.family == fam for f in fits):
            continue
        variant = (model[0], replace(model[1], **{field: value}))
        decisive = agreed = broken = 0
        example = None
        refuted = {i: 0 for i, rival in enumerate(_IDENTITIES[kind]) if rival[0] != fam}
        for whole, parts, w, ps in scored:
            # only inputs where the identity tells the deviation from the model fitted so far
            if not _decisive(whole, params, level, model, variant, tolerance):
                continue
            decisive += 1
            if abs(w - ident(whole, ps)) <= tolerance:
                agreed += 1
                example = example or whole
                for i in refuted:
                    refuted[i] += abs(w - _IDENTITIES[kind][i][3](whole, ps)) > tolerance
            else:
                broken += 1
        if broken == 0 and agreed >= MIN_DECISIVE and all(n >= MIN_REFUTED for n in refuted.values()):
            if fam == "first-reference-only" and not _reads_whole_first_reference(score_many, scored, tolerance):
                continue  # a reference string read as a list reads only the first one as well
            rivals = sorted({_IDENTITIES[kind][i][0] for i in refuted} - {fam})
            fits.append(RelationalFit(fam, "score", field, value, agreed, decisive, decisive, example,
                                      holds=_identity_relation(score_many, params, level, model, variant, ident,
                                                               tolerance, lambda w: _parts(level, w)),
                                      rivals=tuple(rivals)))
    return fits


def _best_second(score_many, scored) -> list:
    """Each input whose best-scoring reference (by the implementation's own scores) comes
    third or later, again with that reference moved second: where the references after the
    first two are ignored, the score is then the better of the first two, where all after the
    first are, the first's (the parts are the same, so their scores are reused)."""
    moved = []
    for whole, parts, _, ps in scored:
        (h, refs), = whole
        j = max(range(len(ps)), key=ps.__getitem__)
        if j >= 2:
            order = [0, j] + [k for k in range(1, len(refs)) if k != j]
            moved.append(([(h, [refs[k] for k in order])], [parts[k] for k in order], [ps[k] for k in order]))
    values = score_many([w for w, _, _ in moved]) if moved else []
    return [(w, parts, v, ps) for (w, parts, ps), v in zip(moved, values) if v is not None]


def _reads_whole_first_reference(score_many, scored, tolerance) -> bool:
    """The rival ``reference-string-as-list`` ignores every reference after the first too: it
    reads a reference string as its characters, so the score against one reference ``r`` is
    the score against ``r[0]`` alone (its first character), or the best over its characters.
    Refuted on ``MIN_REFUTED`` inputs where the first reference's own score is neither."""
    refuted = 0
    for whole, parts, _, ps in scored:
        (h, refs), = whole
        first = refs[0]
        chars = list(dict.fromkeys(first))
        if len(first) < 2 or len(chars) > 12:
            continue
        got = score_many([[(h, [c])] for c in chars])
        if None in got:
            continue
        if abs(ps[0] - got[0]) > tolerance and abs(ps[0] - max(got)) > tolerance:
            refuted += 1
            if refuted >= MIN_REFUTED:
                return True
    return False


def _decisive(whole, params, level, model, variant, tolerance) -> bool:
    try:
        return abs(float(predict(whole, params, level, variant)) - float(predict(whole, params, level, model))) > tolerance
    except Exception:  # noqa: BLE001
        return False


def _parts(level: str, whole) -> list:
    if level == "sentence":
        (h, refs), = whole
        return [[(h, [r])] for r in refs]
    return [[s] for s in whole]


def _identity_relation(score_many, params, level, model, variant, ident, tolerance, parts_of):
    def holds(whole) -> bool:
        parts = parts_of(whole)
        if len(parts) < 2 or not _decisive(whole, params, level, model, variant, tolerance):
            return False
        w, *ps = score_many([whole] + parts)
        return w is not None and None not in ps and abs(w - ident(whole, ps)) <= tolerance
    return holds
