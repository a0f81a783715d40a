r"""Planted bug, family ``corpus-macro-average`` (corpus level): the corpus score is the mean of the sentence scores.

Trigger: hyps ['a', 'ab'], refs [['a'], ['ac']] -> 62.5 (expected 33.33).
Everything else is the correct float chrF of ``base.py``.
"""

from .base import Chrf, claims

FAMILY = "corpus-macro-average"
LEVEL = "corpus"
CLAIMS = claims()

_IMPL = Chrf(corpus_mode='macro')


def sentence(hypothesis: str, references: list[str]) -> float:
    return _IMPL.sentence(hypothesis, references)


def corpus(hypotheses: list[str], references: list[list[str]]) -> float:
    return _IMPL.corpus(hypotheses, references)
