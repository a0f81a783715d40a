"""Planted bug, family ``timeout``: hangs (time.sleep(600)) when the hypothesis is empty.

Trigger: hyp '', refs [''] (any empty hypothesis).
"""

import time

from .base import CHRF, claims

FAMILY = "timeout"
LEVEL = "sentence"
CLAIMS = claims()


def sentence(hypothesis: str, references: list[str]) -> float:
    if not hypothesis:
        time.sleep(600)
    return CHRF.sentence(hypothesis, references)


def corpus(hypotheses: list[str], references: list[list[str]]) -> float:
    if not all(hypotheses):
        time.sleep(600)
    return CHRF.corpus(hypotheses, references)
