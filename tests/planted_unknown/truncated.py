"""Out-of-catalogue planted bug: the score is truncated to 2 decimals instead of kept exact"""

from tests.planted.base import claims

from ._impls import Truncated

BUG = "the score is truncated to 2 decimals instead of kept exact"
LEVEL = "sentence"
CLAIMS = claims()
TRUTHFUL: set = set()

_IMPL = Truncated()


def sentence(hypothesis: str, references: list[str]) -> float:
    return _IMPL.sentence(hypothesis, references)


def corpus(hypotheses: list[str], references: list[list[str]]) -> float:
    return _IMPL.corpus(hypotheses, references)
