r"""Planted bug, family ``best-reference-sentinel-zero`` (corpus level): the best-reference search starts at 0, so a segment scoring 0 against every reference adds no statistics.

Trigger: hyps ['a', 'b'], refs [['a'], ['c']] -> 100 (expected 50)
Everything else is the correct float chrF of ``base.py``.
"""

from .base import Chrf, claims

FAMILY = "best-reference-sentinel-zero"
LEVEL = "corpus"
CLAIMS = claims()

_IMPL = Chrf(refs='sentinel')


def sentence(hypothesis: str, references: list[str]) -> float:
    return _IMPL.sentence(hypothesis, references)


def corpus(hypotheses: list[str], references: list[list[str]]) -> float:
    return _IMPL.corpus(hypotheses, references)
