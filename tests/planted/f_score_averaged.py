r"""Planted bug, family ``f-score-averaged`` (sentence level): the per-order F-betas are averaged (over effective orders) instead of P and R.

Trigger: hyp 'abc', refs ['ab'] -> 87.12 (expected 87.5).
Everything else is the correct float chrF of ``base.py``.
"""

from .base import Chrf, claims

FAMILY = "f-score-averaged"
LEVEL = "sentence"
CLAIMS = claims()

_IMPL = Chrf(combine='f-mean')


def sentence(hypothesis: str, references: list[str]) -> float:
    return _IMPL.sentence(hypothesis, references)


def corpus(hypotheses: list[str], references: list[list[str]]) -> float:
    return _IMPL.corpus(hypotheses, references)
