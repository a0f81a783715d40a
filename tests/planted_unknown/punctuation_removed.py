"""Out-of-catalogue planted bug: ASCII punctuation is removed before counting"""

from tests.planted.base import claims

from ._impls import PunctuationRemoved

BUG = "ASCII punctuation is removed before counting"
LEVEL = "sentence"
CLAIMS = claims()
TRUTHFUL: set = set()

_IMPL = PunctuationRemoved()


def sentence(hypothesis: str, references: list[str]) -> float:
    return _IMPL.sentence(hypothesis, references)


def corpus(hypotheses: list[str], references: list[list[str]]) -> float:
    return _IMPL.corpus(hypotheses, references)
