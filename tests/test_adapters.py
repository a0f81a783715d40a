"""Adapters give the same numbers as calling the upstream library directly."""

from fractions import Fraction
from pathlib import Path

import pytest
from nltk.translate.chrf_score import corpus_chrf, sentence_chrf
from sacrebleu.metrics.chrf import CHRF

import reference_impl as R
from audit.adapters import AdapterError, Claims, Outcome, SourceLocation, resolve

ROOT = Path(__file__).resolve().parents[1]

SENTENCES = [
    ("c", ["c"]),
    ("The cat sat on the mat.", ["The cat is on the mat."]),
    ("abc def", ["abd def"]),
    ("a\u00a0b\tc", ["a b c"]),
    ("x\x1cy", ["xy"]),
    ("Grüße, Welt!", ["grüße welt !"]),
    ("\U0001F600 smile", ["\U0001F600 smiles"]),
    ("", ["abc"]),
    ("ab", ["ab"]),
]
MULTI = [
    ("The cat sat on the mat.", ["A cat was sitting on a mat.", "The cat sat on the mat!", "dog"]),
    ("(hi) there, friend", ["hi there friend", "(hi) there , friend"]),
    ("abc", ["x", "abd", "abc"]),
]


@pytest.fixture(scope="module", params=[True, False], ids=["isolated", "in-process"])
def adapters(request):
    ads = {a.name: a for a in resolve(None, isolate=request.param)}
    yield ads
    for a in ads.values():
        a.close()


def test_default_set(adapters):
    assert list(adapters) == [
        "nltk", "sacrebleu-chrf", "sacrebleu-chrf++", "sacrebleu-chrf-eps", "sacrebleu-chrf++-eps"
    ]
    n = adapters["nltk"]
    assert n.claims == Claims(beta=3, scale=1)
    assert not n.supports.multi_reference
    assert n.accepts == frozenset({"char_order", "beta", "whitespace"})
    assert n.sources["sentence"].qualname == "sentence_chrf"
    assert n.sources["sentence"].file.endswith("chrf_score.py") and n.sources["sentence"].line > 0
    assert n.signature.startswith("nltk|3.")
    s = adapters["sacrebleu-chrf++-eps"]
    assert s.claims == Claims(word_order=2, definition="sacrebleu-eps")
    assert s.signature == "nrefs:var|case:mixed|eff:no|nc:6|nw:2|space:no|version:" + s.version
    assert isinstance(s.sources["corpus"], SourceLocation)


def test_nltk_matches_upstream(adapters):
    a = adapters["nltk"]
    out = a.sentence_scores(SENTENCES)
    for (h, refs), o in zip(SENTENCES, out):
        expected = sentence_chrf(refs[0], h)
        assert o.kind == "value" and o.raw == repr(expected)
        assert o.value == expected * 100.0
    # nltk's known short-input deflation: one char order of six
    assert out[0].raw == repr(1 / 6) and abs(out[0].value - 100 / 6) < 1e-12
    hyps, refs = [h for h, _ in SENTENCES], [r for _, r in SENTENCES]
    [c] = a.corpus_scores([(hyps, refs)])
    assert c.value == corpus_chrf([r[0] for r in refs], hyps) * 100.0


def test_nltk_configure_changes_its_parameters(adapters):
    a = adapters["nltk"]
    v = a.configure(char_order=3, beta=2, whitespace=True)
    try:
        assert v.claims.char_order == 3 and v.claims.beta == 2 and v.claims.whitespace
        h, refs = SENTENCES[1]
        expected = sentence_chrf(refs[0], h, max_len=3, beta=2, ignore_whitespace=False)
        assert v.sentence_scores([(h, refs)])[0].raw == repr(expected)
        assert expected != sentence_chrf(refs[0], h)
    finally:
        v.close()
    with pytest.raises(AdapterError, match="cannot be configured with word_order"):
        a.configure(word_order=2)
    with pytest.raises(ValueError):
        a.sentence_scores([("a", ["b", "c"])])


@pytest.mark.parametrize("name, word_order, eps", [
    ("sacrebleu-chrf", 0, False), ("sacrebleu-chrf++", 2, False),
    ("sacrebleu-chrf-eps", 0, True), ("sacrebleu-chrf++-eps", 2, True),
])
def test_sacrebleu_matches_upstream(adapters, name, word_order, eps):
    a = adapters[name]
    metric = CHRF(word_order=word_order, eps_smoothing=eps)
    items = SENTENCES + MULTI
    for (h, refs), o in zip(items, a.sentence_scores(items)):
        assert o.kind == "value"
        assert o.value == metric.sentence_score(h, refs).score
    # corpus: segments with different reference counts are padded with None for sacreBLEU
    hyps = [h for h, _ in items]
    refs = [r for _, r in items]
    streams = [[r[k] if k < len(r) else None for r in refs] for k in range(3)]
    [c] = a.corpus_scores([(hyps, refs)])
    assert c.value == metric.corpus_score(hyps, streams).score


def test_sacrebleu_chrfpp_multi_reference_best_reference(adapters):
    a = adapters["sacrebleu-chrf++"]
    h, refs = MULTI[0]
    out = a.sentence_scores([(h, refs), (h, [refs[1]]), (h, [refs[0]])])
    assert out[0].value == CHRF(word_order=2).sentence_score(h, refs).score
    assert out[0].value == out[1].value > out[2].value  # the best reference wins
    exact = R.sentence_score(h, refs, word_order=2)
    assert abs(out[0].value - exact.score_float) < 1e-9


def test_sacrebleu_configure(adapters):
    v = adapters["sacrebleu-chrf"].configure(char_order=4, beta=1, lowercase=True, whitespace=True)
    try:
        h, refs = SENTENCES[5]
        expected = CHRF(char_order=4, beta=1, lowercase=True, whitespace=True).sentence_score(h, refs)
        assert v.sentence_scores([(h, refs)])[0].value == expected.score
        assert "case:lc" in v.signature and "nc:4" in v.signature and "space:yes" in v.signature
    finally:
        v.close()
    assert adapters["sacrebleu-chrf"].sentence_scores([("a", ["a"])])[0].value == 100.0  # still open


def test_resolve_names_and_overrides():
    ads = resolve("sacrebleu-chrf++", overrides={"beta": 1}, isolate=False)
    assert [a.name for a in ads] == ["sacrebleu-chrf++"]
    assert ads[0].claims.beta == 1
    # beta override reconfigures the implementation too (beta is accepted)
    h, refs = MULTI[1]
    assert ads[0].sentence_scores([(h, refs)])[0].value == CHRF(word_order=2, beta=1).sentence_score(h, refs).score
    held = resolve("nltk", overrides={"definition": "chrfpp"}, isolate=False)
    assert held[0].claims.definition == "chrfpp" and held[0].claims.scale == 1
    assert [a.name for a in resolve("sacrebleu", isolate=False)] == [
        "sacrebleu-chrf", "sacrebleu-chrf++", "sacrebleu-chrf-eps", "sacrebleu-chrf++-eps"]


def test_claims_api():
    c = Claims(beta=Fraction(1, 2), scale=1)
    assert c.params() == R.ChrfParams.make(beta=Fraction(1, 2))
    assert c.to_dict() == {"char_order": 6, "word_order": 0, "beta": 0.5, "lowercase": False,
                           "whitespace": False, "definition": "sacrebleu", "scale": 1}
    assert Claims(beta=3.0).to_dict()["beta"] == 3 and isinstance(Claims(beta=3.0).to_dict()["beta"], int)
    assert c.replace(word_order=2).word_order == 2
    with pytest.raises(ValueError):
        Claims(scale=10)
    with pytest.raises(ValueError):
        Claims(definition="bleu")
    assert Outcome("timeout", None, None, "x").kind == "timeout"


# -- the example external program ------------------------------------------------------


JS_CASES = [
    ("c", ["c"]),
    ("The cat sat on the mat.", ["The cat is on the mat.", "A cat sat on a mat!"]),
    ("a\U0001F600b\U00010348c", ["a\U0001F600b\U00010348d"]),  # non-BMP code points
    ("ab\x1ccd\u2028ef", ["abcdef"]),  # U+001C and U+2028 are str.isspace()
    ("a\u200bb", ["ab"]),  # U+200B is not whitespace
    ("", ["abc"]),
    ("(hi) there, friend", ["hi there friend", "(hi) there , friend"]),
    ("Grüße\u3000Welt", ["Grüße Welt"]),
]


@pytest.mark.parametrize("word_order", [0, 2])
@pytest.mark.parametrize("definition", ["sacrebleu", "sacrebleu-eps"])
def test_example_js_agrees_with_reference(word_order, definition, monkeypatch):
    monkeypatch.chdir(ROOT)
    [a] = resolve(external="node examples/chrf.js", timeout=10)
    with a:
        assert a.name == "external:node examples/chrf.js" and a.version == "1.0.0"
        assert a.claims == Claims() and a.supports.multi_reference
        v = a.configure(word_order=word_order, definition=definition)
        with v:
            out = v.sentence_scores(JS_CASES)
            for (h, refs), o in zip(JS_CASES, out):
                exact = R.sentence_score(h, refs, word_order=word_order, definition=definition)
                assert o.kind == "value", o
                assert abs(o.value - exact.score_float) <= 1e-9, (h, refs, o, exact.score_float)
            hyps, refs = [h for h, _ in JS_CASES], [r for _, r in JS_CASES]
            [c] = v.corpus_scores([(hyps, refs)])
            exact = R.corpus_score(hyps, refs, word_order=word_order, definition=definition)
            assert abs(c.value - exact.score_float) <= 1e-9


def test_example_js_whitespace_lowercase_and_errors(monkeypatch):
    monkeypatch.chdir(ROOT)
    [a] = resolve(external="node examples/chrf.js", overrides={"lowercase": True, "whitespace": True})
    with a:
        items = [("Ab C", ["ab c"]), ("A\tB", ["a b"])]
        for (h, refs), o in zip(items, a.sentence_scores(items)):
            exact = R.sentence_score(h, refs, lowercase=True, whitespace=True)
            assert abs(o.value - exact.score_float) <= 1e-9
        assert a.sentence_scores([("a", [])])[0].kind == "exception"
