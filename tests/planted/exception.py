"""Planted bug, family ``exception``: raises ValueError on an empty hypothesis or one that
contains a decimal digit (a "validation" that rejects valid input).

Trigger: hyp '', refs [''] (or hyp '1', refs ['a']).
"""

from .base import CHRF, claims

FAMILY = "exception"
LEVEL = "sentence"
CLAIMS = claims()


def _check(hypothesis: str) -> None:
    if not hypothesis or any(c.isdigit() for c in hypothesis):
        raise ValueError(f"unsupported hypothesis: {hypothesis!r}")


def sentence(hypothesis: str, references: list[str]) -> float:
    _check(hypothesis)
    return CHRF.sentence(hypothesis, references)


def corpus(hypotheses: list[str], references: list[list[str]]) -> float:
    for h in hypotheses:
        _check(h)
    return CHRF.corpus(hypotheses, references)
