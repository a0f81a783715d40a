r"""Planted bug, family ``wrong-ngram-orders`` (sentence level): character orders 1..5 are used instead of 1..6.

Trigger: hyp 'abcdef', refs ['abcdeg'] -> 71.0 (expected 59.17).
Everything else is the correct float chrF of ``base.py``.
"""

from .base import Chrf, claims

FAMILY = "wrong-ngram-orders"
LEVEL = "sentence"
CLAIMS = claims()

_IMPL = Chrf(char_orders=(1, 2, 3, 4, 5))


def sentence(hypothesis: str, references: list[str]) -> float:
    return _IMPL.sentence(hypothesis, references)


def corpus(hypotheses: list[str], references: list[list[str]]) -> float:
    return _IMPL.corpus(hypotheses, references)
