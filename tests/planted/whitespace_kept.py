r"""Planted bug, family ``whitespace-kept`` (sentence level): whitespace is scored as characters although the claims remove it.

Trigger: hyp 'a b', refs ['ab'] -> 45.45 (expected 100).
Everything else is the correct float chrF of ``base.py``.
"""

from .base import Chrf, claims

FAMILY = "whitespace-kept"
LEVEL = "sentence"
CLAIMS = claims()

_IMPL = Chrf(ws_removed='none')


def sentence(hypothesis: str, references: list[str]) -> float:
    return _IMPL.sentence(hypothesis, references)


def corpus(hypotheses: list[str], references: list[list[str]]) -> float:
    return _IMPL.corpus(hypotheses, references)
