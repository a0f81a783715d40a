"""Correct chrF that hangs (sleeps 600 s) on any text holding NUL (U+0000), as C code that
looks for the terminator in the wrong place might."""

import time

from tests.planted.base import CHRF, claims

CLAIMS = claims()


def _check(texts):
    if any("\x00" in t for t in texts):
        time.sleep(600)


def sentence(hypothesis: str, references: list[str]) -> float:
    _check([hypothesis, *references])
    return CHRF.sentence(hypothesis, references)


def corpus(hypotheses: list[str], references: list[list[str]]) -> float:
    _check([*hypotheses, *(r for rs in references for r in rs)])
    return CHRF.corpus(hypotheses, references)
