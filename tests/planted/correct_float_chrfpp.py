"""Correct chrF++ (sacrebleu definition, beta 2, char_order 6, word_order 2) in float
arithmetic: base.py with no deviation.  Must produce no finding."""

from .base import CHRF_PP, claims

FAMILY = None
LEVEL = "sentence"
CLAIMS = claims(word_order=2)


def sentence(hypothesis: str, references: list[str]) -> float:
    return CHRF_PP.sentence(hypothesis, references)


def corpus(hypotheses: list[str], references: list[list[str]]) -> float:
    return CHRF_PP.corpus(hypotheses, references)
