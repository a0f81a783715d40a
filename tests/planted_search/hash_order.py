"""A chrF whose answer depends on PYTHONHASHSEED: it drops duplicate references with
``set(references)`` and then scores the first of what the set yields (meant as "the
reference"), so which reference of several is scored depends on the order of a set of strings
-- on hash randomization.  In one process every call agrees with every other; two processes
started with different hash seeds do not (issue 41, item 6: ``nondeterminism`` with both
values, never a family)."""

from tests.planted.base import Chrf, claims

CLAIMS = claims()
_CHRF = Chrf()


def sentence(hypothesis, references):
    return _CHRF.sentence(hypothesis, list(set(references))[:1])


def corpus(hypotheses, references):
    return _CHRF.corpus(hypotheses, [list(set(r))[:1] for r in references])
