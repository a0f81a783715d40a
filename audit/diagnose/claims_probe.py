"""Claimed parameters the implementation accepts and then ignores.

An implementation that takes ``char_order=4`` and computes with 6 anyway is wrong in a way
no deviation of the text or score stage describes: on the default parameters it is right.
The probe varies one accepted parameter at a time (``Adapter.configure``) and compares the
implementation with *itself*: on inputs whose reference score depends on that parameter,
the configured implementation returns exactly what the unconfigured one returns.  That
comparison needs no model of anything else the implementation does, so a parameter is
found ignored behind any other bug.  The inputs come from fixed trigger pools: the same
probe on every run.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Optional

from .deviations.triggers import draw

#: Parameters the probe can vary, the trigger pools whose inputs depend on them, and the
#: value each is set to (a function of the claimed one).
PROBED = {
    "char_order": (("plain", "unequal-pr"), lambda v: v - 2 if v > 2 else v + 2),
    "word_order": (("punctuation", "unequal-pr"), lambda v: 0 if v else 2),
    "beta": (("unequal-pr",), lambda v: Fraction(1) if v != 1 else Fraction(3)),
    "lowercase": (("case",), lambda v: not v),
    "whitespace": (("whitespace",), lambda v: not v),
}
#: Inputs on which the parameter changes the fitted model's score (and the model reproduces
#: the implementation as claimed), and how many of them must come out unchanged by it.
INPUTS = 8
MIN_DECISIVE = 5


def family(name: str) -> str:
    return f"parameter-ignored-{name.replace('_', '-')}"


@dataclass
class Ignored:
    """One ignored parameter: its claimed value, the value it was set to, the evidence."""

    name: str
    claimed: object
    probed: object
    unchanged: int  # decisive inputs on which the configured implementation gave the same score
    decisive: int
    inputs: list  # the decisive inputs (segment lists), smallest first

    @property
    def family(self) -> str:
        return family(self.name)

    @property
    def evidence(self) -> str:
        return (f"set to {self.probed!r} instead of {self.claimed!r}, the implementation returns exactly what it "
                f"returns unconfigured on {self.unchanged} of {self.decisive} inputs whose score depends on "
                f"{self.name}")


def probe(adapter, level: str, score_many, tolerance: float, model: Optional[tuple] = None) -> list[Ignored]:
    """The accepted parameters ``adapter`` ignores at ``level``.  ``score_many(adapter,
    inputs)`` scores segment lists with the given (configured) adapter; ``model`` is the
    implementation's fitted model (``audit.diagnose.models`` variant; None: the definition itself).

    Decisive inputs are those on which the model, which reproduces the unconfigured
    implementation there, predicts a different score with the parameter changed: an
    implementation that honours the parameter answers differently; one that answers the
    same ignores it.  (Without the model, an input another bug gets wrong could give both
    settings one answer.)"""
    from .models import agrees, predict
    from .variants import ScoreVariant, TextVariant

    model = model or (TextVariant(), ScoreVariant())
    base = adapter.claims
    params = base.params()
    scale = base.scale

    def predicted(segs, p) -> Fraction:
        return predict(segs, p, level, model)

    out = []
    for name in sorted(set(adapter.accepts) & set(PROBED)):
        pools, change = PROBED[name]
        value = change(getattr(base, name))
        try:
            other = replace(params, **{name: value}) if name != "beta" else replace(params, beta=Fraction(value))
            configured = adapter.configure(**{name: value if name != "beta" else _plain(value)})
        except Exception:  # noqa: BLE001 - a value the implementation refuses is not ignored
            continue
        inputs = []
        for gen in pools:
            for segs in draw(f"parameter-ignored|{name}|{gen}", gen, params, level, 1):
                segs = segs[:1] if level == "sentence" else segs
                try:
                    if abs(float(predicted(segs, params)) - float(predicted(segs, other))) > 1e-6:
                        inputs.append(segs)
                except Exception:  # noqa: BLE001 - a model that cannot read this input
                    continue
        inputs = sorted(inputs, key=lambda s: sum(len(h) + sum(map(len, rs)) for h, rs in s))[:2 * INPUTS]
        if len(inputs) < MIN_DECISIVE:
            continue
        as_claimed = score_many(adapter, inputs)
        as_set = score_many(configured, inputs)
        kept = [(segs, a, b) for segs, a, b in zip(inputs, as_claimed, as_set)
                if a is not None and b is not None
                and agrees(predicted(segs, params), model[1], a, scale, tolerance)][:INPUTS]
        unchanged = sum(1 for _, a, b in kept if abs(a - b) <= tolerance)
        if len(kept) >= MIN_DECISIVE and unchanged == len(kept):
            out.append(Ignored(name, _plain(getattr(base, name)), _plain(value), unchanged, len(kept),
                               [segs for segs, _, _ in kept]))
    return out


def _plain(value):
    if isinstance(value, Fraction):
        return int(value) if value.denominator == 1 else float(value)
    return value
