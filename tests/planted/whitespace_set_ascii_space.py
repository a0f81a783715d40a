r"""Planted bug, family ``whitespace-set-ascii-space`` (sentence level): only U+0020 is removed; tabs, newlines and Unicode whitespace are scored as characters.

Trigger: hyp 'a\tb', refs ['ab'] -> 45.45 (expected 100).
Everything else is the correct float chrF of ``base.py``.
"""

from .base import Chrf, claims

FAMILY = "whitespace-set-ascii-space"
LEVEL = "sentence"
CLAIMS = claims()

_IMPL = Chrf(ws_removed='ascii-space')


def sentence(hypothesis: str, references: list[str]) -> float:
    return _IMPL.sentence(hypothesis, references)


def corpus(hypotheses: list[str], references: list[list[str]]) -> float:
    return _IMPL.corpus(hypotheses, references)
