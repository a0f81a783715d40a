r"""Planted bug, family ``empty-input-perfect`` (sentence level): no n-grams on either side scores 100 instead of 0.

Trigger: hyp '', refs [''] -> 100 (expected 0).
Everything else is the correct float chrF of ``base.py``.
"""

from .base import Chrf, claims

FAMILY = "empty-input-perfect"
LEVEL = "sentence"
CLAIMS = claims()

_IMPL = Chrf(empty_score=100.0)


def sentence(hypothesis: str, references: list[str]) -> float:
    return _IMPL.sentence(hypothesis, references)


def corpus(hypotheses: list[str], references: list[list[str]]) -> float:
    return _IMPL.corpus(hypotheses, references)
