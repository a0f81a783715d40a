r"""Planted bug, family ``format-characters-deleted`` (sentence level): a normalizer deletes U+FEFF before counting.

Trigger: hyp 'a\ufeff', refs ['a'] -> 100 (expected 45.45)
Everything else is the correct float chrF of ``base.py``.
"""

from .base import Chrf, claims

FAMILY = "format-characters-deleted"
LEVEL = "sentence"
CLAIMS = claims()

_IMPL = Chrf(deleted=frozenset('\ufeff'))


def sentence(hypothesis: str, references: list[str]) -> float:
    return _IMPL.sentence(hypothesis, references)


def corpus(hypotheses: list[str], references: list[list[str]]) -> float:
    return _IMPL.corpus(hypotheses, references)
