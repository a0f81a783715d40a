r"""Planted bug, family ``hypothesis-ngrams-where-reference-has-none`` (corpus level): hypothesis n-grams of orders the reference lacks are counted; invisible at sentence level under the sacrebleu definition (such orders are not effective), visible in the corpus sums.

Trigger: hyps ['ab', 'ab'], refs [['ab'], ['a']] -> 89.29 (expected 97.22).
Everything else is the correct float chrF of ``base.py``.
"""

from .base import Chrf, claims

FAMILY = "hypothesis-ngrams-where-reference-has-none"
LEVEL = "corpus"
CLAIMS = claims()

_IMPL = Chrf(zero_hyp_where_ref_none=False)


def sentence(hypothesis: str, references: list[str]) -> float:
    return _IMPL.sentence(hypothesis, references)


def corpus(hypotheses: list[str], references: list[list[str]]) -> float:
    return _IMPL.corpus(hypotheses, references)
