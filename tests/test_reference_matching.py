"""``reference_impl.matching.clipped_matches`` (the counter-free fast path) is the counter
definition, exactly: per order, the sum over common n-grams of min(hypothesis count,
reference count), with the n-grams of ``char_ngrams``/``word_ngrams``.

The texts come from small alphabets so that what each shortcut rests on happens often:
identical texts, repeated n-grams on both sides, one side's n-grams all distinct, an order
with no common n-gram followed by longer orders, sequences shorter than the order.  The
contract's metric, which scores every segment of a service's answers with it, is held to
the counter definition too.
"""

from __future__ import annotations

from collections import Counter

from hypothesis import example, given, settings
from hypothesis import strategies as st

from audit.collect import strategies as S
from audit.contract import load
from reference_impl import SegmentStats
from reference_impl.matching import clipped_matches, ngram_totals
from reference_impl.text import char_ngrams, word_ngrams

M = load("chrf-plus-plus-compute@1.0.0").metric


def counted(hc: list[Counter], rc: list[Counter]) -> list[int]:
    """The definition: per order, sum over common n-grams of min of the two counts."""
    return [sum(min(h[g], r[g]) for g in h.keys() & r.keys()) for h, r in zip(hc, rc)]


small_text = st.text(alphabet="aab", max_size=14) | st.text(alphabet="aab b.", max_size=12)
tokens = st.lists(st.sampled_from(["a", "a", "b", "a.", ","]), max_size=10)
orders = st.integers(min_value=1, max_value=7)


@settings(max_examples=500, deadline=None)
@given(small_text, small_text, orders)
@example("aaaaaa", "aaaaa", 6)  # repeats on both sides: counters needed at every order
@example("abab", "abab", 3)  # identical
@example("aabaa", "baabaab", 6)  # one inside the other, repeats on both sides
@example("baabaab", "aabaa", 6)
@example("ab", "ba", 4)  # order 2 has no common n-gram after order 1 had two
@example("", "", 6)
def test_character_matches_are_the_counter_definition(hyp, ref, order):
    hc, ht = char_ngrams(hyp, order)
    rc, rt = char_ngrams(ref, order)
    assert clipped_matches(hyp, ref, order) == counted(hc, rc)
    assert list(ngram_totals(len(hyp), order)) == ht and list(ngram_totals(len(ref), order)) == rt


@settings(max_examples=500, deadline=None)
@given(tokens, tokens, orders)
@example(["a", "a", "a"], ["a", "a"], 2)
@example(["a", "b", "a", "b"], ["a", "b", "a", "b", "a"], 4)
def test_word_matches_are_the_counter_definition(hyp, ref, order):
    hc, ht = word_ngrams(hyp, order)
    rc, rt = word_ngrams(ref, order)
    assert clipped_matches(hyp, ref, order) == counted(hc, rc)
    assert list(ngram_totals(len(hyp), order)) == ht and list(ngram_totals(len(ref), order)) == rt


def test_known_values():
    # "aaaa" vs "aa": 1-grams min(4, 2) = 2, 2-grams min(3, 1) = 1, no 3-gram in "aa"
    assert clipped_matches("aaaa", "aa", 4) == [2, 1, 0, 0]
    assert clipped_matches("abab", "abab", 5) == [4, 3, 2, 1, 0]
    assert clipped_matches("abc", "cab", 3) == [3, 1, 0]
    assert clipped_matches("aab", "xaabaa", 4) == [3, 2, 1, 0]  # "aab" inside: its own totals
    assert clipped_matches("xaabaa", "aab", 4) == [3, 2, 1, 0]
    assert clipped_matches(["a", "b", "a"], ["a", "b"], 2) == [2, 1]


def counter_segment_stats(hyp: str, ref: str, lowercase: bool) -> SegmentStats:
    """The contract metric's statistics computed with counters, as before the fast path."""
    if lowercase:
        hyp, ref = hyp.lower(), ref.lower()
    hc, ht = char_ngrams(M.chars(hyp), M.char_order)
    rc, rt = char_ngrams(M.chars(ref), M.char_order)
    hw, hwt = word_ngrams(M.tokens(hyp), M.word_order)
    rw, rwt = word_ngrams(M.tokens(ref), M.word_order)
    return SegmentStats(tuple(ht + hwt), tuple(rt + rwt), tuple(counted(hc + hw, rc + rw)))


@settings(max_examples=500, deadline=None)
@given(S.sentence_inputs(max_refs=1), st.booleans())
def test_the_contract_metric_is_the_counter_definition(hr, lowercase):
    hyp, (ref,) = hr
    want = counter_segment_stats(hyp, ref, lowercase)
    assert M.segment_stats(hyp, ref, lowercase) == want
    ev = M.evaluate([hyp, ref], [ref, hyp], 3, lowercase)
    assert ev.segment_scores[0] == M.score(want, 3)
    assert ev.score == M.score(want + counter_segment_stats(ref, hyp, lowercase), 3)
    fold = str.lower if lowercase else str
    assert ev.word_tokens[0] == {"hypothesis": M.tokens(fold(hyp)), "reference": M.tokens(fold(ref))}
