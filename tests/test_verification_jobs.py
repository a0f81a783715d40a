"""What ``audit.enrich.verification`` hands the one judge, and what it hands the reports, without
running a verification (issue 34 item 1: the survivors of the mutation run on
``audit/enrich/verification.py``, docs/mutation.md).  ``verify_suggested`` and ``summary`` are
replaced by recorders: only the arguments ``_compute`` builds from the upstream record are
checked here (the verification itself: tests/test_patch_judge.py, tests/test_verify_suggested.py)."""

from __future__ import annotations

import pytest

import audit.patches as patches
from audit import upstream
from audit.enrich import verification, verify_cache

FOUR = ["requested-order-divisor", "f-score-averaged", "whitespace-set-white-space", "corpus-macro-average"]
FINDINGS = [{"implementation": "nltk", "family": f, "level": "sentence"} for f in FOUR]


@pytest.fixture()
def judged(monkeypatch):
    """The calls of verify_suggested and summary (which answers what it was asked)."""
    calls = []

    def verify_suggested(implementation, diff, before, **kw):
        calls.append({"implementation": implementation, "diff": diff, "before": before, **kw})
        return "validation"

    monkeypatch.setattr(patches, "verify_suggested", verify_suggested)
    monkeypatch.setattr(patches, "summary", lambda v, families: {"validation": v, "families": list(families)})
    return calls


def test_a_patch_is_judged_for_every_family_it_fixes_with_its_keywords_gates_and_check(judged):
    """nltk's three definition differences are one patch: judged for the three, called with
    the three keywords, each opt-in (the default must stay), with nltk's gates and the record's
    check that the three together are sacreBLEU's chrF."""
    from audit.upstream import nltk_record

    got = verification._compute("nltk", "requested-order-divisor", "DIFF", FINDINGS)
    fams = ["requested-order-divisor", "f-score-averaged", "corpus-macro-average"]
    assert got == {"validation": "validation", "families": fams}
    [call] = judged
    assert call["implementation"] == "nltk" and call["diff"] == "DIFF" and call["before"] == FINDINGS
    assert call["families"] == fams
    assert call["options"] == {"effective_order": True, "order_average": "precision_recall", "average": "micro"}
    assert call["default_kept"] == fams
    assert call["candidates"] == upstream.issue_candidates("nltk")
    assert call["gates"] is nltk_record.GATES
    assert call["check"] == (nltk_record.CHECK, "average='micro': differs from CHRF() in 0 of 300 ")


def test_a_fix_is_judged_for_its_family_with_the_gates_and_no_check(judged):
    """The whitespace fix changes the default: no keyword, nothing kept, no check; the gates."""
    from audit.upstream import nltk_record

    got = verification._compute("nltk", "whitespace-set-white-space", "DIFF", FINDINGS)
    assert got["families"] == ["whitespace-set-white-space"]
    [call] = judged
    assert call["options"] == {} and call["default_kept"] == [] and call["check"] is None
    assert call["gates"] is nltk_record.GATES


def test_verify_goes_through_the_cache_with_the_whole_key(judged, monkeypatch):
    seen = []

    def cached(implementation, family, diff, before_findings, compute, accept):
        seen.append((implementation, family, diff, before_findings, accept))
        return compute()

    monkeypatch.setattr(verify_cache, "cached", cached)
    got = verification._verify("nltk", "whitespace-set-white-space", "DIFF", FINDINGS)
    [(*args, accept)] = seen
    assert args == ["nltk", "whitespace-set-white-space", "DIFF", FINDINGS]
    assert got == {"validation": "validation", "families": ["whitespace-set-white-space"]}
    assert len(judged) == 1
    # what the cache may give back is checked against this patch's shape: not anything
    assert accept({"verified": True, "status": "verified", "families": ["whitespace-set-white-space"]}) is False


def test_as_fields_a_summary_and_a_plain_verdict():
    summary = {"verified": False, "status": "not verified: it introduces no-clipping"}
    assert verification.as_fields(summary) == {"verified": False, "verification": summary}
    ok = {"verified": True, "status": "verified"}
    assert verification.as_fields(ok) == {"verified": True, "verification": ok}
    # a summary without a verdict is not "verified"; a plain value is the verdict itself
    assert verification.as_fields({"status": "?"})["verified"] is False
    assert verification.as_fields(None) == {"verified": None}
    assert verification.as_fields(True) == {"verified": True}
