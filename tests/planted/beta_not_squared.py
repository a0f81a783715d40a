r"""Planted bug, family ``beta-not-squared`` (sentence level): F-beta uses beta (2) where beta squared (4) belongs.

Trigger: hyp 'ab', refs ['a'] -> 75.0 (expected 83.33).
Everything else is the correct float chrF of ``base.py``.
"""

from .base import Chrf, claims

FAMILY = "beta-not-squared"
LEVEL = "sentence"
CLAIMS = claims()

_IMPL = Chrf(beta_squared=False)


def sentence(hypothesis: str, references: list[str]) -> float:
    return _IMPL.sentence(hypothesis, references)


def corpus(hypotheses: list[str], references: list[list[str]]) -> float:
    return _IMPL.corpus(hypotheses, references)
