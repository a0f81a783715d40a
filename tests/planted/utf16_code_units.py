r"""Planted bug, family ``utf16-code-units`` (sentence level): n-grams over UTF-16 code units (non-BMP characters are two units).

Trigger: hyp '\U0001F600', refs ['\U0001F601'] -> 25.0 (expected 0).
Everything else is the correct float chrF of ``base.py``.
"""

from .base import Chrf, claims

FAMILY = "utf16-code-units"
LEVEL = "sentence"
CLAIMS = claims()

_IMPL = Chrf(units='utf16')


def sentence(hypothesis: str, references: list[str]) -> float:
    return _IMPL.sentence(hypothesis, references)


def corpus(hypotheses: list[str], references: list[list[str]]) -> float:
    return _IMPL.corpus(hypotheses, references)
