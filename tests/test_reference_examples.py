"""Hand-worked exact examples for the reference (reference_impl).

Every expected value here is an exact Fraction worked out by hand (or pinned after a
cross-check against sacreBLEU, nltk or chrF++.py as stated next to it).
"""

from __future__ import annotations

from fractions import Fraction

import pytest

import reference_impl
from reference_impl import (
    EPSILON,
    SegmentStats,
    char_sequence,
    corpus_score,
    score_from_stats,
    sentence_score,
    word_tokens,
)


def round6(x: Fraction) -> str:
    """Six decimals, round half to even, from the exact value."""
    scaled = round(x * 10**6)  # Fraction.__round__ rounds half to even
    return f"{scaled // 10**6}.{scaled % 10**6:06d}"


# --------------------------------------------------------------------------- basics


def test_identical_one_character_scores_100():
    r = sentence_score("a", ["a"])
    assert r.score == Fraction(100)
    assert isinstance(r.score, Fraction)
    assert float(r) == 100.0


def test_aa_vs_ab_beta3_is_25():
    # chars of "aa": a, a; of "ab": a, b.
    # order 1: H=2, R=2, M=min(2,1)=1 -> P=1/2, R=1/2
    # order 2: "aa" vs "ab": H=1, R=1, M=0 -> P=0, R=0
    # orders 3..6: no n-grams on either side -> not effective.
    # Effective orders k=2: avgP = (1/2 + 0)/2 = 1/4, avgR = 1/4.
    # F3 = (1+9) * (1/4)(1/4) / (9*(1/4) + 1/4) = (10/16) / (10/4) = 1/4 -> 25.
    r = sentence_score("aa", ["ab"], beta=3)
    assert r.score == Fraction(25)
    assert r.stats.hyp == (2, 1, 0, 0, 0, 0)
    assert r.stats.ref == (2, 1, 0, 0, 0, 0)
    assert r.stats.match == (1, 0, 0, 0, 0, 0)
    assert [o.effective for o in r.orders] == [True, True, False, False, False, False]


@pytest.mark.parametrize("definition", ["sacrebleu", "chrfpp"])
@pytest.mark.parametrize("hyp, ref", [("", "abc"), ("abc", ""), ("", ""), ("   ", " \t ")])
def test_empty_inputs_score_zero(hyp, ref, definition):
    assert sentence_score(hyp, [ref], definition=definition).score == 0
    assert corpus_score([hyp], [[ref]], word_order=2, definition="sacrebleu").score == 0


def test_empty_inputs_under_eps():
    # Both empty: every order has H = R = 0, so every per-order F is the substitute.
    assert sentence_score("", [""], definition="sacrebleu-eps").score == 100 * EPSILON
    # Empty hypothesis, non-empty reference: order 1..3 have R > 0, H = 0 -> F = 0;
    # orders 4..6 have H = R = 0 -> EPSILON each.
    assert sentence_score("", ["abc"], definition="sacrebleu-eps").score == 100 * 3 * EPSILON / 6


def test_multi_reference_tie_keeps_first():
    # "ab" vs "ac": one unigram match; vs "cb": one unigram match; equal F exactly.
    r = sentence_score("ab", ["ac", "cb"])
    assert sentence_score("ab", ["ac"]).score == sentence_score("ab", ["cb"]).score
    assert r.chosen_references == (0,)
    assert r.chosen_reference == 0
    # A strictly better later reference wins.
    r2 = sentence_score("ab", ["ac", "ab"])
    assert r2.chosen_references == (1,)
    assert r2.score == 100
    # Corpus level: per segment, first on ties.
    c = corpus_score(["ab", "ab"], [["ac", "cb"], ["xy", "ab"]])
    assert c.chosen_references == (0, 1)


def test_per_order_statistics_values():
    # "abcab" vs "abab", char_order 3, beta 2.
    # order 1: hyp a,b,c,a,b (5); ref a,b,a,b (4); match a:2 + b:2 = 4
    # order 2: hyp ab,bc,ca,ab (4); ref ab,ba,ab (3); match ab:min(2,2) = 2
    # order 3: hyp abc,bca,cab (3); ref aba,bab (2); match 0
    r = sentence_score("abcab", ["abab"], char_order=3)
    o1, o2, o3 = r.orders
    assert (o1.kind, o1.n, o1.hyp, o1.ref, o1.match) == ("char", 1, 5, 4, 4)
    assert (o2.hyp, o2.ref, o2.match) == (4, 3, 2)
    assert (o3.hyp, o3.ref, o3.match) == (3, 2, 0)
    assert (o1.precision, o1.recall) == (Fraction(4, 5), Fraction(1))
    assert (o2.precision, o2.recall) == (Fraction(1, 2), Fraction(2, 3))
    assert (o3.precision, o3.recall, o3.f(Fraction(2))) == (0, 0, 0)
    # F_2 of order 1 = 5 * (4/5) * 1 / (4 * 4/5 + 1) = 4 / (21/5) = 20/21
    assert o1.f(Fraction(2)) == Fraction(20, 21)
    # P = (4/5 + 1/2 + 0)/3 = 13/30, R = (1 + 2/3 + 0)/3 = 5/9
    # F = 5 P R / (4P + R) = (325/270) / (206/90) = 325/618  -> score 32500/618 = 16250/309
    assert r.score == Fraction(16250, 309)
    assert r.stats.flat() == (5, 4, 4, 4, 3, 2, 3, 2, 0)
    assert SegmentStats.from_flat(r.stats.flat()) == r.stats


def test_chrfpp_word_tokens():
    assert word_tokens("(hi)") == ["(hi", ")"]
    assert word_tokens("...") == ["..", "."]
    assert word_tokens("(hi") == ["(", "hi"]
    assert word_tokens("a . b,") == ["a", ".", "b", ","]
    assert word_tokens("\u00abhi\u00bb") == ["\u00abhi\u00bb"]  # non-ASCII marks stay
    assert word_tokens(" x\u3000y\u0085z ") == ["x", "y", "z"]  # split on the isspace set
    # Word bigrams join tokens: "(hi)" has tokens "(hi", ")" -> one bigram.
    r = sentence_score("(hi)", ["(hi)"], word_order=2, char_order=1)
    assert r.stats.hyp == (4, 2, 1)
    assert r.score == 100


def test_hypothesis_counts_zeroed_where_reference_has_no_ngram():
    r = sentence_score("abc", ["a"])
    assert r.stats.hyp == (3, 0, 0, 0, 0, 0)
    assert r.stats.ref == (1, 0, 0, 0, 0, 0)
    assert r.stats.match == (1, 0, 0, 0, 0, 0)
    # P = 1/3, R = 1 over one effective order: F2 = 5 (1/3) / (4/3 + 1) = 5/7
    assert r.score == Fraction(500, 7)
    # Same in chrF++ word orders: one reference word, no reference word bigram.
    w = sentence_score("a b", ["a"], word_order=2)
    assert w.stats.hyp[-2:] == (2, 0)


# --------------------------------------------------------------- eps and chrfpp


def test_eps_and_chrfpp_single_character():
    # "c" vs "c": order 1 F = 1; orders 2..6 have H = R = 0.
    eps = sentence_score("c", ["c"], definition="sacrebleu-eps").score
    assert eps == 100 * (1 + 5 * EPSILON) / 6
    # chrF++.py's sentence score: orders without a match contribute 0 -> exactly 100/6.
    pp = sentence_score("c", ["c"], definition="chrfpp").score
    assert pp == Fraction(100, 6)
    # chrF++.py's document score uses the substitutes again.
    assert corpus_score(["c"], [["c"]], definition="chrfpp").score == eps


def test_eps_mixed_orders():
    # "aa" vs "ab", beta 3, eps: order 1 F = 1/2 (P = R = 1/2); order 2: H = R = 1, M = 0
    # -> EPSILON; orders 3..6: H = R = 0 -> EPSILON.  Mean over 6 orders.
    r = sentence_score("aa", ["ab"], beta=3, definition="sacrebleu-eps")
    assert r.score == 100 * (Fraction(1, 2) + 5 * EPSILON) / 6
    # chrfpp sentence: order 2 has no match -> 0; mean over 6 -> 100/12.
    assert sentence_score("aa", ["ab"], beta=3, definition="chrfpp").score == Fraction(100, 12)


def test_chrfpp_keeps_inner_tabs_and_nbsp_strips_ends():
    text = " \ta\tb\u00a0c d \u3000\n"
    assert char_sequence(text, False, "chrfpp") == "a\tb\u00a0cd"
    assert char_sequence(text, False, "sacrebleu") == "abcd"
    assert char_sequence(text, True, "sacrebleu") == text
    # Consequently a tab inside a line costs matches under chrfpp only.
    assert sentence_score("a\tb", ["ab"]).score == 100
    r = sentence_score("a\tb", ["ab"], definition="chrfpp")
    assert r.stats.hyp[0] == 3
    assert r.score < 100


def test_signature_format():
    v = reference_impl.__version__
    r = sentence_score("a", ["a"])
    assert r.signature == (
        f"nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:no|beta:2|def:sacrebleu|version:chrf-audit-{v}"
    )
    c = corpus_score(["a", "b"], [["a"], ["b", "c"]], word_order=2, beta=3, lowercase=True,
                     whitespace=True, definition="sacrebleu-eps")
    assert c.signature == (
        f"nrefs:var|case:lc|eff:no|nc:6|nw:2|space:yes|beta:3|def:sacrebleu-eps|version:chrf-audit-{v}"
    )
    assert c.name == "chrF3++"
    assert sentence_score("a", ["a"], beta=Fraction(1, 2)).signature.count("|beta:0.5|") == 1


def test_corpus_score_is_from_summed_statistics_not_mean():
    hyps = ["a", "abcdefgh"]
    refs = [["a"], ["abcdxyzw"]]
    c = corpus_score(hyps, refs)
    s = [sentence_score(h, r).score for h, r in zip(hyps, refs)]
    assert s[0] == 100
    summed = c.segment_stats[0] + c.segment_stats[1]
    assert c.stats == summed
    assert c.score == score_from_stats(summed, c.params, "corpus")
    assert c.score != sum(s) / 2
    # Worked: seg1 adds (1,1,1) at order 1 only; seg2: H=R=8,7,6,5,4,3 with matches 4,3,2,1,0,0.
    assert summed.flat()[:6] == (9, 9, 5, 7, 7, 3)
    assert c.level == "corpus" and c.stats == summed


# ------------------------------------------------------------ seed 004 example

SEED4_HYPS = [
    "The relationship between cats and dogs is not exactly friendly.",
    "a good bookshop is just a genteel black hole that knows how to read.",
]
SEED4_REFS = [
    "The relationship between dogs and cats is not exactly friendly.",
    "A good bookshop is just a genteel Black Hole that knows how to read.",
]


def test_seed004_corpus_chrfpp_exact():
    # chrF2++ (nc 6, nw 2, beta 2), sacreBLEU definition.  Pinned from the reference and
    # cross-checked against sacreBLEU 2.6.0 (82.87263732906315).
    r = corpus_score(SEED4_HYPS, [[x] for x in SEED4_REFS], word_order=2)
    assert r.score == Fraction(40260030811255, 485806076756)
    assert round6(r.score) == "82.872637"
    seg = [sentence_score(h, [x], word_order=2).score for h, x in zip(SEED4_HYPS, SEED4_REFS)]
    assert seg == [Fraction(573765851, 6887244), Fraction(16087239067, 194810616)]
    assert [round6(s) for s in seg] == ["83.308483", "82.578862"]
    # Word tokens after punctuation splitting.
    assert word_tokens(SEED4_HYPS[0])[-2:] == ["friendly", "."]


def test_seed004_against_sacrebleu():
    import sacrebleu
    from sacrebleu.metrics import CHRF

    r = corpus_score(SEED4_HYPS, [[x] for x in SEED4_REFS], word_order=2)
    sb = CHRF(word_order=2).corpus_score(SEED4_HYPS, [SEED4_REFS]).score
    assert abs(float(r.score) - sb) < 1e-9
    assert sacrebleu.__version__


# ------------------------------------------------- published vectors: sacreBLEU
# From sacreBLEU's test/test_chrf.py (values given there to ~1e-4).

SB_EPS_BETA3 = [
    (["abcdefg"], ["hijklmnop"], 0.0),
    (["a"], ["b"], 0.0),
    ([""], ["b"], 0.0),
    ([""], ["ref"], 0.0),
    ([""], ["reference"], 0.0),
    (["aa"], ["ab"], 8.3333),
    (["a", "b"], ["a", "c"], 8.3333),
    (["a"], ["a"], 16.6667),
    (["a b c"], ["a b c"], 50.0),
    (["a b c"], ["abc"], 50.0),
    ([" risk assessment must be made of those who are qualified and expertise in the sector - these are the scientists ."],
     ["risk assessment has to be undertaken by those who are qualified and expert in that area - that is the scientists ."], 63.361730),
    ([" Die    Beziehung zwischen  Obama und Netanjahu ist nicht gerade  freundlich. "],
     ["Das Verhältnis zwischen Obama und Netanyahu ist nicht gerade freundschaftlich."], 64.1302698),
    (["Niemand hat die Absicht, eine Mauer zu errichten"], ["Niemand hat die Absicht, eine Mauer zu errichten"], 100.0),
]

SB_EFFECTIVE_BETA3 = [
    (["a"], ["a"], 100.0),
    ([""], ["reference"], 0.0),
    (["a b c"], ["a b c"], 100.0),
    (["a b c"], ["abc"], 100.0),
    ([""], ["c"], 0.0),
    (["a", "b"], ["a", "c"], 50.0),
    (["aa"], ["ab"], 25.0),
]

SB_KEEP_WHITESPACE_BETA3 = [
    (["Die Beziehung zwischen Obama und Netanjahu ist nicht gerade freundlich."],
     ["Das Verhältnis zwischen Obama und Netanyahu ist nicht gerade freundschaftlich."], 67.3481606),
    (["risk assessment must be made of those who are qualified and expertise in the sector - these are the scientists ."],
     ["risk assessment has to be undertaken by those who are qualified and expert in that area - that is the scientists ."], 65.2414427),
]

SB_SENTENCE_EPS_BETA2 = [
    ("Co nás nejvíc trápí, protože lékaři si vybírají, kdo bude žít a kdo zemře.",
     ["Nejvíce smutní jsme z toho, že musíme rozhodovat o tom, kdo bude žít a kdo zemře."], 39.14078509),
    ("Nebo prostě nemají vybavení, které by jim pomohlo, uvedli lékaři.",
     ["A někdy nemáme ani potřebný materiál, abychom jim pomohli, popsali lékaři."], 31.22557079),
    ("Lapali po dechu, jejich životy skončily dřív, než skutečně začaly.",
     ["Lapali po dechu a pak jejich život skončil - dřív, než skutečně mohl začít, připomněli."], 57.15704367),
]


def _corpus(hyps, refs, **kw):
    return corpus_score(hyps, [[r] for r in refs], **kw).score


@pytest.mark.parametrize("hyps, refs, expected", SB_EPS_BETA3)
def test_sacrebleu_vectors_eps(hyps, refs, expected):
    assert abs(float(_corpus(hyps, refs, beta=3, definition="sacrebleu-eps")) - expected) < 1e-4


@pytest.mark.parametrize("hyps, refs, expected", SB_EFFECTIVE_BETA3)
def test_sacrebleu_vectors_effective_order(hyps, refs, expected):
    assert _corpus(hyps, refs, beta=3) == Fraction(expected)  # all exact here


@pytest.mark.parametrize("hyps, refs, expected", SB_KEEP_WHITESPACE_BETA3)
def test_sacrebleu_vectors_keep_whitespace(hyps, refs, expected):
    assert abs(float(_corpus(hyps, refs, beta=3, whitespace=True)) - expected) < 1e-4


@pytest.mark.parametrize("hyp, refs, expected", SB_SENTENCE_EPS_BETA2)
def test_sacrebleu_vectors_sentence_eps(hyp, refs, expected):
    assert abs(float(sentence_score(hyp, refs, definition="sacrebleu-eps").score) - expected) < 1e-4


def test_sacrebleu_eps_vectors_exact_forms():
    # "a" vs "a" at eps: (1 + 5 EPSILON)/6; "a b c" vs "abc": orders 1..3 F = 1, 4..6 eps.
    assert _corpus(["a"], ["a"], beta=3, definition="sacrebleu-eps") == 100 * (1 + 5 * EPSILON) / 6
    assert _corpus(["a b c"], ["abc"], beta=3, definition="sacrebleu-eps") == 100 * (3 + 3 * EPSILON) / 6
    # ["a","b"] vs ["a","c"]: summed order 1: H=R=2, M=1 -> F=1/2; orders 2..6 all eps.
    assert _corpus(["a", "b"], ["a", "c"], beta=3, definition="sacrebleu-eps") == (
        100 * (Fraction(1, 2) + 5 * EPSILON) / 6
    )


# ----------------------------------------------------- published vectors: nltk
# nltk 3.10.4 chrf_score doctests.  nltk's sentence_chrf (0..1 scale) agrees with the
# sacrebleu-eps definition at beta 3 for single-reference inputs whose whitespace is ASCII,
# up to the EPSILON substitutes (< 1e-14 on the 0..100 scale; see docs/definitions.md and
# test_reference_differential.py::test_nltk_matches_sacrebleu_eps_beta3).

NLTK_REF1 = "It is a guide to action that ensures that the military will forever heed Party commands"
NLTK_REF2 = "It is the guiding principle which guarantees the military forces always being under the command of the Party"
NLTK_HYP1 = "It is a guide to action which ensures that the military always obeys the commands of the party"
NLTK_HYP2 = "It is to insure the troops forever hearing the activity guidebook that party direct"


def _nltk_eps(hyp, ref):
    return sentence_score(hyp, [ref], beta=3, definition="sacrebleu-eps").score


def _trunc4(x: Fraction) -> str:
    return f"{float(x / 100):.10f}"[:6]


def test_nltk_doctest_values():
    assert _trunc4(_nltk_eps(NLTK_HYP1, NLTK_REF1)) == "0.6349"
    assert _trunc4(_nltk_eps(NLTK_HYP2, NLTK_REF1)) == "0.3330"
    assert _trunc4(_nltk_eps("the the the the the the the", "the cat is on the mat")) == "0.1468"
    # nltk's corpus_chrf is the mean of sentence scores (not chrF's corpus score).
    pairs = [(NLTK_HYP1, NLTK_REF1), (NLTK_HYP2, NLTK_REF2), (NLTK_HYP2, NLTK_REF1), (NLTK_HYP1, NLTK_REF2)]
    mean = sum(_nltk_eps(h, r) for h, r in pairs) / 4
    assert _trunc4(mean) == "0.3910"


def test_nltk_doctest_values_against_nltk():
    from nltk.translate import chrf_score as chrf
    for hyp, ref in [(NLTK_HYP1, NLTK_REF1), (NLTK_HYP2, NLTK_REF1),
                     ("the the the the the the the", "the cat is on the mat")]:
        assert abs(chrf.sentence_chrf(ref, hyp) * 100 - float(_nltk_eps(hyp, ref))) < 1e-9
