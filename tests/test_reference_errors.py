"""Input validation of the reference: clear TypeError/ValueError naming the argument."""

from __future__ import annotations

import pytest

from reference_impl import ChrfParams, corpus_score, score_from_stats, sentence_score, SegmentStats


@pytest.mark.parametrize(
    "call, exc, words",
    [
        (lambda: sentence_score("a", "a"), TypeError, ["references", "bare str"]),
        (lambda: sentence_score("a", ("x" for _ in range(1))), TypeError, ["references"]),
        (lambda: sentence_score(1, ["a"]), TypeError, ["hypothesis", "str"]),
        (lambda: sentence_score(b"a", ["a"]), TypeError, ["hypothesis"]),
        (lambda: sentence_score(None, ["a"]), TypeError, ["hypothesis"]),
        (lambda: sentence_score("a", ["a", None]), TypeError, ["references[1]"]),
        (lambda: sentence_score("a", [b"a"]), TypeError, ["references[0]"]),
        (lambda: sentence_score("a", []), ValueError, ["references", "empty"]),
        (lambda: corpus_score("ab", [["a"], ["b"]]), TypeError, ["hypotheses"]),
        (lambda: corpus_score(["a"], "a"), TypeError, ["references"]),
        (lambda: corpus_score(["a"], ["a"]), TypeError, ["references[0]", "bare str"]),
        (lambda: corpus_score(["a", 2], [["a"], ["b"]]), TypeError, ["hypotheses[1]"]),
        (lambda: corpus_score(["a"], [[3]]), TypeError, ["references[0][0]"]),
        (lambda: corpus_score(["a"], [[]]), ValueError, ["references[0]", "empty"]),
        (lambda: corpus_score(["a", "b"], [["a"]]), ValueError, ["2 hypotheses", "1 reference"]),
        (lambda: corpus_score(["a"], [["a"], ["b"]]), ValueError, ["hypotheses", "reference"]),
        (lambda: corpus_score([], []), ValueError, ["empty"]),
    ],
)
def test_text_errors(call, exc, words):
    with pytest.raises(exc) as info:
        call()
    msg = str(info.value)
    for w in words:
        assert w in msg, (w, msg)


PARAM_CASES = [
    ({"char_order": 0}, ValueError, "char_order"),
    ({"char_order": -1}, ValueError, "char_order"),
    ({"char_order": True}, TypeError, "char_order"),
    ({"char_order": 6.0}, TypeError, "char_order"),
    ({"char_order": "6"}, TypeError, "char_order"),
    ({"word_order": -1}, ValueError, "word_order"),
    ({"word_order": 2.0}, TypeError, "word_order"),
    ({"word_order": False}, TypeError, "word_order"),
    ({"beta": 0}, ValueError, "beta"),
    ({"beta": -2}, ValueError, "beta"),
    ({"beta": 0.0}, ValueError, "beta"),
    ({"beta": float("nan")}, ValueError, "beta"),
    ({"beta": float("inf")}, ValueError, "beta"),
    ({"beta": True}, TypeError, "beta"),
    ({"beta": "2"}, TypeError, "beta"),
    ({"lowercase": 1}, TypeError, "lowercase"),
    ({"whitespace": "yes"}, TypeError, "whitespace"),
    ({"definition": "nltk"}, ValueError, "definition"),
    ({"definition": "SACREBLEU"}, ValueError, "definition"),
]


@pytest.mark.parametrize("kwargs, exc, name", PARAM_CASES)
def test_parameter_errors(kwargs, exc, name):
    for call in (
        lambda: sentence_score("a", ["a"], **kwargs),
        lambda: corpus_score(["a"], [["a"]], **kwargs),
        lambda: ChrfParams.make(**kwargs),
    ):
        with pytest.raises(exc) as info:
            call()
        assert name in str(info.value)


def test_unknown_definition_lists_the_known_ones():
    with pytest.raises(ValueError) as info:
        sentence_score("a", ["a"], definition="nltk")
    assert "sacrebleu" in str(info.value) and "chrfpp" in str(info.value)


def test_valid_edge_parameters_are_accepted():
    assert sentence_score("a", ["a"], char_order=1, word_order=0).score == 100
    assert sentence_score("a b", ["a b"], beta=0.5, word_order=1).score == 100
    # tuples and other sequences are fine
    assert corpus_score(("a",), (("a",),)).score == 100


def test_score_from_stats_level_and_flat_errors():
    p = ChrfParams.make()
    with pytest.raises(ValueError, match="level"):
        score_from_stats(SegmentStats.zeros(6), p, "document")
    with pytest.raises(ValueError, match="3 integers"):
        SegmentStats.from_flat([1, 2])


def test_params_kwargs_name_every_field_and_round_trip():
    """``ChrfParams.kwargs()`` is what the audit passes to sentence_score/corpus_score: it
    must name every field (a new field would otherwise be silently dropped) and rebuild the
    same parameters."""
    from dataclasses import fields
    from fractions import Fraction

    from reference_impl import ChrfParams, sentence_score

    p = ChrfParams.make(4, 1, Fraction(1, 3), True, True, "chrfpp")
    assert set(p.kwargs()) == {f.name for f in fields(ChrfParams)}
    assert ChrfParams.make(**p.kwargs()) == p
    assert sentence_score("Ab c", ["ab cd"], **p.kwargs()).params == p
