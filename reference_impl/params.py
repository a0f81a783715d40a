"""Validated chrF parameters and the definitions ("dialects") the reference can follow.

The parameters are validated once, here, so that the hot scoring code never re-checks them
and every user mistake surfaces as one TypeError/ValueError with a message that names the
argument and what was expected.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from numbers import Rational

#: The definitions the reference can follow.  See README / docs for each one in full.
#:
#: ``sacrebleu``      sacreBLEU >= 2.0 default: P and R averaged over the *effective* orders.
#: ``sacrebleu-eps``  sacreBLEU ``eps_smoothing=True``: per-order F (1e-16 substitutes) averaged
#:                    over all requested orders.
#: ``chrfpp``         Popovic's chrF++.py as published (only U+0020 removed, ends stripped).
DEFINITIONS = ("sacrebleu", "sacrebleu-eps", "chrfpp")

#: The smoothing substitute of the eps definitions.  Upstream code uses the float ``1e-16``;
#: the reference uses the decimal 10**-16 it stands for.  Scores that involve it are exact
#: *given* this substitute: the substitute itself is a convention, not a derived quantity, so
#: an eps score can differ from a float implementation's by ~1e-30 (far below any tolerance).
EPSILON = Fraction(1, 10**16)


def _check_int(name: str, value, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an integer >= {minimum}, got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    return value


def _check_beta(beta) -> Fraction:
    if isinstance(beta, bool) or not isinstance(beta, (int, float, Rational)):
        raise TypeError(f"beta must be a positive number, got {beta!r}")
    if isinstance(beta, float) and not math.isfinite(beta):
        raise ValueError(f"beta must be a finite positive number, got {beta!r}")
    exact = Fraction(beta)
    if exact <= 0:
        raise ValueError(f"beta must be > 0, got {beta!r}")
    return exact


def _check_bool(name: str, value) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be True or False, got {value!r}")
    return value


@dataclass(frozen=True)
class ChrfParams:
    """Everything that determines a chrF score besides the texts.

    ``beta`` is held as an exact Fraction (a float beta is taken at its exact binary value,
    which is what a float implementation computes with).
    """

    char_order: int = 6
    word_order: int = 0
    beta: Fraction = Fraction(2)
    lowercase: bool = False
    whitespace: bool = False
    definition: str = "sacrebleu"

    @classmethod
    def make(
        cls,
        char_order=6,
        word_order=0,
        beta=2,
        lowercase=False,
        whitespace=False,
        definition="sacrebleu",
    ) -> "ChrfParams":
        if definition not in DEFINITIONS:
            raise ValueError(
                f"definition must be one of {', '.join(DEFINITIONS)}; got {definition!r}"
            )
        return cls(
            char_order=_check_int("char_order", char_order, 1),
            word_order=_check_int("word_order", word_order, 0),
            beta=_check_beta(beta),
            lowercase=_check_bool("lowercase", lowercase),
            whitespace=_check_bool("whitespace", whitespace),
            definition=definition,
        )

    def kwargs(self) -> dict:
        """The keyword arguments of ``sentence_score``/``corpus_score`` that give these
        parameters (one place that knows the field list)."""
        return {f: getattr(self, f) for f in ("char_order", "word_order", "beta", "lowercase", "whitespace",
                                              "definition")}

    @property
    def order(self) -> int:
        """Number of orders scored: char orders then word orders."""
        return self.char_order + self.word_order

    @property
    def beta_text(self) -> str:
        b = self.beta
        return str(b.numerator) if b.denominator == 1 else format(float(b), "g")

    def signature(self, nrefs: int | None) -> str:
        """sacreBLEU-style signature, extended with beta and the definition."""
        refs = "var" if nrefs is None else str(nrefs)
        from . import __version__

        return (
            f"nrefs:{refs}|case:{'lc' if self.lowercase else 'mixed'}"
            f"|eff:{'yes' if self.definition == 'sacrebleu' else 'no'}"
            f"|nc:{self.char_order}|nw:{self.word_order}"
            f"|space:{'yes' if self.whitespace else 'no'}"
            f"|beta:{self.beta_text}|def:{self.definition}"
            f"|version:chrf-audit-{__version__}"
        )
