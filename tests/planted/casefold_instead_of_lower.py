r"""Planted bug, family ``casefold-instead-of-lower`` (sentence level): claims lowercase=True but uses str.casefold().

Trigger: hyp 'ß', refs ['ss'] -> 100 (expected 0).
Everything else is the correct float chrF of ``base.py``.
"""

from .base import Chrf, claims

FAMILY = "casefold-instead-of-lower"
LEVEL = "sentence"
CLAIMS = claims(lowercase=True)

_IMPL = Chrf(lowercase=True, case='casefold')


def sentence(hypothesis: str, references: list[str]) -> float:
    return _IMPL.sentence(hypothesis, references)


def corpus(hypotheses: list[str], references: list[list[str]]) -> float:
    return _IMPL.corpus(hypotheses, references)
