r"""Planted bug, family ``word-punctuation-not-split`` (sentence level): chrF++: word tokens keep their ASCII punctuation attached.

Trigger: hyp 'a.', refs ['a .'] -> 66.67 (expected 100).
Everything else is the correct float chrF of ``base.py``.
"""

from .base import Chrf, claims

FAMILY = "word-punctuation-not-split"
LEVEL = "sentence"
CLAIMS = claims(word_order=2)

_IMPL = Chrf(word_order=2, word_split='none')


def sentence(hypothesis: str, references: list[str]) -> float:
    return _IMPL.sentence(hypothesis, references)


def corpus(hypotheses: list[str], references: list[list[str]]) -> float:
    return _IMPL.corpus(hypotheses, references)
