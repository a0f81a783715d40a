r"""Planted bug, family ``whitespace-stripped-ends-only`` (sentence level): only the ends of the text are stripped; inner whitespace is scored.

Trigger: hyp 'a b', refs ['ab'] -> 45.45 (expected 100)
Everything else is the correct float chrF of ``base.py``.
"""

from .base import Chrf, claims

FAMILY = "whitespace-stripped-ends-only"
LEVEL = "sentence"
CLAIMS = claims()

_IMPL = Chrf(ws_removed='strip')


def sentence(hypothesis: str, references: list[str]) -> float:
    return _IMPL.sentence(hypothesis, references)


def corpus(hypotheses: list[str], references: list[list[str]]) -> float:
    return _IMPL.corpus(hypotheses, references)
