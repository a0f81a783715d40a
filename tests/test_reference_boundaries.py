"""Rules of the reference that the example tests reached without stating (issue 34 mutation
triage of reference_impl, sample 8 seed 0): the one-reference fast path of corpus_score is
taken only when EVERY segment has exactly one reference; the orders' labels switch from char
to word exactly after char_order; an all-zero statistics row is zeros."""

from fractions import Fraction

import pytest

from reference_impl import SegmentStats, corpus_score, sentence_score


@pytest.mark.parametrize("definition", ["sacrebleu", "chrfpp"])
def test_corpus_picks_the_best_of_several_references(definition):
    """All segments with two references, the second the exact match: a fast path that read
    only the first reference would score below 100."""
    got = corpus_score(["the cat sat", "a dog ran"], [["xyz qqq", "the cat sat"], ["zzz", "a dog ran"]],
                       definition=definition)
    assert got.score == 100


@pytest.mark.parametrize("definition", ["sacrebleu", "chrfpp"])
def test_corpus_with_one_and_two_references_mixed(definition):
    """One segment with one reference, one with two (the match second): the same corpus
    score as the corpus of the chosen references alone."""
    mixed = corpus_score(["the cat sat", "a dog ran"], [["the cat sat"], ["zzz www", "a dog ran"]],
                         definition=definition)
    chosen = corpus_score(["the cat sat", "a dog ran"], [["the cat sat"], ["a dog ran"]], definition=definition)
    assert mixed.score == chosen.score == 100
    single = corpus_score(["the cat sat", "a dog ran"], [["the cat sat"], ["zzz www"]], definition=definition)
    assert single.score < 100 and isinstance(single.score, Fraction)


def test_orders_are_char_up_to_char_order_then_word():
    got = sentence_score("the cat sat", ["the cat sat on"], char_order=6, word_order=2)
    assert [(o.kind, o.n) for o in got.orders] == [("char", n) for n in range(1, 7)] + [("word", 1), ("word", 2)]
    assert [(o.kind, o.n) for o in sentence_score("ab", ["ab"], char_order=2, word_order=0).orders] == \
        [("char", 1), ("char", 2)]


def test_zeros_is_a_row_of_zero_counts():
    z = SegmentStats.zeros(3)
    assert z == SegmentStats((0, 0, 0), (0, 0, 0), (0, 0, 0))
    assert z + SegmentStats((1, 2, 3), (4, 5, 6), (1, 1, 1)) == SegmentStats((1, 2, 3), (4, 5, 6), (1, 1, 1))


def test_segment_stats_are_immutable_values():
    """Frozen: a row of counts cannot be changed after the fact, and is hashable (equal rows,
    one key)."""
    import dataclasses

    s = SegmentStats((1, 2), (3, 4), (1, 1))
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.hyp = (0, 0)
    assert len({s, SegmentStats((1, 2), (3, 4), (1, 1))}) == 1
