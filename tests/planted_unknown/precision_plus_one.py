"""Out-of-catalogue planted bug: precision is matches / (hypothesis n-grams + 1)"""

from tests.planted.base import claims

from ._impls import PrecisionPlusOne

BUG = "precision is matches / (hypothesis n-grams + 1)"
LEVEL = "sentence"
CLAIMS = claims()
TRUTHFUL: set = set()

_IMPL = PrecisionPlusOne()


def sentence(hypothesis: str, references: list[str]) -> float:
    return _IMPL.sentence(hypothesis, references)


def corpus(hypotheses: list[str], references: list[list[str]]) -> float:
    return _IMPL.corpus(hypotheses, references)
