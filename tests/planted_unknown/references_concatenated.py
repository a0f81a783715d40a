"""Planted bug that was out of the catalogue until the catalogue learned reference layouts:
the references are concatenated into one (``references-joined`` is its true name now)."""

from tests.planted.base import claims

from ._impls import ReferencesConcatenated

BUG = "the references are concatenated into one"
LEVEL = "sentence"
CLAIMS = claims()
TRUTHFUL = {"references-joined"}

_IMPL = ReferencesConcatenated()


def sentence(hypothesis: str, references: list[str]) -> float:
    return _IMPL.sentence(hypothesis, references)


def corpus(hypotheses: list[str], references: list[list[str]]) -> float:
    return _IMPL.corpus(hypotheses, references)
