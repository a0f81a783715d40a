"""The bug models with no deviation are the reference, exactly.

Two paths are held equal to ``reference_impl`` for every definition, both levels and one to
three references:

* the no-deviation path (``TextVariant()``, ``ScoreVariant()``), which reuses the
  reference's own statistics, reference selection and scoring functions;
* the models' generic arithmetic (``generic_score``), run with every field spelled out as
  the definition says (divisor, averaging) -- the code every deviation goes through, so a
  drift between it and the reference shows here and not as a misnamed finding.
"""

from __future__ import annotations

from fractions import Fraction

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from audit.diagnose.models import generic_score, predict
from audit.diagnose.text_model import text_stats
from audit.diagnose.variants import ScoreVariant, TextVariant
from audit.collect.strategies import corpus_inputs, sentence_inputs
from reference_impl import DEFINITIONS, ChrfParams, corpus_score, sentence_score

_PARAMS = st.builds(
    ChrfParams.make,
    char_order=st.integers(1, 6), word_order=st.integers(0, 2),
    beta=st.sampled_from([1, 2, 3, Fraction(1, 2)]), lowercase=st.booleans(), whitespace=st.booleans(),
    definition=st.sampled_from(DEFINITIONS),
)
_CLAIMED = (TextVariant(), ScoreVariant())


def _kw(p: ChrfParams) -> dict:
    return dict(char_order=p.char_order, word_order=p.word_order, beta=p.beta, lowercase=p.lowercase,
                whitespace=p.whitespace, definition=p.definition)


def _spelled_out(p: ChrfParams) -> ScoreVariant:
    """The definition's own choices, written as explicit variant fields (no deviation)."""
    if p.definition == "sacrebleu":
        return ScoreVariant(divisor="effective", average="pr", beta=p.beta)
    return ScoreVariant(divisor="requested", average="f", beta=p.beta)


def _generic(segments, p: ChrfParams, level: str) -> Fraction:
    """The generic arithmetic on the reference's chosen statistics (summed at corpus level)."""
    ref = (sentence_score(segments[0][0], segments[0][1], **_kw(p)) if level == "sentence"
           else corpus_score([h for h, _ in segments], [r for _, r in segments], **_kw(p)))
    total = ref.segment_stats[0]
    for s in ref.segment_stats[1:]:
        total = total + s
    return generic_score(total, p, _spelled_out(p), level)


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(p=_PARAMS, case=sentence_inputs(max_refs=3))
def test_sentence_no_deviation_is_the_reference(p, case):
    hyp, refs = case
    expected = sentence_score(hyp, list(refs), **_kw(p)).score
    segments = [(hyp, list(refs))]
    assert predict(segments, p, "sentence", _CLAIMED) == expected
    assert _generic(segments, p, "sentence") == expected


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(p=_PARAMS, case=corpus_inputs(max_refs=3))
def test_corpus_no_deviation_is_the_reference(p, case):
    hyps, refs = case
    expected = corpus_score(list(hyps), [list(r) for r in refs], **_kw(p)).score
    segments = list(zip(hyps, [list(r) for r in refs]))
    assert predict(segments, p, "corpus", _CLAIMED) == expected
    assert _generic(segments, p, "corpus") == expected


def test_epsilon_decides_the_best_reference():
    """sacrebleu-eps, char order 1, beta 1: segment 2 ("" against "a" or "") scores 0 against
    "a" and the epsilon against "", so "" is its best reference and the corpus sums to
    (1, 1, 1): 100.  A model that ignores the epsilon picks "a" and gives 66.67."""
    p = ChrfParams.make(char_order=1, beta=1, definition="sacrebleu-eps")
    segments = [("a", ["", "a", ""]), ("", ["a", "", "a"])]
    assert corpus_score(["a", ""], [["", "a", ""], ["a", "", "a"]], **_kw(p)).score == 100
    assert predict(segments, p, "corpus", _CLAIMED) == 100
    # the generic arithmetic, asked for the same thing in so many words, agrees
    spelled = ScoreVariant(divisor="requested", average="f")
    assert predict(segments, p, "corpus", (TextVariant(), spelled)) == 100


def test_a_deviation_changes_the_prediction():
    """The property above is not vacuous: each path does depend on the variant."""
    p = ChrfParams.make()
    segs = [("abc", ["abd"])]
    stats = text_stats(segs, p, TextVariant())[0][0]
    assert generic_score(stats, p, ScoreVariant(divisor="requested"), "sentence") != \
        predict(segs, p, "sentence", _CLAIMED)
    segs = [("abcdefgh", ["abcdefgx"])]
    assert predict(segs, p, "sentence", (TextVariant(orders="plus-one"), ScoreVariant())) != \
        predict(segs, p, "sentence", _CLAIMED)
