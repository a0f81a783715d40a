"""A chrF that turns on a cache once it is warm: after its first 40 calls, reference profiles are
memoised under the reference's *length* (a "fast path" added for long evaluation runs), so a
reference scored later with the length of an earlier one gets the earlier one's n-grams.  A
fresh process answers every input right on its first calls (issue 41, item 6: ``stateful``,
with both values, never a family)."""

from tests.planted.base import Chrf, claims

CLAIMS = claims()
_CHRF = Chrf()
_STATE = {"calls": 0, "by_length": {}}
WARM = 40


def _reference(ref: str) -> str:
    _STATE["calls"] += 1
    if _STATE["calls"] <= WARM:
        return ref
    return _STATE["by_length"].setdefault(len(ref), ref)


def sentence(hypothesis, references):
    return _CHRF.sentence(hypothesis, [_reference(r) for r in references])


def corpus(hypotheses, references):
    return _CHRF.corpus(hypotheses, [[_reference(r) for r in rs] for rs in references])
