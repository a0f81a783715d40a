"""The result of a reference computation: exact score plus everything needed to explain it."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Optional

from .params import ChrfParams
from .scoring import score_from_stats
from .stats import SegmentStats, sum_stats


@dataclass(frozen=True)
class OrderStats:
    """One order's counts and exact ratios (None where a ratio has a zero denominator)."""

    kind: str  # "char" or "word"
    n: int
    hyp: int
    ref: int
    match: int

    @property
    def effective(self) -> bool:
        return self.hyp > 0 and self.ref > 0

    @property
    def precision(self) -> Optional[Fraction]:
        return Fraction(self.match, self.hyp) if self.hyp else None

    @property
    def recall(self) -> Optional[Fraction]:
        return Fraction(self.match, self.ref) if self.ref else None

    def f(self, beta: Fraction) -> Optional[Fraction]:
        """Per-order F-beta; None when P or R is undefined, 0 when there is no match."""
        if not (self.hyp and self.ref):
            return None
        if not self.match:
            return Fraction(0)
        b2 = beta * beta
        return (1 + b2) * self.match / (b2 * self.ref + self.hyp)


class ChrfResult:
    """Exact chrF result.  The score is computed on first access (and cached), so scoring
    many segments pays only for counting; the exact Fraction is always available."""

    __slots__ = ("params", "level", "segment_stats", "chosen_references", "_nrefs", "_score", "_stats")

    def __init__(self, params, level, segment_stats, chosen_references, nrefs):
        self.params: ChrfParams = params
        self.level: str = level
        self.segment_stats: tuple[SegmentStats, ...] = segment_stats
        self.chosen_references: tuple[int, ...] = chosen_references
        self._nrefs = nrefs
        self._score = None
        self._stats = None

    @property
    def stats(self) -> SegmentStats:
        """Summed statistics (a sentence's own statistics at sentence level)."""
        if self._stats is None:
            if len(self.segment_stats) == 1:
                self._stats = self.segment_stats[0]
            else:
                self._stats = sum_stats(self.segment_stats, self.params.order)
        return self._stats

    @property
    def score(self) -> Fraction:
        """Exact score on the 0..100 scale."""
        if self._score is None:
            self._score = score_from_stats(self.stats, self.params, self.level)
        return self._score

    @property
    def score_float(self) -> float:
        """The exact score correctly rounded to the nearest float."""
        s = self.score
        return s.numerator / s.denominator

    def __float__(self) -> float:
        return self.score_float

    @property
    def chosen_reference(self) -> int:
        """Index of the reference used (sentence level)."""
        return self.chosen_references[0]

    @property
    def orders(self) -> tuple[OrderStats, ...]:
        s = self.stats
        nc = self.params.char_order
        return tuple(
            OrderStats("char" if i < nc else "word", i + 1 if i < nc else i - nc + 1,
                       s.hyp[i], s.ref[i], s.match[i])
            for i in range(self.params.order)
        )

    @property
    def signature(self) -> str:
        return self.params.signature(self._nrefs)

    @property
    def name(self) -> str:
        return f"chrF{self.params.beta_text}" + "+" * self.params.word_order

    def __repr__(self) -> str:
        return f"ChrfResult({self.name} = {self.score_float:.6f} [{self.score}], {self.signature})"
