"""Three bugs in one implementation, showing at different levels and on different inputs:

* ``whitespace-set-ascii-space``: only U+0020 is removed (any tab, NBSP, U+001C ... shows it);
* ``first-reference-only``: the first reference is used, not the best (sentence level, and the
  corpus through the chosen statistics; needs two references that score differently);
* ``corpus-macro-average``: the corpus score is the mean of the sentence scores (corpus level
  only: a sentence-level search can never see it).
"""

from tests.planted.base import Chrf, claims

FAMILIES = ("whitespace-set-ascii-space", "first-reference-only", "corpus-macro-average")
CLAIMS = claims()

_IMPL = Chrf(ws_removed="ascii-space", refs="first", corpus_mode="macro")


def sentence(hypothesis: str, references: list[str]) -> float:
    return _IMPL.sentence(hypothesis, references)


def corpus(hypotheses: list[str], references: list[list[str]]) -> float:
    return _IMPL.corpus(hypotheses, references)
