"""Planted bug, family ``nondeterminism``: a global call counter leaks into the result:
every odd-numbered call (per process) is off by 1e-3 (upwards below 50, downwards from 50,
so the score stays within [0, 100]); even-numbered calls are correct.

Trigger: any input, called twice in a row (e.g. hyp 'a', refs ['a'] -> 99.999, then 100).
"""

from .base import CHRF, claims

FAMILY = "nondeterminism"
LEVEL = "sentence"
CLAIMS = claims()

_calls = 0


def _jitter(score: float) -> float:
    global _calls
    _calls += 1
    if _calls % 2 == 0:
        return score
    return score + 1e-3 if score < 50 else score - 1e-3


def sentence(hypothesis: str, references: list[str]) -> float:
    return _jitter(CHRF.sentence(hypothesis, references))


def corpus(hypotheses: list[str], references: list[list[str]]) -> float:
    return _jitter(CHRF.corpus(hypotheses, references))
