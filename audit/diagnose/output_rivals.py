"""The output stage's models and rivals (issue 41, item 5): how an implementation rounds its
score -- to how many decimals, half to even (Python's round(), numpy), half up (Java's and
JavaScript's Math.round of the scaled value) or toward zero (a C cast, Go's math.Trunc) -- or
float32 arithmetic throughout.

A rounding candidate is tried as every output model (``candidates``: the decimals and mode
seen on one input may be too few), and judged against every other one and against float32
(``rivals``): the distinguishing inputs of an output family are score values that separate
its rivals (ties at the rounded digit separate the modes; ``triggers`` draws them).  Two
modes of one family the pools cannot tell apart name the family all the same, and its
evidence says which modes were not told apart; float32, a band rather than a number, is never
named where the implementation gives exactly what a rounding model gives.
"""

from __future__ import annotations

from dataclasses import replace

from .models import ROUNDING_MODES

#: Decimals a rounding is tried at (-1: the float32 of the result).
DECIMALS = (*range(0, 9), -1)


def _models():
    for k in DECIMALS:
        for mode in (ROUNDING_MODES if k >= 0 else (None,)):
            yield k, mode


def candidates(variant: tuple) -> list[tuple]:
    """The output models a candidate with a rounding is tried as: its own first."""
    sv = variant[1]
    if sv.rounding is None:
        return [variant]
    out = [variant]
    for k, mode in _models():
        v = (variant[0], replace(sv, rounding=k, rounding_mode=mode))
        if v not in out:
            out.append(v)
    return out


def rivals(merged: tuple, describe) -> list[tuple[str, tuple, bool]]:
    """(name, model, same family) of every other output model of ``merged``'s output stage:
    the other roundings (the same family for a rounding, precision-loss for float32) and
    float32 (for a rounding).  ``describe(score variant)`` names a rounding."""
    sv = merged[1]
    if sv.rounding is None and not sv.float32:
        return []
    out = []
    for k, mode in _models():
        alt = (merged[0], replace(sv, rounding=k, rounding_mode=mode, float32=False))
        if alt != merged:
            out.append((f"precision-loss ({describe(alt[1])})", alt, sv.rounding is not None))
    if not sv.float32:
        out.append(("float32-arithmetic", (merged[0], replace(sv, rounding=None, rounding_mode=None, float32=True)),
                    False))
    return out


def _universe() -> list:
    """Small inputs over "ab" (a side of one to four characters): their scores are fractions
    with small denominators, halves at some decimal among them."""
    from itertools import product

    texts = ["".join(t) for n in range(1, 5) for t in product("ab", repeat=n)]
    return [[(h, [r])] for h in texts for r in texts]


_TIES: dict = {}


def ties(params, level: str, model: tuple, scale: int, exact) -> list:
    """Inputs on which ``model``'s exact score (``exact(segments)``, before its output stage)
    is a tie at some decimal on the implementation's scale -- x.5, x.25, x.125 ... -- where
    rounding half to even, half up and toward zero part: one per decimal, at most 9.  (The
    ties of the definition are not the ties of a model with another score stage.)"""
    key = (params, level, model[0], replace(model[1], rounding=None, rounding_mode=None, float32=False), scale)
    if key not in _TIES:
        out, seen = [], set()
        for segs in _universe():
            if level == "corpus":
                segs = [segs[0]]
            value = exact(segs)
            if value is None or not 0 < value < 100:
                continue
            for k in range(0, 9):
                if k not in seen and (value * scale / 100 * 10 ** k).denominator == 2:
                    seen.add(k)
                    out.append(segs)
                    break
        _TIES[key] = out
    return _TIES[key]
