"""Out-of-catalogue planted bug: the score is capped at 99.5"""

from tests.planted.base import claims

from ._impls import Capped

BUG = "the score is capped at 99.5"
LEVEL = "sentence"
CLAIMS = claims()
TRUTHFUL: set = set()

_IMPL = Capped()


def sentence(hypothesis: str, references: list[str]) -> float:
    return _IMPL.sentence(hypothesis, references)


def corpus(hypotheses: list[str], references: list[list[str]]) -> float:
    return _IMPL.corpus(hypotheses, references)
