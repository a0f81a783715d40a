"""Correct chrF, except that it encodes its texts as UTF-8 first (as a Rust- or C-backed
implementation does at its boundary): a lone surrogate raises UnicodeEncodeError.  No other
input shows anything."""

from tests.planted.base import CHRF, claims

CLAIMS = claims()


def _check(texts):
    for t in texts:
        t.encode("utf-8")


def sentence(hypothesis: str, references: list[str]) -> float:
    _check([hypothesis, *references])
    return CHRF.sentence(hypothesis, references)


def corpus(hypotheses: list[str], references: list[list[str]]) -> float:
    _check([*hypotheses, *(r for rs in references for r in rs)])
    return CHRF.corpus(hypotheses, references)
