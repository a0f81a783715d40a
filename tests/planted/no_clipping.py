r"""Planted bug, family ``no-clipping`` (sentence level): matches are not clipped: each hypothesis n-gram occurrence found in the reference counts (recall can exceed 1, so the score can exceed 100).

Trigger: hyp 'aa', refs ['a'] -> 166.67 (expected 83.33; out of range too); in range: hyp 'aa', refs ['ab'] -> 50 (expected 25).
Everything else is the correct float chrF of ``base.py``.
"""

from .base import Chrf, claims

FAMILY = "no-clipping"
LEVEL = "sentence"
CLAIMS = claims()

_IMPL = Chrf(clip=False)


def sentence(hypothesis: str, references: list[str]) -> float:
    return _IMPL.sentence(hypothesis, references)


def corpus(hypotheses: list[str], references: list[list[str]]) -> float:
    return _IMPL.corpus(hypotheses, references)
