r"""Planted bug, family ``precision-recall-pooled`` (sentence level): one precision and one recall over the n-grams of all orders.

Trigger: hyp 'ab', refs ['a'] -> 83.33 pooled (P = 1/3 over 3 n-grams) vs 83.33...
Everything else is the correct float chrF of ``base.py``.
"""

from .base import Chrf, claims

FAMILY = "precision-recall-pooled"
LEVEL = "sentence"
CLAIMS = claims()

_IMPL = Chrf(combine='pooled')


def sentence(hypothesis: str, references: list[str]) -> float:
    return _IMPL.sentence(hypothesis, references)


def corpus(hypotheses: list[str], references: list[list[str]]) -> float:
    return _IMPL.corpus(hypotheses, references)
