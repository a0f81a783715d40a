"""The chrF strategies reach the edges they are built for, never emit surrogates, and shrink
to the simplest inputs.  Deterministic: fixed seeds (derandomize), no example database."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import HealthCheck, find, given, settings
from hypothesis import strategies as st

import audit.collect.strategies as _S
from audit.collect.strategies import (
    CLAIM_VALUES, COMBINING, NON_BMP, NOT_WHITESPACE, WHITESPACE, claim_swarm, corpus_inputs,
    sentence_inputs, texts,
)

FIND = settings(max_examples=3000, derandomize=True, database=None, deadline=None,
                suppress_health_check=list(HealthCheck))


def _sample(strategy, n: int = 400) -> list:
    """``n`` examples drawn with a fixed seed."""
    out: list = []

    @settings(max_examples=n, derandomize=True, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def collect(x):
        out.append(x)

    collect()
    return out


@pytest.fixture(scope="module")
def text_sample() -> list[str]:
    return _sample(texts(), 600)


@pytest.fixture(scope="module")
def sentence_sample() -> list[tuple[str, list[str]]]:
    return _sample(sentence_inputs(), 400)


def _all_text(sample) -> str:
    return "".join(sample)


def test_whitespace_constant_is_exactly_the_isspace_set():
    assert set(WHITESPACE) == {chr(c) for c in range(0x110000) if chr(c).isspace()}
    assert len(WHITESPACE) == 29
    assert not any(c.isspace() for c in NOT_WHITESPACE)


def test_texts_reach_the_edges(text_sample):
    joined = _all_text(text_sample)
    assert "" in text_sample
    assert any(len(t) == 1 for t in text_sample)
    assert any(1 < len(t) <= 8 for t in text_sample)
    assert any(len(t) >= 20 for t in text_sample)  # sentence length
    assert "\x1c" in joined or "\x1d" in joined or "\x1e" in joined or "\x1f" in joined
    assert any(ord(c) > 0xFFFF for c in joined)  # non-BMP
    assert any(unicodedata.combining(c) for c in joined)
    assert any(c in NOT_WHITESPACE for c in joined)
    assert any(c in "\u0130\u00df\u03c2\ufb01\u212a" for c in joined)
    assert any("\u4e00" <= c <= "\u9fff" for c in joined)  # CJK
    assert any(t[-1:] in ".,!?)'\"" and len(t) > 1 for t in text_sample)
    assert any(len(t) >= 2 and len(set(t)) == 1 for t in text_sample)  # "aaaa"
    # most of the 29 whitespace code points show up in a modest sample
    assert len(set(joined) & set(WHITESPACE)) >= 20


@pytest.mark.parametrize("char", ["\x1c", "\x1f", "\x85", "\xa0", "\u1680", "\u2028", "\u3000", "\u200b", "\ufeff", "\u180e"])
def test_texts_find_each_special_code_point(char):
    assert char in find(texts(), lambda t: char in t, settings=FIND)


def test_texts_find_non_bmp_and_decomposed():
    assert any(c in NON_BMP for c in find(texts(), lambda t: any(c in NON_BMP for c in t), settings=FIND))
    t = find(texts(), lambda t: any(c in COMBINING for c in t), settings=FIND)
    assert unicodedata.normalize("NFC", t) != t or any(c in COMBINING for c in t)


def test_texts_shrink_to_empty_then_a():
    assert find(texts(), lambda t: True, settings=FIND) == ""
    assert find(texts(), lambda t: len(t) > 0, settings=FIND) == "a"


def test_texts_respect_size_bounds():
    for t in _sample(texts(min_size=3, max_size=5), 100):
        assert 3 <= len(t) <= 5


@given(texts())
@settings(max_examples=300, derandomize=True, database=None, deadline=None)
def test_texts_never_emit_surrogates(t):
    assert not any("\ud800" <= c <= "\udfff" for c in t)
    t.encode("utf-8")  # would raise on a surrogate


@given(sentence_inputs())
@settings(max_examples=200, derandomize=True, database=None, deadline=None,
          suppress_health_check=list(HealthCheck))
def test_sentence_inputs_shape_and_no_surrogates(x):
    hyp, refs = x
    assert isinstance(hyp, str) and isinstance(refs, list) and 1 <= len(refs) <= 3
    for s in [hyp, *refs]:
        assert isinstance(s, str)
        s.encode("utf-8")


def test_sentence_inputs_reach_the_edges(sentence_sample):
    assert any(h == r[0] and h for h, r in sentence_sample)  # identical non-empty
    assert any(h in r for h, r in sentence_sample)
    assert any(h == "" for h, _ in sentence_sample)
    assert any(len(r) == 1 for _, r in sentence_sample)
    assert any(len(r) == 3 for _, r in sentence_sample)
    # near-copies: same text up to whitespace, or up to case
    assert any(h != r[0] and "".join(h.split()) == "".join(r[0].split()) for h, r in sentence_sample)
    assert any(h != r[0] and h.lower() == r[0].lower() for h, r in sentence_sample)
    # repeated n-grams in the hypothesis beyond the reference (clipping)
    assert any(h and h.count(h[0]) > r[0].count(h[0]) > 0 for h, r in sentence_sample)


def test_sentence_inputs_shrink_to_empty():
    assert find(sentence_inputs(), lambda x: True, settings=FIND) == ("", [""])
    assert find(sentence_inputs(), lambda x: x[0] == "a" and x[1] == ["a"], settings=FIND) == ("a", ["a"])


def test_sentence_inputs_max_refs():
    assert all(len(r) == 1 for _, r in _sample(sentence_inputs(max_refs=1), 50))


def test_corpus_inputs_shape_and_edges():
    sample = _sample(corpus_inputs(), 80)
    for hyps, refs in sample:
        assert 1 <= len(hyps) <= 6 and len(hyps) == len(refs)
        assert len({len(r) for r in refs}) == 1  # same number of references everywhere
        assert 1 <= len(refs[0]) <= 3
    assert any(len(h) == 1 for h, _ in sample)
    assert any(len(h) >= 4 for h, _ in sample)
    assert any("" in h for h, _ in sample)  # an empty segment
    assert any(any(len(x) == 1 for x in h) for h, _ in sample)
    assert any(len(r[0]) > 1 for _, r in sample)
    assert find(corpus_inputs(), lambda x: True, settings=FIND) == ([""], [[""]])


BASE = {"char_order": 6, "word_order": 0, "beta": 2, "lowercase": False, "whitespace": False,
        "definition": "sacrebleu", "scale": 100}


def test_claim_swarm_shrinks_to_base_and_varies_only_accepted_fields():
    accepts = frozenset({"char_order", "beta", "lowercase"})
    assert find(claim_swarm(accepts, BASE), lambda d: True, settings=FIND) == BASE
    sample = _sample(claim_swarm(accepts, BASE), 200)
    for d in sample:
        assert set(d) == set(BASE)
        for k in BASE:
            if k not in accepts:
                assert d[k] == BASE[k]
    for k in accepts:
        assert {d[k] for d in sample} == set(CLAIM_VALUES[k])
    # a failure that needs one field shrinks the others to base
    d = find(claim_swarm(accepts, BASE), lambda d: d["beta"] == 0.5, settings=FIND)
    assert d == {**BASE, "beta": 0.5}


def test_claim_swarm_with_nothing_accepted_is_base():
    assert all(d == BASE for d in _sample(claim_swarm(frozenset(), BASE), 5))


@given(_S.corpus_inputs(max_refs=3, surrogates=True))
@settings(max_examples=300, deadline=None)
def test_texts_with_lone_surrogates_survive_the_json_protocols(inputs):
    """A high surrogate directly followed by a low one is one astral character to a JSON
    reader: the worker and external protocols would deliver another text than the reference
    scored (the requested-order-divisor planted bug then looked like a second, unexplained bug)."""
    import json

    from audit.adapters.worker import encode

    hyps, refs = inputs
    assert json.loads(encode([hyps, refs]).decode("ascii")) == [list(hyps), [list(r) for r in refs]]


def test_unpaired_keeps_lone_surrogates_lone():
    assert _S.unpaired("a\ud800\udc00b") == "a\ud800a\udc00b"
    assert _S.unpaired("\udc00\ud800") == "\udc00\ud800"
    assert _S.unpaired("x\U00010000") == "x\U00010000"
