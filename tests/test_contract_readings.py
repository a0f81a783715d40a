"""The contract as published (issue 32): the example's exact answer (request -> response body)
as a test vector, in the example's ``result`` envelope; the points the contract's text leaves
open declared with their readings, one convention for ``run``, ``stats`` and the contract
(``reference_impl.conventions``); a replay reported on proof only."""

from __future__ import annotations

import json
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings

from audit.collect import strategies as S
from audit.contract import load
from audit.contract.checks import ContractRun, judge_all, one_reading
from audit.contract.judge import Judge
from audit.contract.probes import _score
from audit.http.client import Reply
from reference_impl import DEFINITIONS, ChrfParams, TextProfile, corpus_score, match_profiles
from reference_impl.conventions import (COUNTED, FOLLOWED, HYPOTHESIS_NGRAMS_WHERE_REFERENCE_HAS_NONE as CONV,
                                        NOT_COUNTED, hypothesis_count)

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples"))

C = load("chrf-plus-plus-compute@1.0.0")
HYP = CONV.id
#: the seed's example request and its exact answer, as published: every field in "result"
REQUEST = {"hypotheses": ["The relationship between cats and dogs is not exactly friendly.",
                          "a good bookshop is just a genteel black hole that knows how to read."],
           "references": ["The relationship between dogs and cats is not exactly friendly.",
                          "A good bookshop is just a genteel Black Hole that knows how to read."]}
RESPONSE = {"result": {
    "metric": "chrF++", "char_order": 6, "word_order": 2, "beta": 2, "lowercase": False, "segment_count": 2,
    "score": "82.872637", "score_fraction": "40260030811255/485806076756",
    "segment_scores": ["83.308483", "82.578862"],
    "word_tokens": [
        {"hypothesis": ["The", "relationship", "between", "cats", "and", "dogs", "is", "not", "exactly", "friendly", "."],
         "reference": ["The", "relationship", "between", "dogs", "and", "cats", "is", "not", "exactly", "friendly", "."]},
        {"hypothesis": ["a", "good", "bookshop", "is", "just", "a", "genteel", "black", "hole", "that", "knows", "how",
                        "to", "read", "."],
         "reference": ["A", "good", "bookshop", "is", "just", "a", "genteel", "Black", "Hole", "that", "knows", "how",
                       "to", "read", "."]}]}}
#: a corpus the readings score differently: the one-word reference has no word bigram
SPLIT = (["a b", "c d e", "abcdefg"], ["a", "c d e", "ab"])


# -- the test vector --------------------------------------------------------------------------
def test_the_published_example_request_gives_exactly_this_answer():
    """The built-in contract carries the example's whole answer, and both example services
    (the reference arithmetic, and sacreBLEU's own) answer the request with exactly it, byte
    for byte once parsed: the envelope, the order of the fields, every value."""
    import chrf_sacrebleu_service
    import chrf_service

    assert C.example_request == REQUEST
    assert C.example_response == RESPONSE
    assert list(C.example_response["result"]) == ["metric", "char_order", "word_order", "beta", "lowercase",
                                                  "segment_count", "score", "score_fraction", "segment_scores",
                                                  "word_tokens"]  # the seed's Output order
    for service in (chrf_service.Service(), chrf_sacrebleu_service.SacrebleuService()):
        status, body = service.handle(json.dumps(REQUEST).encode())
        assert status == 200 and json.dumps(body) == json.dumps(RESPONSE)
    assert C.output_errors(RESPONSE) == [] and C.output_errors(RESPONSE["result"])  # the envelope is required
    assert Judge(C).judge({**REQUEST, "beta": 2, "lowercase": False}, Reply("json", 200, RESPONSE, "", "")) == []


def test_an_answer_without_the_envelope_breaks_the_output_schema():
    """The un-enveloped answer (what examples/chrf_service.py gave before) is not the
    contract's: its fields are not where the published example has them."""
    [v] = Judge(C).judge({**REQUEST, "beta": 2, "lowercase": False},
                         Reply("json", 200, RESPONSE["result"], "", ""))
    assert v.family == "contract-response-schema" and "'result' is a required property" in v.detail


# -- one convention ---------------------------------------------------------------------------
def test_the_reference_follows_the_reading_the_convention_names_for_each_definition():
    """reference_impl.conventions says which reading each definition follows; the
    reference's statistics are that reading (a segment whose reference is shorter than an
    order: the hypothesis count of that order is 0 when not counted)."""
    for definition in DEFINITIONS:
        p = ChrfParams.make(word_order=2, definition=definition)
        stats = match_profiles(TextProfile("abcdefg hij", p), TextProfile("ab", p))
        totals = TextProfile("abcdefg hij", p).totals
        assert list(stats.hyp) == [hypothesis_count(t, r, FOLLOWED[definition]) for t, r in zip(totals, stats.ref)]
        assert FOLLOWED[definition] == NOT_COUNTED and stats.hyp[5] == 0 < totals[5]
    assert CONV.note(NOT_COUNTED) == "hypothesis n-grams of a segment without reference n-grams: not counted, " \
                                     "as sacreBLEU 2.x"


@settings(max_examples=150, deadline=None)
@given(S.corpus_inputs(max_refs=1))
def test_each_reading_of_the_contract_is_a_reference_exactly(hr):
    """The contract's corpus score under "not counted" is the reference's sacrebleu chrF++
    (sacreBLEU 2.x's convention), exactly; under "counted" it is what the contract's words
    say literally (test_contract_definition holds that one to the registry's model)."""
    hyps, refs = hr
    refs = [r[0] for r in refs]
    ev = C.metric.evaluate(hyps, refs, readings=C.readings(HYP))
    assert ev.readings[NOT_COUNTED] == corpus_score(hyps, [[r] for r in refs], word_order=2).score
    assert ev.readings[COUNTED] == C.metric.evaluate(hyps, refs).score == ev.score


def test_the_not_counted_reading_is_sacrebleus_own_score():
    from sacrebleu.metrics import CHRF

    ev = C.metric.evaluate(*SPLIT, readings=C.readings(HYP))
    assert ev.distinguishes and ev.readings[COUNTED] == Fraction(4200, 53)
    assert abs(float(ev.readings[NOT_COUNTED]) - CHRF(word_order=2).corpus_score(SPLIT[0], [SPLIT[1]]).score) < 1e-9


# -- the judge accepts every declared reading and names the one followed -----------------------
def _answer(hyps, refs, reading):
    import chrf_service

    body = chrf_service.Service().handle(json.dumps({"hypotheses": hyps, "references": refs}).encode())[1]
    value = C.metric.evaluate(hyps, refs, readings=(reading,)).score
    from audit.contract.definition import decimal_text, fraction_text

    body["result"].update(score=decimal_text(value), score_fraction=fraction_text(value))
    return Reply("json", 200, body, "", "HTTP 200")


@pytest.mark.parametrize("reading", [COUNTED, NOT_COUNTED])
def test_an_answer_under_either_declared_reading_keeps_the_promise_and_is_named(reading):
    fields = {"hypotheses": SPLIT[0], "references": SPLIT[1], "beta": 2, "lowercase": False}
    problems, followed = Judge(C).verdict(fields, _answer(*SPLIT, reading))
    assert problems == [] and followed == reading


def test_an_answer_under_no_reading_names_both_values():
    fields = {"hypotheses": SPLIT[0], "references": SPLIT[1], "beta": 2, "lowercase": False}
    reply = _answer(*SPLIT, COUNTED)
    reply.body["result"].update(score_fraction="1/1", score="1.000000")
    problems, followed = Judge(C).verdict(fields, reply)
    assert followed is None and [v.family for v in problems] == ["contract-corpus-score"]
    assert "4200/53" in problems[0].detail and "51000/569" in problems[0].detail and "sacreBLEU 2.x" in problems[0].detail


def test_a_contract_that_declares_one_reading_holds_answers_to_it(tmp_path):
    doc = json.loads(json.dumps(C.doc))
    doc["ambiguities"][0]["readings"] = [COUNTED]
    (tmp_path / "c.json").write_text(json.dumps(doc))
    fields = {"hypotheses": SPLIT[0], "references": SPLIT[1], "beta": 2, "lowercase": False}
    [v] = Judge(load(str(tmp_path / "c.json"))).judge(fields, _answer(*SPLIT, NOT_COUNTED))
    assert v.family == "contract-corpus-score"


class _Client:
    """Answers each body with ``answer(body)`` (a Reply)."""

    def __init__(self, answer):
        self.answer, self.sent = answer, []

    def confirmed(self, body, on_written=None):
        self.sent.append(body)
        if on_written is not None:
            on_written()
        return self.answer(body)


def _probe(name, hyps, refs):
    return _score(C, name, hyps, refs)


def test_two_corpora_that_legitimately_score_the_same_are_no_replay():
    """Issue 32: a service following sacreBLEU 2.x answered two different corpora with the
    same answer -- legitimately: they differ in whitespace only, so the same tokens and
    n-grams.  Under the literal reading both answers were wrong, and the second, being the
    first's, was called a replay ("state kept across requests")."""
    a = _probe("a corpus", ["a b", "x y"], ["a", "x y"])
    b = _probe("the same corpus, other whitespace", ["a  b", "x\ty"], ["a", "x  y"])
    run = ContractRun()
    judge_all(run, Judge(C), [a, b], _Client(lambda body: _answer(body["hypotheses"], body["references"],
                                                                    NOT_COUNTED)))
    assert run.broken == {} and [p.name for _, p, _ in run.readings[NOT_COUNTED]] == [a.name, b.name]


def test_the_same_wrong_answer_twice_is_the_answers_fault_not_a_replay():
    """Wrong under every reading, and equal to an earlier answer that was itself wrong: no
    proof of a replay (the same bug gives the same wrong answer), so the value promise."""
    a = _probe("a corpus", ["a b", "x y"], ["a", "x y"])
    b = _probe("the same corpus, other whitespace", ["a  b", "x\ty"], ["a", "x  y"])

    def wrong(body):
        r = _answer(body["hypotheses"], body["references"], NOT_COUNTED)
        r.body["result"].update(score_fraction="1/2", score="0.500000")
        return r
    run = ContractRun()
    judge_all(run, Judge(C), [a, b], _Client(wrong))
    assert set(run.broken) == {"contract-corpus-score"} and run.broken["contract-corpus-score"].count == 2


def test_a_replayed_right_answer_is_proof():
    """Wrong under every reading and byte for byte the right answer to an earlier, different
    request: a replay."""
    a = _probe("first", ["the cat sat"], ["the cat"])
    b = _probe("other references", ["the cat sat"], ["a dog"])
    first = _answer(["the cat sat"], ["the cat"], COUNTED)
    run = ContractRun()
    judge_all(run, Judge(C), [a, b], _Client(lambda body: first))
    assert set(run.broken) == {"contract-request-independence"}
    assert "right answer to an earlier, different request (first)" in run.broken["contract-request-independence"].violation.detail


def test_answers_that_follow_two_readings_break_the_corpus_score_promise():
    a = _probe("one", *SPLIT)
    b = _probe("two", SPLIT[0] + ["q r"], SPLIT[1] + ["q"])
    readings = iter([COUNTED, NOT_COUNTED])
    run = ContractRun()
    judge = Judge(C)
    judge_all(run, judge, [a, b], _Client(lambda body: _answer(body["hypotheses"], body["references"],
                                                                 next(readings))))
    assert run.broken == {}
    one_reading(run, judge)
    [(fam, broken)] = run.broken.items()
    assert fam == "contract-corpus-score" and broken.probe.name == "two"
    assert "not counted, as sacreBLEU 2.x here" in broken.violation.detail and "in one" in broken.violation.detail


# -- stats names the same convention ----------------------------------------------------------
def test_stats_names_the_convention_a_point_estimate_follows():
    """`chrf-audit stats` holds an interval's point estimate to the claimed definition's
    reading (sacreBLEU 2.x: not counted) and, when a wrong estimate is the other reading's
    corpus score on every answer, says so by the convention's id and words."""
    from audit.stats import callables
    from audit.stats.checks import Settings
    from audit.stats.runner import audit_procedure

    proc = callables.make("tests.planted_stats_convention:ci_counts_hypothesis_ngrams", "ci")
    try:
        results = audit_procedure(proc, Settings(trials=40, largest=300))
    finally:
        getattr(proc, "close", lambda: None)()
    [r] = [r for r in results if r.is_finding and r.family == "ci-point-estimate"]
    assert r.evidence["convention"] == HYP and r.evidence["reading"] == COUNTED
    assert CONV.note(COUNTED) in r.summary and HYP in r.summary and CONV.words(NOT_COUNTED) in r.summary
    assert CONV.note(NOT_COUNTED) in r.test


def _state_run(alter):
    """``state.check`` against a service that answers right, but for what ``alter(body, count)``
    makes of the count-th answer to one body."""
    import chrf_service

    from audit.contract import state

    service, seen = chrf_service.Service(), {}

    def answer(body):
        key = json.dumps(body, sort_keys=True)
        seen[key] = seen.get(key, 0) + 1
        status, out = service.handle(json.dumps(body).encode())
        reply = Reply("json", status, out, "", f"HTTP {status}") if status == 200 else \
            Reply("refused", status, out, "", f"HTTP {status}")
        return alter(body, seen[key], reply)
    run = ContractRun()
    state.check(run, Judge(C), _Client(answer), C)
    return run


def test_the_same_request_answered_otherwise_after_other_requests_is_proof():
    first = {"hypotheses": ["the cat sat on the mat", "Dogs Bark."], "references": ["the cat is on the mat",
                                                                                   "dogs bark."]}

    def changed(body, count, reply):  # the third answer to the first request: another request's
        if body == first and count == 3:
            return _answer(["the cat sat on the mat", "Dogs Bark."], ["a cat sat there", "Cats meow."], COUNTED)
        return reply
    run = _state_run(changed)
    assert set(run.broken) == {"contract-request-independence"}
    assert "answered the same twice in a row, is answered differently after 3 other requests" in \
        run.broken["contract-request-independence"].violation.detail
    assert _state_run(lambda body, count, reply: reply).broken == {}


def test_no_answer_after_other_requests_is_no_proof():
    """The repeated request got no answer (its retries spent, say): nothing to compare."""
    first = {"hypotheses": ["the cat sat on the mat", "Dogs Bark."], "references": ["the cat is on the mat",
                                                                                   "dogs bark."]}
    run = _state_run(lambda body, count, reply: Reply("server-error", 503, None, "busy", "HTTP 503")
                     if body == first and count == 3 else reply)
    assert "contract-request-independence" not in run.broken
