"""Two out-of-catalogue bugs in one implementation: digits removed before counting, and the
score capped at 99.5.  They must stay two findings (the digit one needs digits, the cap needs
no character class)."""

from tests.planted.base import claims

from ._impls import DigitsRemovedAndCapped

BUG = "digits are removed before counting, and the score is capped at 99.5"
BUGS = 2
LEVEL = "sentence"
CLAIMS = claims()
TRUTHFUL: set = set()

_IMPL = DigitsRemovedAndCapped()


def sentence(hypothesis: str, references: list[str]) -> float:
    return _IMPL.sentence(hypothesis, references)


def corpus(hypotheses: list[str], references: list[list[str]]) -> float:
    return _IMPL.corpus(hypotheses, references)
