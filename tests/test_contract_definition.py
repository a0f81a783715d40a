"""The contract's metric (audit.contract.definition) and the contract as data (spec): the
seed's example exactly, where the contract agrees with the reference and where it does not,
exact rounding, and one-line errors for contract files that are not contracts."""

from __future__ import annotations

import json
import re
from fractions import Fraction

import pytest
from hypothesis import given, settings

from audit.collect import strategies as S
from audit.contract import builtin_names, load
from audit.contract.definition import decimal_text, fraction_text, is_tie
from audit.contract.probes import tie_texts
from audit.errors import UsageError
from audit.diagnose.models import predict
from audit.diagnose.variants import ScoreVariant, TextVariant
from reference_impl import ChrfParams, corpus_score, sentence_score

C = load("chrf-plus-plus-compute@1.0.0")
M = C.metric
EXAMPLE = C.doc["example"]["request"]


def test_the_seeds_example_exactly():
    ev = M.evaluate(EXAMPLE["hypotheses"], EXAMPLE["references"])
    assert fraction_text(ev.score) == "40260030811255/485806076756"
    assert decimal_text(ev.score) == "82.872637"
    assert [decimal_text(s) for s in ev.segment_scores] == ["83.308483", "82.578862"]
    assert ev.word_tokens[0]["hypothesis"][-2:] == ["friendly", "."]
    # and it is what the reference's sacrebleu definition gives (no zeroing matters here)
    ref = corpus_score(EXAMPLE["hypotheses"], [[r] for r in EXAMPLE["references"]], word_order=2)
    assert ref.score == ev.score


def test_the_whitespace_set_is_the_contracts_29_code_points():
    listed = {0x9, 0xA, 0xB, 0xC, 0xD, 0x1C, 0x1D, 0x1E, 0x1F, 0x20, 0x85, 0xA0, 0x1680, *range(0x2000, 0x200B),
              0x2028, 0x2029, 0x202F, 0x205F, 0x3000}
    assert {ord(c) for c in M.whitespace} == listed and len(listed) == 29
    # equal to this Python's str.isspace() set, which the reference's sacrebleu definition uses
    assert {c for c in range(0x110000) if chr(c).isspace()} == listed


def test_tokens_split_one_mark_per_word():
    assert M.tokens("(hi) ... a. .b , x\u3000y\u200bz") == ["(hi", ")", "..", ".", "a", ".", ".", "b", ",",
                                                            "x", "y\u200bz"]
    assert M.tokens("\u00bfqu\u00e9? \u00abhi\u00bb") == ["\u00bfqu\u00e9", "?", "\u00abhi\u00bb"]


@settings(max_examples=300, deadline=None)
@given(S.sentence_inputs(max_refs=1), S.st.booleans(), S.st.sampled_from([1, 2, 3, 16]))
def test_sentence_scores_are_the_references(hr, lowercase, beta):
    """At the sentence level the contract's metric is the reference's sacrebleu chrF++: the
    search may hold a service's segment scores to the reference."""
    h, refs = hr
    ours = M.evaluate([h], refs, beta, lowercase)
    ref = sentence_score(h, refs, word_order=2, beta=beta, lowercase=lowercase)
    assert ours.segment_scores[0] == ours.score == ref.score


@settings(max_examples=200, deadline=None)
@given(S.corpus_inputs(max_refs=1))
def test_corpus_scores_count_every_hypothesis_ngram(hr):
    """At the corpus level the contract sums every hypothesis n-gram: the reference with the
    registry's hypothesis-ngrams-where-reference-has-none model, exactly."""
    hyps, refs = hr
    segments = [(h, r) for h, r in zip(hyps, refs)]
    model = predict(segments, ChrfParams.make(word_order=2), "corpus", (TextVariant(hyp_where_no_ref=True), ScoreVariant()))
    assert M.evaluate(hyps, [r[0] for r in refs]).score == model


def test_the_difference_from_sacrebleus_zeroing_is_real():
    hyps, refs = ["a b", "c d e", "abcdefg"], ["a", "c d e", "ab"]
    ours = M.evaluate(hyps, refs).score
    zeroed = corpus_score(hyps, [[r] for r in refs], word_order=2).score
    assert ours != zeroed and ours < zeroed  # the uncounted bigrams lower precision


def test_exact_rounding_half_to_even_and_the_tie_probes():
    assert decimal_text(Fraction(25, 128)) == "0.195312"
    assert decimal_text(Fraction(25, 128), rounding="half-up") == "0.195313"
    assert decimal_text(Fraction(75, 128)) == "0.585938"
    assert decimal_text(Fraction(75, 128), rounding="half-down") == "0.585937"
    assert decimal_text(Fraction(100)) == "100.000000" and decimal_text(Fraction(0)) == "0.000000"
    assert decimal_text(Fraction(1, 3)) == "0.333333" and decimal_text(Fraction(2, 3)) == "0.666667"
    for shared, want in ((1, Fraction(25, 128)), (3, Fraction(75, 128))):
        h, r = tie_texts(shared)
        assert len(M.chars(h)) == len(M.chars(r)) == 64
        assert M.evaluate([h], [r]).score == want and is_tie(want)


def test_the_builtin_contract_and_a_contract_file(tmp_path):
    assert builtin_names() == ["chrf-plus-plus-compute@1.0.0"]
    assert (C.max_segments, C.max_bytes, C.beta_range, C.decimals) == (256, 65536, (1, 16, 2), 6)
    doc = dict(C.doc, name="my-chrf", version="2")
    path = tmp_path / "c.json"
    path.write_text(json.dumps(doc))
    mine = load(str(path))
    assert mine.id == "my-chrf@2" and mine.metric == M
    assert mine.body(["a"], ["b"], beta=3) == {"hypotheses": ["a"], "references": ["b"], "beta": 3}


@pytest.mark.parametrize("mutate, message", [
    (lambda d: d.pop("limits"), "'limits' is a required property"),
    (lambda d: d["metric"].update(rounding="half-up"), "half-even"),
    (lambda d: d["request"].update(body={"texts": "$hypotheses"}), "must hold"),
    (lambda d: d.update(output_schema={"type": 3}), "output_schema is not a JSON Schema"),
    # issue 29: tracebacks, false findings, gigabytes, markup in titles
    (lambda d: d["metric"].update(whitespace=["0020-0009"]), "0020-0009 is not a range of code points"),
    (lambda d: d["metric"].update(whitespace=["110000"]), "110000 is not a range of code points"),
    (lambda d: d["parameters"]["beta"].update(minimum=5, maximum=3), "are not in that order"),
    (lambda d: d["parameters"]["beta"].update(default=17), "are not in that order"),
    (lambda d: d["parameters"]["beta"].update(maximum=10 ** 9), "is greater than the maximum of 1000"),
    (lambda d: d["limits"].update(max_segments=10 ** 9), "is greater than the maximum of 4096"),
    (lambda d: d["limits"].update(max_text_bytes=10 ** 12), "is greater than the maximum of 262144"),
    (lambda d: d["metric"].update(whitespace=["0000-10FFFF"]), "more than 64 code points"),
    (lambda d: d["metric"].update(punctuation="!" * 129), "is too long"),
    (lambda d: d.update(version="1.0\n# Owned <img src=x>"), "/version: "),
    (lambda d: d.update(name="chrf\n"), "/name: "),
    (lambda d: d["response"].update(echo={"beta": 7}), "/response/echo/beta: 7 is not of type 'string'"),
    (lambda d: d["example"]["request"].update(references=["a"]), "/example/request: not a valid request"),
    (lambda d: d.update(input_schema={"properties": {"a": {"pattern": "("}}}), "input_schema is not a JSON Schema"),
])
def test_a_bad_contract_file_is_one_line(tmp_path, mutate, message):
    doc = json.loads(json.dumps(C.doc))
    mutate(doc)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(UsageError, match=re.escape(message)) as e:
        load(str(path))
    assert "\n" not in str(e.value)


@pytest.mark.parametrize("text", ["[" * 200_000, json.dumps(dict(C.doc, input_schema="@")).replace(
    '"@"', '{"properties": {"a": ' * 450 + "{}" + "}}" * 450)])
def test_a_contract_file_nested_too_deeply_is_one_line(tmp_path, text):
    """200,000 nested [ (RecursionError in the reader) and a schema 900 levels deep that Python
    reads (RecursionError in the validator): one line each, before anything else."""
    path = tmp_path / "deep.json"
    path.write_text(text)
    with pytest.raises(UsageError, match="nested too deeply|nested deeper than 64 levels") as e:
        load(str(path))
    assert "\n" not in str(e.value)


def test_probes_keep_within_a_contracts_limits(tmp_path):
    """A contract that takes fewer segments (or bytes) at once than it has whitespace code
    points or punctuation marks: every valid probe stays within its limits (a probe beyond them
    would be refused, rightly, and reported as a refusal of a valid input)."""
    from audit.contract.probes import limit_probes, score_probes, state_probes

    doc = json.loads(json.dumps(C.doc))
    doc["limits"].update(max_segments=4, max_text_bytes=1024)
    doc["metric"]["punctuation"] = "".join(map(chr, range(0x21, 0x7f)))
    doc["example"]["request"]["hypotheses"] = doc["example"]["request"]["hypotheses"][:1]
    doc["example"]["request"]["references"] = doc["example"]["request"]["references"][:1]
    path = tmp_path / "small.json"
    path.write_text(json.dumps(doc))
    small = load(str(path))
    probes = score_probes(small) + limit_probes(small) + [p for seq in state_probes(small).values() for p in seq]
    for p in probes:
        texts = p.fields["hypotheses"] + p.fields["references"]
        assert len(p.fields["hypotheses"]) <= 4 and sum(len(t.encode("utf-8", "surrogatepass")) for t in texts) <= 1024, \
            p.name
    parts = [p.name for p in probes if p.name.startswith("each ASCII punctuation mark")]
    assert len(parts) == 24 and parts[0].endswith("(part 1 of 24)")  # 94 marks, 4 a request
    ws = {ch for p in probes if p.name.startswith("every whitespace code point") for h in p.fields["hypotheses"]
          for ch in h[2:-3]}
    assert ws == set(small.metric.whitespace)  # every code point still probed


def test_unknown_contracts_are_one_line():
    with pytest.raises(UsageError, match="unknown contract 'chrf-compute@1.0.0'"):
        load("chrf-compute@1.0.0")
    with pytest.raises(UsageError, match="no such contract file"):
        load("/nonexistent/contract.json")


def test_the_fast_schema_check_agrees_with_jsonschema():
    """Answers are first checked by a compiled validator; jsonschema (2020-12) is the
    authority: whatever it rejects is rejected, and a schema with keywords whose meaning
    changed between drafts is never compiled."""
    import jsonschema

    from audit.contract import schemas

    ev = M.evaluate(EXAMPLE["hypotheses"], EXAMPLE["references"])
    good = {"metric": "chrF++", "char_order": 6, "word_order": 2, "beta": 2, "lowercase": False,
            "segment_count": 2, "score": decimal_text(ev.score), "score_fraction": fraction_text(ev.score),
            "segment_scores": [decimal_text(s) for s in ev.segment_scores], "word_tokens": ev.word_tokens}
    bad = [dict(good, score="82.87"), dict(good, metric="chrF"), dict(good, segment_scores=[]),
           dict(good, word_tokens=[{"hypothesis": ["a"]}]), dict(good, beta=True), {k: v for k, v in good.items()
                                                                                   if k != "score"}]
    validator = jsonschema.Draft202012Validator(C.doc["output_schema"])
    assert C.output_errors({"result": good}) == [] and validator.is_valid({"result": good})
    for doc in bad + [good]:  # the contract's answer is in the example's envelope: {"result": {...}}
        doc = {"result": doc} if doc is not good else doc
        assert C.output_errors(doc) and not validator.is_valid(doc), doc
    assert schemas._portable(C.doc["output_schema"])
    assert not schemas._portable({"type": "array", "prefixItems": [{"type": "string"}]})
    assert not schemas._portable({"type": "array", "items": [{"type": "string"}]})  # draft-07 tuple form


def test_patterns_end_where_the_string_ends():
    """JSON Schema's patterns are ECMA-262: ``$`` is the end of the input.  Python's ``re``
    (so jsonschema as it is) lets ``$`` match before a final newline, and a score
    "0.000000\\n" passed the output schema; the contract's checks see it as the contract does,
    both validators, every place a pattern sits, and the message shows the contract's pattern."""
    import jsonschema

    from audit.contract import schemas

    ev = M.evaluate(EXAMPLE["hypotheses"], EXAMPLE["references"])
    good = {"metric": "chrF++", "char_order": 6, "word_order": 2, "beta": 2, "lowercase": False,
            "segment_count": 2, "score": decimal_text(ev.score), "score_fraction": fraction_text(ev.score),
            "segment_scores": [decimal_text(s) for s in ev.segment_scores], "word_tokens": ev.word_tokens}
    for doc in (dict(good, score=good["score"] + "\n"), dict(good, score_fraction=good["score_fraction"] + "\n"),
                dict(good, segment_scores=[good["segment_scores"][0], good["segment_scores"][1] + "\n"])):
        doc = {"result": doc}
        assert jsonschema.Draft202012Validator(C.doc["output_schema"]).is_valid(doc)  # Python's $, not ECMA's
        [error] = C.output_errors(doc)
        assert "\\n' does not match '^(" in error and "$'" in error, error
    assert schemas.ecma_pattern(r"^a$") == r"^a\Z" and schemas.ecma_pattern(r"[$]\$(x|$)") == r"[$]\$(x|\Z)"
    assert schemas.ecma_pattern(r"[]$]$") == r"[]$]\Z" and schemas.ecma_pattern(r"[^]$]") == r"[^]$]"
    nested = {"type": "object", "patternProperties": {"^k$": {"type": "string", "pattern": "^v$"}},
              "additionalProperties": False, "properties": {"p": {"items": {"pattern": "^[0-9]$"}}}}
    assert schemas.errors(nested, {"k": "v", "p": ["1"]}) == []
    assert schemas.errors(nested, {"k\n": "v"}) and schemas.errors(nested, {"k": "v\n"})
    assert schemas.errors(nested, {"p": ["1\n"]})
    with pytest.raises(ValueError, match="regex|regular expression"):
        schemas.check({"pattern": "("})
