"""Out-of-catalogue planted bug: digits are removed before counting"""

from tests.planted.base import claims

from ._impls import DigitsRemoved

BUG = "digits are removed before counting"
LEVEL = "sentence"
CLAIMS = claims()
TRUTHFUL: set = set()

_IMPL = DigitsRemoved()


def sentence(hypothesis: str, references: list[str]) -> float:
    return _IMPL.sentence(hypothesis, references)


def corpus(hypotheses: list[str], references: list[list[str]]) -> float:
    return _IMPL.corpus(hypotheses, references)
