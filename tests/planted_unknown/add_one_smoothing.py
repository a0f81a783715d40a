"""Out-of-catalogue planted bug: add-one smoothing of precision and recall"""

from tests.planted.base import claims

from ._impls import AddOneSmoothing

BUG = "add-one smoothing of precision and recall"
LEVEL = "sentence"
CLAIMS = claims()
TRUTHFUL: set = set()

_IMPL = AddOneSmoothing()


def sentence(hypothesis: str, references: list[str]) -> float:
    return _IMPL.sentence(hypothesis, references)


def corpus(hypotheses: list[str], references: list[list[str]]) -> float:
    return _IMPL.corpus(hypotheses, references)
