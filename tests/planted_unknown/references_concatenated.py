"""Out-of-catalogue planted bug: the references are concatenated into one"""

from tests.planted.base import claims

from ._impls import ReferencesConcatenated

BUG = "the references are concatenated into one"
LEVEL = "sentence"
CLAIMS = claims()
TRUTHFUL: set = set()

_IMPL = ReferencesConcatenated()


def sentence(hypothesis: str, references: list[str]) -> float:
    return _IMPL.sentence(hypothesis, references)


def corpus(hypotheses: list[str], references: list[list[str]]) -> float:
    return _IMPL.corpus(hypotheses, references)
