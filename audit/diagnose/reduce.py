"""Each fitted deviation's own repro: the smallest input on which it matters, with the
implementation's other deviations inert where possible.

The search's examples of a deviation are whatever Hypothesis happened to draw (long, full
of lone surrogates and control characters when another deviation masks the short ones), and
curated cases used to stand in for them, so a repro depended on the checkout.  Here the
repro of a fitted deviation ``V`` is made from its own trigger inputs
(``audit.diagnose.deviations.triggers``, the same on every run), in two tiers:

* **alone**: the implementation's score is what the definition plus ``V`` alone predicts,
  and that differs from the definition (every other fitted deviation is inert);
* **with the others**: the fitted model predicts the score, and the model without ``V``
  does not (``V`` matters, others may too).

The first trigger input that passes the stricter tier is reduced by Hypothesis's shrinker
over a *reduction strategy* of that input (each character dropped, replaced by ``a`` or
kept; each reference and segment kept or dropped), started from the input itself (a
recorded example in an in-memory database), keeping the tier's predicate.  Nothing depends
on cases, on what the search drew, or on the clock (``audit.settings.hypothesis_hooks.no_wall_clock``).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Optional

from hypothesis import strategies as st

from . import deviations
from .models import agrees, predict
from .variants import ScoreVariant, TextVariant

_CLAIMED = (TextVariant(), ScoreVariant())
_OUTPUT_FIELDS = ("rounding", "rounding_mode", "float32")


def _fields_of(family: str, variant: tuple) -> dict:
    """The fields of ``variant`` that belong to ``family``: stage -> {field: value}."""
    out: dict = {0: {}, 1: {}}
    for i, (part, stage) in enumerate(zip(variant, ("text", "score"))):
        default = type(part)()
        for name in part.__dataclass_fields__:
            value = getattr(part, name)
            if value == getattr(default, name):
                continue
            if name in _OUTPUT_FIELDS:
                fam = "float32-arithmetic" if name == "float32" else "precision-loss"
            else:
                fam = deviations.family_of(stage, name, value)
            if fam == family:
                out[i][name] = value
    return out


def alone(family: str, variant: tuple) -> tuple:
    """The definition with only ``family``'s deviations of ``variant``."""
    f = _fields_of(family, variant)
    return replace(_CLAIMED[0], **f[0]), replace(_CLAIMED[1], **f[1])


def without(family: str, variant: tuple) -> tuple:
    """``variant`` with ``family``'s deviations taken out."""
    f = _fields_of(family, variant)
    tv = replace(variant[0], **{k: getattr(TextVariant(), k) for k in f[0]})
    sv = replace(variant[1], **{k: getattr(ScoreVariant(), k) for k in f[1]})
    return tv, sv


def tier(segments, actual: Optional[float], family: str, model: tuple, params, level: str, scale: int,
         tolerance: float) -> Optional[int]:
    """0: ``family`` alone explains ``actual``; 1: the model explains it and needs the
    family; None: neither (or no number)."""
    if actual is None:
        return None
    try:
        mine = alone(family, model)
        if agrees(predict(segments, params, level, mine), mine[1], actual, scale, tolerance) and not \
                agrees(predict(segments, params, level, _CLAIMED), _CLAIMED[1], actual, scale, tolerance):
            return 0
        rest = without(family, model)
        if agrees(predict(segments, params, level, model), model[1], actual, scale, tolerance) and not \
                agrees(predict(segments, params, level, rest), rest[1], actual, scale, tolerance):
            return 1
    except Exception:  # noqa: BLE001 - a model that cannot read this input
        return None
    return None


def others_mattering(segments, family: str, model: tuple, params, level: str, tolerance: float) -> int:
    """How many of the model's other deviations change its prediction on ``segments``."""
    fams = set()
    for i, (part, stage) in enumerate(zip(model, ("text", "score"))):
        default = type(part)()
        for name in part.__dataclass_fields__:
            value = getattr(part, name)
            if value == getattr(default, name) or name in _OUTPUT_FIELDS:
                continue
            fam = deviations.family_of(stage, name, value)
            if fam is not None and fam != family:
                fams.add(fam)
    try:
        full = predict(segments, params, level, model)
        return sum(1 for f in fams
                   if abs(float(predict(segments, params, level, without(f, model))) - float(full)) > tolerance)
    except Exception:  # noqa: BLE001
        return len(fams)


# ----------------------------------------------------------------- reduction strategy


def _text(t: str):
    """Each character dropped (byte 0), replaced by "a" (1) or kept (2 and above), from one
    fixed-size byte string: one choice per text, which Hypothesis shrinks byte by byte
    towards "" (ten times faster than a choice per character, and as small)."""
    return st.binary(min_size=len(t), max_size=len(t)).map(
        lambda ops, t=t: "".join(("", "a", c)[min(op, 2)] for op, c in zip(ops, t)))


def _segment(h: str, refs: list):
    return st.tuples(_text(h), st.tuples(*[st.tuples(st.booleans(), _text(r)) for r in refs])).map(
        lambda hr: (hr[0], [r for keep, r in hr[1] if keep] or [hr[1][0][1]]))


def strategy(segments, level: str):
    """Reductions of ``segments`` (a segment list), as sentence or corpus inputs."""
    if level == "sentence":
        (h, refs), = segments
        return _segment(h, refs).map(lambda s: {"hypothesis": s[0], "references": s[1]})
    return st.tuples(*[st.tuples(st.booleans(), _segment(h, rs)) for h, rs in segments]).map(
        lambda ss: [s for keep, s in ss if keep] or [ss[0][1]]).map(
        lambda segs: {"hypotheses": [h for h, _ in segs], "references": [rs for _, rs in segs]})


def start_choices(segments, level: str) -> tuple:
    """The choice sequence that draws ``segments`` itself from ``strategy``."""
    def seg(h, refs):
        out = [bytes([2] * len(h))]
        for r in refs:
            out += [True, bytes([2] * len(r))]
        return out
    if level == "sentence":
        return tuple(seg(*segments[0]))
    out = []
    for h, rs in segments:
        out += [True] + seg(h, rs)
    return tuple(out)


def segments_of(level: str, inputs: dict) -> list:
    if level == "sentence":
        return [(inputs["hypothesis"], list(inputs["references"]))]
    return list(zip(inputs["hypotheses"], [list(r) for r in inputs["references"]]))


def inputs_of(level: str, segs) -> dict:
    """A segment list as the inputs of one call at ``level`` (the inverse of ``segments_of``)."""
    if level == "sentence":
        (h, refs), = segs
        return {"hypothesis": h, "references": list(refs)}
    return {"hypotheses": [h for h, _ in segs], "references": [list(r) for _, r in segs]}
