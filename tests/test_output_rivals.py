"""Output rivals (issue 41, item 5; ``audit.diagnose.output_rivals``): a rounding is a number
of decimals and a mode -- half to even (Python's round()), half up (Java's Math.round), toward
zero (Go's math.Trunc) -- and the inputs that separate the modes are ties at the rounded digit.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

from audit.diagnose import output_rivals
from audit.diagnose.explain import rounded_matches
from audit.diagnose.fitted import CLAIMED
from audit.diagnose.models import output, rounded
from reference_impl import ChrfParams, sentence_score


def test_the_modes_part_on_ties_and_agree_elsewhere():
    assert (rounded(62.5, 0, None), rounded(62.5, 0, "half-up"), rounded(62.5, 0, "truncate")) == (62, 63, 62)
    assert (rounded(62.75, 0, None), rounded(62.75, 0, "half-up"), rounded(62.75, 0, "truncate")) == (63, 63, 62)


def test_an_observed_rounding_is_named_with_its_mode():
    assert rounded_matches(Fraction(125, 2), 63.0, 100, 1e-9) == (0, "half-up")
    assert rounded_matches(Fraction(125, 2), 62.0, 100, 1e-9) == (0, None)
    assert rounded_matches(Fraction(6275, 100), 62.0, 100, 1e-9) == (0, "truncate")


def test_ties_are_inputs_whose_exact_score_is_a_half_at_some_decimal_and_separate_the_modes():
    params = ChrfParams.make()
    ties = output_rivals.ties(params, "sentence", CLAIMED, 100,
                              lambda segs: sentence_score(*segs[0], **params.kwargs()).score)
    assert ties
    parted = 0
    for segs in ties:
        exact = sentence_score(*segs[0], **params.kwargs()).score
        k = next(k for k in range(9) if (exact * 10 ** k).denominator == 2)
        even, up, down = (output(exact, replace(CLAIMED[1], rounding=k, rounding_mode=m), 100)
                          for m in (None, "half-up", "truncate"))
        assert up != down, (segs, exact, k)  # a tie: half up and toward zero always part
        parted += even != up  # half to even parts from half up where the kept digit is even
    assert parted >= 1


def test_every_other_decimals_mode_and_float32_is_a_rival_of_a_rounding():
    model = (CLAIMED[0], replace(CLAIMED[1], rounding=2, rounding_mode="half-up"))
    rivals = output_rivals.rivals(model, lambda sv: f"{sv.rounding}/{sv.rounding_mode}")
    names = {n for n, _, _ in rivals}
    assert "precision-loss (2/None)" in names and "precision-loss (2/truncate)" in names
    assert "float32-arithmetic" in names and "precision-loss (2/half-up)" not in names
