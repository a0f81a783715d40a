r"""Planted bug, family ``float32-arithmetic`` (sentence level): precision, recall and F in float32 arithmetic throughout.

Trigger: hyp 'abc', refs ['abd'] (any non-round score)
Everything else is the correct float chrF of ``base.py``.
"""

from .base import Chrf, claims

FAMILY = "float32-arithmetic"
LEVEL = "sentence"
CLAIMS = claims()

_IMPL = Chrf(float32=True)


def sentence(hypothesis: str, references: list[str]) -> float:
    return _IMPL.sentence(hypothesis, references)


def corpus(hypotheses: list[str], references: list[list[str]]) -> float:
    return _IMPL.corpus(hypotheses, references)
