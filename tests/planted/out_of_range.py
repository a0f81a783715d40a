"""Planted bug, family ``out-of-range``: a perfect score comes out as 100.5 (an off-by-a-bit
"bonus"); every other score is correct.

Trigger: hyp 'a', refs ['a'] -> 100.5 (expected 100).
"""

from .base import CHRF, claims

FAMILY = "out-of-range"
LEVEL = "sentence"
CLAIMS = claims()


def _bump(score: float) -> float:
    return 100.5 if score >= 100.0 - 1e-9 else score


def sentence(hypothesis: str, references: list[str]) -> float:
    return _bump(CHRF.sentence(hypothesis, references))


def corpus(hypotheses: list[str], references: list[list[str]]) -> float:
    return _bump(CHRF.corpus(hypotheses, references))
