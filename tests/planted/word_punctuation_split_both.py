r"""Planted bug, family ``word-punctuation-split-both`` (sentence level): chrF++: a punctuation mark is split off both ends of a word.

Trigger: hyp '(ab)', refs ['( ab )'] -> 100 (expected 72.76).
Everything else is the correct float chrF of ``base.py``.
"""

from .base import Chrf, claims

FAMILY = "word-punctuation-split-both"
LEVEL = "sentence"
CLAIMS = claims(word_order=2)

_IMPL = Chrf(word_order=2, word_split='both')


def sentence(hypothesis: str, references: list[str]) -> float:
    return _IMPL.sentence(hypothesis, references)


def corpus(hypotheses: list[str], references: list[list[str]]) -> float:
    return _IMPL.corpus(hypotheses, references)
