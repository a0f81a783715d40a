r"""Planted bug, family ``precision-loss`` (sentence level): the score is rounded to 2 decimals.

Trigger: hyp 'ab', refs ['a'] -> 83.33 (expected 83.333...).
Everything else is the correct float chrF of ``base.py``.
"""

from .base import Chrf, claims

FAMILY = "precision-loss"
LEVEL = "sentence"
CLAIMS = claims()

_IMPL = Chrf(round_digits=2)


def sentence(hypothesis: str, references: list[str]) -> float:
    return _IMPL.sentence(hypothesis, references)


def corpus(hypotheses: list[str], references: list[list[str]]) -> float:
    return _IMPL.corpus(hypotheses, references)
