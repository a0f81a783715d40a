"""Rules of ``audit.diagnose`` that whole audits reach without stating them (issue 34 item 1:
survivors of the mutation run on ``audit/diagnose``, docs/mutation.md): the relational fit's
pairing of scores, which identity inputs are decisive, the column edit, how a corpus model
drops unmatched segments, and the bound of the n-gram profile cache.  Exact values, no audit."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import pytest

from audit.diagnose import text_model
from audit.diagnose.models import predict
from audit.diagnose.relational import edits, identities, pairs
from audit.diagnose.variants import ScoreVariant, TextVariant
from reference_impl import ChrfParams

P = ChrfParams.make()
CLAIMED = (TextVariant(), ScoreVariant())


def test_pairs_name_the_deviation_of_an_implementation_built_that_way(monkeypatch):
    """An implementation that keeps whitespace (the model itself, built with that deviation):
    the pairs name whitespace-kept, and every informative pair agrees with it (each pair's two
    scores read back for that pair)."""
    # one trigger input per family (the fit stays exact): seconds, not half a minute
    monkeypatch.setattr(pairs, "INPUTS_PER_FAMILY", 1)
    true = (replace(TextVariant(), ws="whitespace-kept"), ScoreVariant())
    fits = pairs.fit_text_fields(lambda inputs: [float(predict(s, P, "sentence", true)) for s in inputs],
                                 P, "sentence", CLAIMED, 1, 1, 1e-9)
    assert [(f.family, f.field, f.value) for f in fits] == [("whitespace-kept", "ws", "whitespace-kept")]
    [fit] = fits
    assert fit.agreed == fit.total >= 5 and fit.model_wrong >= 5


def test_an_identity_input_is_decisive_only_where_the_variant_predicts_another_score():
    divisor = (TextVariant(), ScoreVariant(divisor="requested"))
    assert identities._decisive([("abc", ["abd"])], P, "sentence", CLAIMED, divisor, 1e-9)
    assert not identities._decisive([("a", ["b"])], P, "sentence", CLAIMED, divisor, 1e-9)  # both 0
    # an input a model cannot read decides nothing
    assert not identities._decisive([(None, ["abd"])], P, "sentence", CLAIMED, divisor, 1e-9)


def test_columns_read_the_jth_reference_of_every_segment_as_segment_j():
    assert edits._columns([("h1", ["a", "b"]), ("h2", ["c", "d"])]) == [("h1", ["a", "c"]), ("h2", ["b", "d"])]


@pytest.mark.parametrize("dropped, short_reference", [("all", Fraction(2750, 37)), (True, Fraction(1750, 19))])
def test_an_unmatched_segment_counts_all_its_hypothesis_ngrams_only_when_all_are_dropped(dropped, short_reference):
    """"abc" against "x" matches nothing: with ``unmatched_dropped="all"`` its hypothesis counts
    every n-gram it has, as against "xyz" (orders the reference lacks included); with True,
    only the orders its reference has."""
    v = (TextVariant(), ScoreVariant(unmatched_dropped=dropped))
    assert predict([("abc", ["xyz"]), ("ab", ["ab"])], P, "corpus", v) == Fraction(2750, 37)
    assert predict([("abc", ["x"]), ("ab", ["ab"])], P, "corpus", v) == short_reference


def test_the_profile_cache_is_emptied_only_above_its_limit():
    text_model._profile_cached.cache_clear()
    text_model._profile("abc", P, TextVariant())
    assert text_model.bound_profile_cache(1) is False
    assert text_model._profile_cached.cache_info().currsize == 1
    assert text_model.bound_profile_cache(0) is True
    assert text_model._profile_cached.cache_info().currsize == 0
