"""The out-of-catalogue bugs, as subclasses of the planted base implementation."""

from __future__ import annotations

import math
from dataclasses import dataclass

from tests.planted.base import PUNCT, Chrf


@dataclass(frozen=True)
class DigitsRemoved(Chrf):
    def _prepare(self, text):
        return "".join(c for c in super()._prepare(text) if not c.isdigit())


@dataclass(frozen=True)
class PunctuationRemoved(Chrf):
    def _prepare(self, text):
        return "".join(c for c in super()._prepare(text) if c not in PUNCT)


@dataclass(frozen=True)
class AddOneSmoothing(Chrf):
    """P_n = (M + 1) / (H + 1), R_n = (M + 1) / (R + 1) over the effective orders."""

    def _score(self, stats, empty=False):
        eff = [(h, r, m) for h, r, m in stats if h > 0 and r > 0]
        if not eff:
            return 0.0
        p = sum((m + 1) / (h + 1) for h, r, m in eff) / len(eff)
        r = sum((m + 1) / (r + 1) for h, r, m in eff) / len(eff)
        return 100 * self._f(p, r)


@dataclass(frozen=True)
class PrecisionPlusOne(Chrf):
    """P_n = M / (H + 1)."""

    def _score(self, stats, empty=False):
        eff = [(h, r, m) for h, r, m in stats if h > 0 and r > 0]
        if not eff:
            return 0.0
        p = sum(m / (h + 1) for h, r, m in eff) / len(eff)
        r = sum(m / r for h, r, m in eff) / len(eff)
        return 100 * self._f(p, r) if p + r else 0.0


@dataclass(frozen=True)
class Capped(Chrf):
    def _out(self, score):
        return min(super()._out(score), 99.5)


@dataclass(frozen=True)
class Truncated(Chrf):
    def _out(self, score):
        return math.floor(score * 100) / 100


@dataclass(frozen=True)
class BigramsAcrossPunctuation(Chrf):
    """chrF++ word bigrams are built with punctuation tokens left out, so they span a
    sentence-final mark ("end . The" gives the bigram "end The")."""

    def _profile(self, text):
        counters = super()._profile(text)
        if self.word_order >= 2:
            from collections import Counter

            toks = [t for t in self._words(self._prepare(text)) if t not in PUNCT]
            counters[self.char_order + 1] = Counter(tuple(toks[i:i + 2]) for i in range(len(toks) - 1))
        return counters


@dataclass(frozen=True)
class ReferencesConcatenated(Chrf):
    def _segment(self, hypothesis, references):
        return super()._segment(hypothesis, [" ".join(references)])


@dataclass(frozen=True)
class LengthWeightedCorpus(Chrf):
    """The corpus score is the mean of sentence scores weighted by hypothesis length."""

    def corpus(self, hypotheses, references):
        w = [max(1, len(h)) for h in hypotheses]
        s = [self._segment(h, list(r))[1] for h, r in zip(hypotheses, references)]
        return sum(a * b for a, b in zip(w, s)) / sum(w)


@dataclass(frozen=True)
class DigitsRemovedAndCapped(DigitsRemoved, Capped):
    """Two unknown bugs at once: digits removed, and the score capped at 99.5."""
