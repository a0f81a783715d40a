"""Out-of-catalogue planted bug: the score is truncated to 2 decimals instead of kept exact"""

from tests.planted.base import claims

from ._impls import Truncated

BUG = "the score is truncated to 2 decimals instead of kept exact"
LEVEL = "sentence"
CLAIMS = claims()
#: truncation toward zero is a rounding mode of precision-loss since issue 41 (its evidence says
#: "truncated to 2 decimals"); a score exactly on a 2-decimal boundary (87.5) is truncated from
#: the implementation's binary value (87.49999...), a side the exact model cannot know: those
#: inputs stay an honest ``unexplained`` row (BOUNDARY: the decimals), never another name
TRUTHFUL: set = {"precision-loss"}
BOUNDARY = 2

_IMPL = Truncated()


def sentence(hypothesis: str, references: list[str]) -> float:
    return _IMPL.sentence(hypothesis, references)


def corpus(hypotheses: list[str], references: list[list[str]]) -> float:
    return _IMPL.corpus(hypotheses, references)
