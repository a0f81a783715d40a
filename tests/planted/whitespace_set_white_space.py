r"""Planted bug, family ``whitespace-set-white-space`` (sentence level): Unicode White_Space is removed (isspace() minus U+001C..U+001F), as nltk >= 3.10.4 does.

Trigger: hyp 'a\x1cb', refs ['ab'] -> 45.45 (expected 100).
Everything else is the correct float chrF of ``base.py``.
"""

from .base import Chrf, claims

FAMILY = "whitespace-set-white-space"
LEVEL = "sentence"
CLAIMS = claims()

_IMPL = Chrf(ws_removed='white-space')


def sentence(hypothesis: str, references: list[str]) -> float:
    return _IMPL.sentence(hypothesis, references)


def corpus(hypotheses: list[str], references: list[list[str]]) -> float:
    return _IMPL.corpus(hypotheses, references)
