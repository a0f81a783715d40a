"""Planted bug, family ``invalid-output``: returns None when the hypothesis is empty and
float('nan') when the hypothesis equals a reference (0/0 in a "fast path").

Trigger: hyp '', refs [''] -> None; hyp 'a', refs ['a'] -> nan.
"""

from .base import CHRF, claims

FAMILY = "invalid-output"
LEVEL = "sentence"
CLAIMS = claims()


def sentence(hypothesis: str, references: list[str]):
    if not hypothesis:
        return None
    if hypothesis in references:
        return float("nan")
    return CHRF.sentence(hypothesis, references)


def corpus(hypotheses: list[str], references: list[list[str]]):
    if not all(hypotheses):
        return None
    if any(h in r for h, r in zip(hypotheses, references)):
        return float("nan")
    return CHRF.corpus(hypotheses, references)
