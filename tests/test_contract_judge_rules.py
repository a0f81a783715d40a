"""Rules of the contract judge the readings tests reached without stating (issue 34 mutation
triage of audit/contract/judge.py, sample 8 seed 0): a refused request is no failure and any
other answer to it is; a segment_scores list of the wrong length says how many items it has;
a wrong segment score is reported with its value."""

from __future__ import annotations

import copy

from audit.contract.judge import Judge, refusal_failure
from audit.http.client import Reply
from tests.test_contract_readings import C, COUNTED, SPLIT, _answer

FIELDS = {"hypotheses": SPLIT[0], "references": SPLIT[1], "beta": 2, "lowercase": False}


def test_a_refusal_is_what_a_refused_request_should_get():
    assert refusal_failure(Reply("refused", 400, None, "", "HTTP 400"), C) is None
    timeout = refusal_failure(Reply("timeout", None, None, "", "no answer in 5 s"), C)
    assert timeout is not None and timeout.outcome == "timeout" and "no error response" in timeout.detail
    scored = refusal_failure(_answer(*SPLIT, COUNTED), C)
    assert scored is not None and scored.outcome == "value" and scored.detail.startswith("scored it (HTTP 200")


def _segment_scores(reply):
    return reply.body["result"]["segment_scores"]


def test_segment_scores_of_the_wrong_length_say_how_many():
    for n, word in ((1, "item"), (2, "items")):
        reply = copy.deepcopy(_answer(*SPLIT, COUNTED))
        reply.body["result"]["segment_scores"] = _segment_scores(reply)[:n]
        problems, _ = Judge(C).verdict(FIELDS, reply)
        assert [(v.family, v.detail) for v in problems] == [
            ("contract-segment-scores", f"segment_scores has {n} {word} for 3 segments")], problems


def test_a_wrong_segment_score_is_reported_with_its_value():
    reply = copy.deepcopy(_answer(*SPLIT, COUNTED))
    assert Judge(C).verdict(FIELDS, reply)[0] == []
    _segment_scores(reply)[1] = "12.345678"
    problems, _ = Judge(C).verdict(FIELDS, reply)
    assert len(problems) == 1 and problems[0].segment == 1 and "segment_scores[1] 12.345678" in problems[0].detail


def test_word_tokens_no_family_explains_are_the_contracts_own_violation():
    reply = copy.deepcopy(_answer(*SPLIT, COUNTED))
    reply.body["result"]["word_tokens"][1]["reference"] = ["zzz"]
    problems, _ = Judge(C).verdict(FIELDS, reply)
    assert [(v.family, v.segment) for v in problems] == [("contract-word-tokens", 1)], problems
    assert problems[0].detail == 'word_tokens[1].reference is ["zzz"], the contract\'s is ["c", "d", "e"]'


def test_long_token_lists_are_cut_at_160_characters():
    from audit.contract.judge import _short

    exactly = ["x" * 156]  # json: ["xxx...x"] = 160 characters
    assert len(_short(exactly)) == 160 and not _short(exactly).endswith("…")
    longer = ["x" * 157]
    assert len(_short(longer)) == 160 and _short(longer).endswith("…") and _short(longer)[:159] == '["' + "x" * 157


def test_the_segment_count_message_says_segment_or_segments():
    for hyps, refs, n, scores, want in (
            (["a b"], ["a"], 1, ["1.000000", "2.000000"], "segment_scores has 2 items for 1 segment"),
            (["a b", "c d"], ["a", "c"], 2, ["1.000000"], "segment_scores has 1 item for 2 segments")):
        reply = copy.deepcopy(_answer(hyps, refs, COUNTED))
        reply.body["result"]["segment_scores"] = scores
        fields = dict(FIELDS, hypotheses=hyps, references=refs)
        problems, _ = Judge(C).verdict(fields, reply)
        assert [(v.family, v.detail) for v in problems] == [("contract-segment-scores", want)], (n, problems)
