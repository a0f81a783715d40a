r"""Planted bug, family ``wrong-beta`` (sentence level): beta 3 where the claims say 2.

Trigger: hyp 'ab', refs ['a'] -> 83.33 at beta 2, 90.91 at beta 3
Everything else is the correct float chrF of ``base.py``.
"""

from .base import Chrf, claims

FAMILY = "wrong-beta"
LEVEL = "sentence"
CLAIMS = claims()

_IMPL = Chrf(beta=3.0)


def sentence(hypothesis: str, references: list[str]) -> float:
    return _IMPL.sentence(hypothesis, references)


def corpus(hypotheses: list[str], references: list[list[str]]) -> float:
    return _IMPL.corpus(hypotheses, references)
