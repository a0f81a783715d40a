"""Correct chrF (sacrebleu definition, beta 2, char_order 6, word_order 0) in float
arithmetic: base.py with no deviation.  Must produce no finding."""

from .base import CHRF, claims

FAMILY = None
LEVEL = "sentence"
CLAIMS = claims()


def sentence(hypothesis: str, references: list[str]) -> float:
    return CHRF.sentence(hypothesis, references)


def corpus(hypotheses: list[str], references: list[list[str]]) -> float:
    return CHRF.corpus(hypotheses, references)
