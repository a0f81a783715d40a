r"""Planted bug, family ``utf8-bytes`` (sentence level): n-grams over UTF-8 bytes.

Trigger: hyp '\u00e9', refs ['\u00e8'] -> 25.0 (expected 0).
Everything else is the correct float chrF of ``base.py``.
"""

from .base import Chrf, claims

FAMILY = "utf8-bytes"
LEVEL = "sentence"
CLAIMS = claims()

_IMPL = Chrf(units='utf8')


def sentence(hypothesis: str, references: list[str]) -> float:
    return _IMPL.sentence(hypothesis, references)


def corpus(hypotheses: list[str], references: list[list[str]]) -> float:
    return _IMPL.corpus(hypotheses, references)
