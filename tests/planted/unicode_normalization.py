r"""Planted bug, family ``unicode-normalization`` (sentence level): both sides are NFC-normalized first.

Trigger: hyp 'e\u0301', refs ['\u00e9'] -> 100 (expected 0).
Everything else is the correct float chrF of ``base.py``.
"""

from .base import Chrf, claims

FAMILY = "unicode-normalization"
LEVEL = "sentence"
CLAIMS = claims()

_IMPL = Chrf(normalize='NFC')


def sentence(hypothesis: str, references: list[str]) -> float:
    return _IMPL.sentence(hypothesis, references)


def corpus(hypotheses: list[str], references: list[list[str]]) -> float:
    return _IMPL.corpus(hypotheses, references)
