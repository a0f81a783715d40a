"""Out-of-catalogue planted bug: chrF++ word bigrams skip punctuation tokens, so they span sentence-final marks"""

from tests.planted.base import claims

from ._impls import BigramsAcrossPunctuation

BUG = "chrF++ word bigrams skip punctuation tokens, so they span sentence-final marks"
LEVEL = "sentence"
CLAIMS = claims(word_order=2)
TRUTHFUL: set = set()

_IMPL = BigramsAcrossPunctuation(word_order=2)


def sentence(hypothesis: str, references: list[str]) -> float:
    return _IMPL.sentence(hypothesis, references)


def corpus(hypotheses: list[str], references: list[list[str]]) -> float:
    return _IMPL.corpus(hypotheses, references)
