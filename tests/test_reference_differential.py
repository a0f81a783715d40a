"""Differential and property tests of the reference against sacreBLEU (and nltk).

sacreBLEU 2.6.0 ``sacrebleu.metrics.CHRF`` is the float implementation of the ``sacrebleu``
definition (``eps_smoothing=False``) and of ``sacrebleu-eps`` (``eps_smoothing=True``).
Agreement is required within 1e-9 absolute (0..100 scale) for sentence and corpus scores,
and the per-segment integer statistics must be *identical*, except where sacreBLEU's float
best-reference selection departs from the exact one (see ``_check_float_tie`` and
docs/definitions.md, "Float ties in best-reference selection").
"""

from __future__ import annotations

import importlib.util
import os
import random
import subprocess
import sys
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from reference_impl import EPSILON, SegmentStats, corpus_score, score_from_stats, sentence_score

from sacrebleu.metrics.chrf import CHRF  # noqa: E402  (a dependency of chrf-audit)

TOL = 1e-9

# ----------------------------------------------------------------------- strategies

#: All 29 code points for which str.isspace() is true (incl. U+001C..U+001F, U+0085,
#: U+00A0, U+1680, U+2000..U+200A, U+2028, U+2029, U+202F, U+205F, U+3000).
ISSPACE = tuple(chr(i) for i in range(sys.maxunicode + 1) if chr(i).isspace())
assert len(ISSPACE) == 29
ASCII_SPACE = (" ", "\t", "\n", "\r", "\x0b", "\x0c")
NOT_SPACE = ("\u200b", "\ufeff", "\u180e")  # zero-width space, BOM, Mongolian vowel sep.
COMBINING = ("\u0301", "\u0308", "\u0327", "\u20dd")
NON_BMP = ("\U0001f600", "\U00010400", "\U00010428", "\U0001d400", "\U00020000")
CJK = ("中", "文", "字", "の", "한")
PUNCT = tuple("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
CASE = ("İ", "i", "I", "ı", "ß", "ẞ", "S", "Σ", "σ", "ς", "A", "a", "ǅ", "ﬁ")
LETTERS = tuple("abcab")

LETTER_POOL = LETTERS + CASE + CJK + NON_BMP + COMBINING + NOT_SPACE
#: One draw per character: letters weighted up, every isspace code point present.
ALPHABET = LETTER_POOL * 2 + (" ",) * 4 + ISSPACE + PUNCT
short_text = st.text(st.sampled_from(ALPHABET), max_size=8)


def _long_text(seed: int) -> str:
    """Longer text (1..12 words, ASCII punctuation at word edges, any whitespace between)
    from a drawn seed: cheap to generate, so thousands of examples stay fast."""
    rng = random.Random(seed)
    out = []
    for _ in range(rng.randint(1, 12)):
        body = "".join(rng.choice(LETTER_POOL) for _ in range(rng.randint(0, 6)))
        if rng.random() < 0.3:
            body = rng.choice(PUNCT) + body
        if rng.random() < 0.3:
            body += rng.choice(PUNCT + ("...", ".)"))
        out.append(body)
        out.append(" " if rng.random() < 0.6 else rng.choice(ISSPACE))
    return "".join(out)


long_text = st.builds(_long_text, st.integers(0, 2**32 - 1))
#: A tiny alphabet makes exact F ties between references (and their float artifacts) likely.
tiny_text = st.text(st.sampled_from("abc "), max_size=9)
text = st.one_of(short_text, short_text, long_text, tiny_text)


def _mutate(rng: random.Random, s: str) -> str:
    """A nearby text: matches are frequent, ties between references plausible."""
    chars = list(s)
    for _ in range(rng.randint(0, 3)):
        op = rng.random()
        if chars and op < 0.4:
            del chars[rng.randrange(len(chars))]
        elif op < 0.7:
            chars.insert(rng.randint(0, len(chars)), rng.choice(LETTERS + (" ",) + PUNCT[:4]))
        elif chars:
            i = rng.randrange(len(chars))
            chars[i] = chars[i].upper() if rng.random() < 0.5 else chars[i].lower()
    return "".join(chars)


@st.composite
def segment(draw, nrefs: int):
    refs = [draw(text) for _ in range(nrefs)]
    rng = random.Random(draw(st.integers(0, 2**32)))
    mode = draw(st.integers(0, 3))
    if mode == 0:
        hyp = draw(text)
    elif mode == 1:
        hyp = refs[rng.randrange(nrefs)]
    else:
        hyp = _mutate(rng, refs[rng.randrange(nrefs)])
        # sometimes make another reference a near-copy too (ties in best-reference choice)
        if nrefs > 1 and mode == 3:
            refs[rng.randrange(nrefs)] = _mutate(rng, hyp)
    return hyp, refs


params_st = st.fixed_dictionaries(
    {
        "char_order": st.integers(1, 8),
        "word_order": st.integers(0, 2),
        "beta": st.integers(1, 4),
        "lowercase": st.booleans(),
        "whitespace": st.booleans(),
    }
)


@st.composite
def corpus_st(draw):
    nrefs = draw(st.integers(1, 3))
    segs = draw(st.lists(segment(nrefs), min_size=1, max_size=5))
    return [h for h, _ in segs], [r for _, r in segs]


# ---------------------------------------------------------------------------- helpers


def _sacrebleu(params: dict, definition: str) -> CHRF:
    return CHRF(eps_smoothing=(definition == "sacrebleu-eps"), **params)


def _check_float_tie(ours: SegmentStats, theirs: SegmentStats, hyp, refs, params) -> None:
    """sacreBLEU chose another reference than the exact rule did.

    Allowed only as a float artifact: both candidates' exact sentence scores agree to
    within 1e-12 (exact ties whose floats differ, or eps-level differences that vanish in
    float).  Anything else is a real disagreement.
    """
    candidates = [sentence_score(hyp, [r], **params) for r in refs]
    flat = [c.stats for c in candidates]
    assert theirs in flat, "sacreBLEU statistics match no reference"
    ours_f = max(c.score for c in candidates)
    theirs_f = candidates[flat.index(theirs)].score
    assert abs(ours_f - theirs_f) <= 1e-12, (ours, theirs, ours_f, theirs_f)


def _compare(hyps, refs, p, definition):
    kw = dict(p, definition=definition)
    metric = _sacrebleu(p, definition)
    streams = [list(x) for x in zip(*refs)]  # sacreBLEU: references transposed

    # sentence level
    for h, rs in zip(hyps, refs):
        ours = sentence_score(h, rs, **kw)
        theirs = metric.sentence_score(h, rs).score
        assert abs(float(ours.score) - theirs) <= TOL, (h, rs, ours.score, theirs)
        assert 0 <= ours.score <= 100

    # corpus level: identical integer statistics, then the score
    ours = corpus_score(hyps, refs, **kw)
    their_stats = [SegmentStats.from_flat(s) for s in metric._extract_corpus_statistics(hyps, streams)]
    used = list(ours.segment_stats)
    for i, (a, b) in enumerate(zip(ours.segment_stats, their_stats)):
        if a != b:
            _check_float_tie(a, b, hyps[i], refs[i], kw)
            used[i] = b
    theirs = metric.corpus_score(hyps, streams).score
    if used == list(ours.segment_stats):
        assert abs(float(ours.score) - theirs) <= TOL, (ours.score, theirs)
    else:
        # Documented float-tie case: the exact score of sacreBLEU's own choice must match.
        summed = used[0]
        for s in used[1:]:
            summed = summed + s
        assert abs(float(score_from_stats(summed, ours.params, "corpus")) - theirs) <= TOL


# ------------------------------------------------------------------ differential tests

# Budgets: each property holds at any budget, and the profile draws new inputs on every run
# (no derandomize, no database), so CI covers more over its runs; 1000 draws (300 for the
# properties) cost a third of what 3000 (1000) did -- this file alone was ~10 min of one
# CI worker on a loaded machine.
DIFF = settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@DIFF
@given(corpus_st(), params_st)
def test_differential_sacrebleu(corpus, p):
    _compare(*corpus, p, "sacrebleu")


@DIFF
@given(corpus_st(), params_st)
def test_differential_sacrebleu_eps(corpus, p):
    _compare(*corpus, p, "sacrebleu-eps")


def test_exact_tie_keeps_first_reference():
    hyp, refs = "ab", ["ac", "cb"]
    _compare([hyp], [refs], dict(char_order=6, word_order=0, beta=2, lowercase=False,
                                 whitespace=False), "sacrebleu")
    assert corpus_score([hyp], [refs]).chosen_references == (0,)


def test_sacrebleu_float_tie_artifact():
    """A genuine sacreBLEU float artifact (docs/definitions.md).

    "bccc " scores exactly 125/6 against both "bcba" and "b a", with different statistics;
    sacreBLEU's float F is 20.833333333333332 for the first and 20.833333333333336 for the
    second, so it picks the second.  The reference keeps the first (exact tie).  Sentence
    scores agree; the *corpus* score then differs by ~13.5 points.
    """
    hyp, refs = "bccc ", ["bcba", "b a"]
    a, b = (sentence_score(hyp, [r]) for r in refs)
    assert a.score == b.score == Fraction(125, 6) and a.stats != b.stats
    metric = CHRF()
    fa, fb = (metric._compute_f_score(list(x.stats.flat())) for x in (a, b))
    assert fb > fa  # the float artifact
    assert sentence_score(hyp, refs).chosen_references == (0,)
    hyps, crefs = [hyp, "abcabc"], [refs, ["abcab", "abcab"]]
    ours = corpus_score(hyps, crefs)
    assert ours.score == Fraction(668960, 9487)
    theirs = metric.corpus_score(hyps, [list(x) for x in zip(*crefs)]).score
    assert abs(theirs - float(ours.score)) > 10
    # ... and it equals the exact score of the statistics sacreBLEU chose:
    assert abs(theirs - float(corpus_score(hyps, [[refs[1]], ["abcab"]]).score)) <= TOL
    # The differential harness recognises it as a float tie, not a disagreement.
    _compare(hyps, crefs, dict(char_order=6, word_order=0, beta=2, lowercase=False,
                               whitespace=False), "sacrebleu")


# ------------------------------------------------------------------- property tests

PROP = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
definitions = st.sampled_from(("sacrebleu", "sacrebleu-eps", "chrfpp"))


@PROP
@given(corpus_st(), params_st, definitions)
def test_score_in_range_and_single_segment_corpus(corpus, p, definition):
    hyps, refs = corpus
    kw = dict(p, definition=definition)
    c = corpus_score(hyps, refs, **kw)
    assert 0 <= c.score <= 100
    s = sentence_score(hyps[0], refs[0], **kw)
    assert 0 <= s.score <= 100
    one = corpus_score(hyps[:1], refs[:1], **kw)
    assert one.segment_stats == s.segment_stats
    assert one.chosen_references == s.chosen_references
    if definition == "chrfpp":
        # chrF++.py's document score adds the substitutes its sentence score leaves out.
        assert 0 <= one.score - s.score <= 100 * EPSILON
    else:
        assert one.score == s.score


@PROP
@given(corpus_st(), params_st, definitions, st.randoms(use_true_random=False))
def test_corpus_invariant_to_segment_order(corpus, p, definition, rnd):
    hyps, refs = corpus
    kw = dict(p, definition=definition)
    order = list(range(len(hyps)))
    rnd.shuffle(order)
    a = corpus_score(hyps, refs, **kw)
    b = corpus_score([hyps[i] for i in order], [refs[i] for i in order], **kw)
    assert a.score == b.score
    assert a.stats == b.stats
    assert b.chosen_references == tuple(a.chosen_references[i] for i in order)


@PROP
@given(text, params_st)
def test_identical_text_scores_100(t, p):
    visible = t if p["whitespace"] else "".join(t.split())
    assume(visible)
    assert sentence_score(t, [t], **p).score == 100
    assert sentence_score(t, ["zz", t], **p).score == 100
    assert corpus_score([t, t], [[t], [t]], **p).score == 100


# ------------------------------------------------------------------------- nltk

ascii_text = st.text(st.sampled_from(LETTERS + CASE + CJK + NON_BMP + PUNCT + ASCII_SPACE), max_size=14)


@settings(max_examples=300, deadline=None)
@given(ascii_text, ascii_text, st.integers(1, 8))
def test_nltk_matches_sacrebleu_eps_beta3(hyp, ref, order):
    """nltk 3.10.4 sentence_chrf (x100) equals sacrebleu-eps at beta 3 (single reference,
    ASCII whitespace only) up to the 1e-16 substitutes, which nltk places differently."""
    from nltk.translate import chrf_score as chrf
    theirs = chrf.sentence_chrf(ref, hyp, max_len=order) * 100
    ours = sentence_score(hyp, [ref], char_order=order, beta=3, definition="sacrebleu-eps").score
    assert abs(float(ours) - theirs) <= 1e-12


def test_nltk_whitespace_set_is_isspace_minus_info_separators():
    from nltk.translate import chrf_score as chrf
    for c in ISSPACE:
        removed = chrf._preprocess("a" + c + "b", True) == "ab"
        assert removed == (c not in "\x1c\x1d\x1e\x1f"), hex(ord(c))
    # consequence: U+001C..U+001F are characters for nltk, removed by sacreBLEU
    ours = sentence_score("a\x1cb", ["ab"], beta=3, definition="sacrebleu-eps").score
    assert ours == 100 * (2 + 4 * EPSILON) / 6
    assert chrf.sentence_chrf("ab", "a\x1cb") * 100 < float(ours) - 1


# ------------------------------------------------------------- chrF++.py (optional)
# Popovic's chrF++.py is GPL: it is never copied into this repository.  Point CHRFPP_SCRIPT
# at a copy (e.g. `git -C <chrF mirror> show HEAD:chrF++.py > /tmp/chrFpp.py`) to run these.

CHRFPP_SCRIPT = os.environ.get("CHRFPP_SCRIPT")
needs_script = pytest.mark.skipif(
    not (CHRFPP_SCRIPT and os.path.isfile(CHRFPP_SCRIPT)),
    reason="the GPL chrF++.py script is never shipped: set CHRFPP_SCRIPT to the path of a copy",
)


@pytest.fixture(scope="module")
def chrfpp_module():
    spec = importlib.util.spec_from_file_location("chrfpp_script", CHRFPP_SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _script_scores(module, hyps, refs, nc, nw, beta):
    """(document score, mean sentence score) x100, from the script's own function."""
    total_f, avg_f, _, _ = module.computeChrF(
        ["*#".join(r) + "\n" for r in refs], [h + "\n" for h in hyps], nw, nc, float(beta)
    )
    return 100 * total_f, 100 * avg_f


CHRFPP_CASES = [
    # short lines
    (["c"], [["c"]]),
    (["ab", "a"], [["abc"], ["ba"]]),
    # tabs / NBSP / ideographic space inside lines, spaces and tabs at the ends
    (["a\tb c", " x\u00a0y ", "\tthe cat.  "], [["a b c"], ["x y"], ["the (cat)"]]),
    (["p\u3000q r"], [["pq r"]]),
    # multiple references ("*#"), the best one (strictly greater F) is used
    (["the cat sat", "dogs (bark)."], [["a cat sat", "the cat sat."], ["dogs bark.", "x", "dogs (bark)"]]),
]


@needs_script
@pytest.mark.parametrize("hyps, refs", CHRFPP_CASES)
@pytest.mark.parametrize("nc, nw, beta", [(6, 2, 2), (6, 0, 3), (6, 2, 3), (3, 1, 1)])
def test_chrfpp_definition_matches_script(chrfpp_module, hyps, refs, nc, nw, beta):
    kw = dict(char_order=nc, word_order=nw, beta=beta, definition="chrfpp")
    doc, avg = _script_scores(chrfpp_module, hyps, refs, nc, nw, beta)
    sentences = [sentence_score(h, r, **kw).score for h, r in zip(hyps, refs)]
    assert all(s > 0 for s in sentences)  # the script misbehaves otherwise (see below)
    assert abs(float(corpus_score(hyps, refs, **kw).score) - doc) <= TOL
    assert abs(float(sum(sentences) / len(sentences)) - avg) <= TOL
    for h, r, s in zip(hyps, refs, sentences):
        # a one-line document's average is exactly that line's sentence score
        assert abs(float(s) - _script_scores(chrfpp_module, [h], [r], nc, nw, beta)[1]) <= TOL


@needs_script
def test_chrfpp_script_cli_sentence_and_document(tmp_path):
    hyps = ["a\tb c", " x\u00a0y ", "the cat."]
    refs = [["a b c"], ["x y", "x\u00a0y"], ["the (cat)"]]
    (tmp_path / "h.txt").write_text("".join(h + "\n" for h in hyps), encoding="utf-8")
    (tmp_path / "r.txt").write_text("".join("*#".join(r) + "\n" for r in refs), encoding="utf-8")
    out = subprocess.run(
        [sys.executable, CHRFPP_SCRIPT, "-R", str(tmp_path / "r.txt"), "-H", str(tmp_path / "h.txt"),
         "-s", "-b", "3"],
        capture_output=True, text=True, check=True, env=dict(os.environ, PYTHONUTF8="1"),
    ).stdout
    kw = dict(beta=3, word_order=2, definition="chrfpp")
    expected = [f"{i}::c6+w2-F3\t{float(sentence_score(h, r, **kw).score):.4f}"
                for i, (h, r) in enumerate(zip(hyps, refs), 1)]
    expected.append(f"c6+w2-F3\t{float(corpus_score(hyps, refs, **kw).score):.4f}")
    lines = out.splitlines()
    for e in expected:
        assert e in lines, (e, out)


@needs_script
def test_chrfpp_script_misbehaviour_on_zero_segments(chrfpp_module):
    # A first segment with F = 0 against every reference: the script crashes.
    with pytest.raises(NameError):  # UnboundLocalError: bestMatchingCount
        _script_scores(chrfpp_module, ["xyz"], [["abc"]], 6, 2, 2)
    # A later one: it silently re-adds the previous segment's counts.
    doc, _ = _script_scores(chrfpp_module, ["abd", "uvw"], [["abc"], ["xyz"]], 6, 2, 2)
    kw = dict(word_order=2, definition="chrfpp")
    readded = corpus_score(["abd", "abd"], [["abc"], ["abc"]], **kw).score
    intended = corpus_score(["abd", "uvw"], [["abc"], ["xyz"]], **kw).score
    assert abs(float(readded) - doc) <= TOL
    assert abs(float(intended) - doc) > 1


@needs_script
@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.text(st.sampled_from("abc .,(\t\u00a0\u3000A"), max_size=12),
                          st.lists(st.text(st.sampled_from("abc .,(\t\u00a0\u3000A"), max_size=12),
                                   min_size=1, max_size=3)), min_size=1, max_size=4),
       st.integers(1, 7), st.integers(0, 2), st.integers(1, 4))
def test_chrfpp_random_against_script(chrfpp_module, segs, nc, nw, beta):
    hyps = [h for h, _ in segs]
    refs = [r for _, r in segs]
    kw = dict(char_order=nc, word_order=nw, beta=beta, definition="chrfpp")
    sentences = [sentence_score(h, r, **kw) for h, r in zip(hyps, refs)]
    assume(all(s.score > 0 for s in sentences))
    for h, r, s in zip(hyps, refs, sentences):
        # exact ties decided differently by float (see docs) are not disagreements
        cands = [sentence_score(h, [x], **kw) for x in r]
        top = sorted((c.score for c in cands), reverse=True)
        assume(len(top) == 1 or top[0] - top[1] > 1e-12
               or len({c.stats for c in cands if c.score == top[0]}) == 1)
    doc, avg = _script_scores(chrfpp_module, hyps, refs, nc, nw, beta)
    assert abs(float(corpus_score(hyps, refs, **kw).score) - doc) <= TOL
    assert abs(float(sum(s.score for s in sentences) / len(sentences)) - avg) <= TOL
