"""Planted bug, family ``crash``: the process dies (os._exit(1), as a segfaulting native
extension would) when the hypothesis is empty or contains "x".

Trigger: hyp '', refs [''] (or hyp 'x', refs ['a']).
"""

import os

from .base import CHRF, claims

FAMILY = "crash"
LEVEL = "sentence"
CLAIMS = claims()


def _check(hypothesis: str) -> None:
    if not hypothesis or "x" in hypothesis:
        os._exit(1)


def sentence(hypothesis: str, references: list[str]) -> float:
    _check(hypothesis)
    return CHRF.sentence(hypothesis, references)


def corpus(hypotheses: list[str], references: list[list[str]]) -> float:
    for h in hypotheses:
        _check(h)
    return CHRF.corpus(hypotheses, references)
