"""Rules of ``audit.diagnose`` that whole audits reach without stating them (issue 34 item 1:
survivors of the mutation run on ``audit/diagnose``, docs/mutation.md): which identity inputs
are decisive, how a corpus model drops unmatched segments, and the bound of the n-gram
profile cache.  Exact values, no audit.  (The pair and column-edit rules it also held went
with ``relational/pairs.py`` and ``edits.py``: pairs no longer name a family, issue 30.)"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import pytest

from audit.diagnose import text_model
from audit.diagnose.models import predict
from audit.diagnose.relational import identities
from audit.diagnose.variants import ScoreVariant, TextVariant
from reference_impl import ChrfParams

P = ChrfParams.make()
CLAIMED = (TextVariant(), ScoreVariant())


def test_an_identity_input_is_decisive_only_where_the_variant_predicts_another_score():
    divisor = (TextVariant(), ScoreVariant(divisor="requested"))
    assert identities._decisive([("abc", ["abd"])], P, "sentence", CLAIMED, divisor, 1e-9)
    assert not identities._decisive([("a", ["b"])], P, "sentence", CLAIMED, divisor, 1e-9)  # both 0
    # an input a model cannot read decides nothing
    assert not identities._decisive([(None, ["abd"])], P, "sentence", CLAIMED, divisor, 1e-9)


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
    text_model._reference_profile.cache_clear()  # (another test's entries)
    text_model._profile("abc", P, TextVariant())
    assert text_model.bound_profile_cache(1) is False
    assert text_model._profile_cached.cache_info().currsize == 1
    assert text_model.bound_profile_cache(0) is True
    assert text_model._profile_cached.cache_info().currsize == 0
