r"""Planted bug, family ``precision-recall-swapped`` (sentence level): beta weights precision instead of recall.

Trigger: hyp 'ab', refs ['a'] -> 55.56 (expected 83.33).
Everything else is the correct float chrF of ``base.py``.
"""

from .base import Chrf, claims

FAMILY = "precision-recall-swapped"
LEVEL = "sentence"
CLAIMS = claims()

_IMPL = Chrf(swap_pr=True)


def sentence(hypothesis: str, references: list[str]) -> float:
    return _IMPL.sentence(hypothesis, references)


def corpus(hypotheses: list[str], references: list[list[str]]) -> float:
    return _IMPL.corpus(hypotheses, references)
