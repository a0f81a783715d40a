r"""Planted bug, family ``whitespace-set-ascii`` (sentence level): only ASCII whitespace ' \t\n\r\x0b\x0c' is removed.

Trigger: hyp 'a\x1cb', refs ['ab'] -> 45.45 (expected 100); also U+00A0.
Everything else is the correct float chrF of ``base.py``.
"""

from .base import Chrf, claims

FAMILY = "whitespace-set-ascii"
LEVEL = "sentence"
CLAIMS = claims()

_IMPL = Chrf(ws_removed='ascii')


def sentence(hypothesis: str, references: list[str]) -> float:
    return _IMPL.sentence(hypothesis, references)


def corpus(hypotheses: list[str], references: list[list[str]]) -> float:
    return _IMPL.corpus(hypotheses, references)
