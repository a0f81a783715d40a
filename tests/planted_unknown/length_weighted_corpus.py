"""Out-of-catalogue planted bug: the corpus score is the mean of sentence scores weighted by hypothesis length"""

from tests.planted.base import claims

from ._impls import LengthWeightedCorpus

BUG = "the corpus score is the mean of sentence scores weighted by hypothesis length"
LEVEL = "corpus"
CLAIMS = claims()
TRUTHFUL = {"corpus-length-weighted-mean"}  # catalogued since issue 30

_IMPL = LengthWeightedCorpus()


def sentence(hypothesis: str, references: list[str]) -> float:
    return _IMPL.sentence(hypothesis, references)


def corpus(hypotheses: list[str], references: list[list[str]]) -> float:
    return _IMPL.corpus(hypotheses, references)
