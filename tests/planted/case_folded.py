r"""Planted bug, family ``case-folded`` (sentence level): text is lowercased although the claims are case-sensitive.

Trigger: hyp 'A', refs ['a'] -> 100 (expected 0).
Everything else is the correct float chrF of ``base.py``.
"""

from .base import Chrf, claims

FAMILY = "case-folded"
LEVEL = "sentence"
CLAIMS = claims()

_IMPL = Chrf(case='lower-always')


def sentence(hypothesis: str, references: list[str]) -> float:
    return _IMPL.sentence(hypothesis, references)


def corpus(hypotheses: list[str], references: list[list[str]]) -> float:
    return _IMPL.corpus(hypotheses, references)
