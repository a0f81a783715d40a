r"""Planted bug, family ``first-reference-only`` (sentence level): only the first reference is used.

Trigger: hyp 'a', refs ['b', 'a'] -> 0 (expected 100).
Everything else is the correct float chrF of ``base.py``.
"""

from .base import Chrf, claims

FAMILY = "first-reference-only"
LEVEL = "sentence"
CLAIMS = claims()

_IMPL = Chrf(refs='first')


def sentence(hypothesis: str, references: list[str]) -> float:
    return _IMPL.sentence(hypothesis, references)


def corpus(hypotheses: list[str], references: list[list[str]]) -> float:
    return _IMPL.corpus(hypotheses, references)
