r"""Planted bug, family ``requested-order-divisor`` (sentence level): P and R are averaged over all 6 requested orders instead of the effective ones.

Trigger: hyp 'a', refs ['a'] -> 16.67 (expected 100).
Everything else is the correct float chrF of ``base.py``.
"""

from .base import Chrf, claims

FAMILY = "requested-order-divisor"
LEVEL = "sentence"
CLAIMS = claims()

_IMPL = Chrf(divisor='requested')


def sentence(hypothesis: str, references: list[str]) -> float:
    return _IMPL.sentence(hypothesis, references)


def corpus(hypotheses: list[str], references: list[list[str]]) -> float:
    return _IMPL.corpus(hypotheses, references)
