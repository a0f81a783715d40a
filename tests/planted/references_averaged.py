r"""Planted bug, family ``references-averaged`` (sentence level): the scores against the references are averaged.

Trigger: hyp 'a', refs ['b', 'a'] -> 50 (expected 100).
Everything else is the correct float chrF of ``base.py``.
"""

from .base import Chrf, claims

FAMILY = "references-averaged"
LEVEL = "sentence"
CLAIMS = claims()

_IMPL = Chrf(refs='mean')


def sentence(hypothesis: str, references: list[str]) -> float:
    return _IMPL.sentence(hypothesis, references)
