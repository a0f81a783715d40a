"""The one judge of a patch (``audit.patches.verdict``, issue 31 item 4): "verified" only when
every family the patch is meant to fix is fixed, none is introduced, each family's issue
repro scores the reference's value on the patched copy, an opt-in patch leaves the default
unchanged, none of the library's own tests breaks, every one of the library's gates passes
(issue 42 item 3: "not checked" when one could not run) and the record's check holds.
Hand-made validations for each reason, then real nltk patches: both patches together and the
definition patch judged for all four families, a patch that breaks one of nltk's doctests, and
a repro that fails after its own patch."""

from __future__ import annotations

import pytest

from audit import upstream
from audit.patches import FIXED, INTRODUCED, STILL, FamilyStatus, Validation, summary, verdict, verify_suggested
from audit.upstream import nltk_patches
from audit.upstream._base import apply_edits
from audit.upstream.patching import make_diff

FOUR = ["requested-order-divisor", "f-score-averaged", "whitespace-set-white-space", "corpus-macro-average"]
GOOD_TESTS = {"files": ["m.py"], "before": {"passed": 2, "failed": 0, "failures": [], "error": None},
              "after": {"passed": 2, "failed": 0, "failures": [], "error": None}, "broken": 0, "regression": None}


def _validation(fixed=FOUR, still=(), introduced=(), holds=True, tests=GOOD_TESTS, default=None) -> Validation:
    v = Validation("nltk", "p", None, ["m.py"], {}, {}, library_tests=tests, default_check=default)
    for status, fams in ((FIXED, fixed), (STILL, still), (INTRODUCED, introduced)):
        v.families += [FamilyStatus("nltk", f, status, "sentence", {}, 1.0, 0.5, 1.0) for f in fams]
    v.repro_checks = {f: {"holds": holds, "after": 0.8, "after_raw": "0.8", "expected": 100.0} for f in FOUR}
    return v


def test_verified_only_when_everything_holds():
    assert verdict(_validation(), FOUR) == {"verified": True, "status": "verified"}


def test_a_partial_fix_is_not_verified():
    """The mutation probe of issue 31: a combined patch fixing 3 of 4 families."""
    v = _validation(fixed=FOUR[:3], still=FOUR[3:])
    assert verdict(v, FOUR) == {"verified": False, "status": "not verified: it fixes 3 of 4 families "
                                                            "(corpus-macro-average still present)"}
    assert verdict(v, FOUR[:3])["verified"]  # what it does fix, it fixes


def test_each_reason_not_verified():
    assert verdict(_validation(introduced=["no-clipping"]), FOUR)["status"] == "not verified: it introduces no-clipping"
    assert verdict(_validation(holds=False), FOUR)["status"] == (
        "not verified: after the patch the repro of requested-order-divisor scores 0.8, not the expected 100.0")
    broken = dict(GOOD_TESTS, after={"passed": 1, "failed": 1, "failures": ["m.f"], "error": None}, broken=1)
    assert verdict(_validation(tests=broken), FOUR) == {"verified": False,
                                                        "status": "breaks 1 of the library's own tests"}
    assert verdict(_validation(tests=None), FOUR)["status"] == "not verified: the library's own tests were not run"
    norun = dict(GOOD_TESTS, after={"passed": 0, "failed": 0, "failures": [], "error": "ImportError: x"}, broken=None)
    assert verdict(_validation(tests=norun), FOUR)["status"] == (
        "not verified: the library's own tests could not run (ImportError: x)")
    changed = {"unchanged": False, "changed": ["f-score-averaged"]}
    assert verdict(_validation(default=changed), FOUR)["status"].endswith("(the default changed)")
    v = _validation()
    v.error = "the audit after the patch failed (exit 1)"
    assert verdict(v, FOUR)["status"] == "not verified: the audit after the patch failed (exit 1)"
    v = _validation()
    del v.repro_checks["f-score-averaged"]
    assert verdict(v, FOUR)["status"] == "not verified: no repro of f-score-averaged was replayed after the patch"


def _gates(result: str, detail=None) -> dict:
    return {"where": "the library's .pre-commit-config.yaml", "not_run": [],
            "before": [{"gate": "black", "result": "passed", "detail": None}],
            "after": [{"gate": "black", "result": result, "detail": detail}]}


def test_a_gate_that_fails_or_could_not_run_keeps_the_patch_from_verified():
    v = _validation()
    v.gates_wanted, v.gates = True, _gates("passed")
    assert verdict(v, FOUR) == {"verified": True, "status": "verified"}
    v.gates = _gates("failed", "it rewrites 2 line(s)")
    assert verdict(v, FOUR) == {"verified": False,
                                "status": "not verified: the patched file fails black (it rewrites 2 line(s))"}
    v.gates = _gates("not run", "cannot install black==25.11.0: no index")
    assert verdict(v, FOUR) == {"verified": False,
                                "status": "not checked: black (cannot install black==25.11.0: no index)"}
    v.gates = None  # wanted, never run
    assert verdict(v, FOUR)["status"] == "not checked: the library's gates (no record of them)"
    v = _validation()
    v.check = {"output": ["differs from CHRF() in 3 of 300"], "holds": False, "error": None}
    assert verdict(v, FOUR)["status"] == ("not verified: the check of the keywords together does not find the "
                                          "definition they are said to give")
    v.check = {"output": [], "holds": False, "error": "ModuleNotFoundError: No module named 'sacrebleu'"}
    assert "could not run (ModuleNotFoundError" in verdict(v, FOUR)["status"]


@pytest.fixture(scope="module")
def before():
    from tests.fixtures.report_examples import nltk_findings

    return [f.to_dict() for f in nltk_findings()]


def _diff(fams) -> str:
    rel, old, new = apply_edits("nltk.translate.chrf_score", nltk_patches.edits(fams))
    return make_diff(rel, old, new)


def test_both_patches_together_verified_and_the_definition_patch_judged_for_four_is_not(before):
    """Both patches applied together fix all four (each repro holds with every keyword on,
    nltk's doctests pass); the definition patch alone, judged for all four, is not verified."""
    kept = [f for f in FOUR if upstream.patch_options("nltk", [f])]
    v = verify_suggested("nltk", _diff(FOUR), before, families=FOUR, options=upstream.patch_options("nltk", FOUR),
                         default_kept=kept, candidates=upstream.issue_candidates("nltk"))
    got = summary(v, FOUR)
    assert got["verified"] is True, got
    assert all(r["holds"] for r in got["repros"].values()) and got["library_tests"]["broken"] == 0
    assert got["default_unchanged"] is True
    three = [f for f in FOUR if f != "whitespace-set-white-space"]
    assert upstream.patch("nltk", three[0]) == _diff(three)
    v = verify_suggested("nltk", _diff(three), before, families=FOUR, options=upstream.patch_options("nltk", three),
                         default_kept=three, candidates=upstream.issue_candidates("nltk"), library_tests=False)
    assert {s.family: s.status for s in v.families}["whitespace-set-white-space"] == STILL
    assert verdict(v, FOUR) == {"verified": False, "status": "not verified: it fixes 3 of 4 families "
                                                            "(whitespace-set-white-space still present)"}


def test_a_patch_that_breaks_a_doctest_is_not_verified(before):
    """The whitespace fix plus a wrong expected value in corpus_chrf's doctest: the family is
    fixed and nothing is introduced, but one of nltk's own tests breaks."""
    diff = _diff(["whitespace-set-white-space"])
    rel, old, new = apply_edits("nltk.translate.chrf_score", nltk_patches.edits(["whitespace-set-white-space"])
                                + [("        0.3910...\n", "        0.3813...\n")])
    diff = make_diff(rel, old, new)
    v = verify_suggested("nltk", diff, before, families=["whitespace-set-white-space"])
    assert [s.family for s in v.of(FIXED)] == ["whitespace-set-white-space"] and not v.of(INTRODUCED)
    assert v.library_tests["after"]["failures"] == ["chrf_score.corpus_chrf"] or \
        v.library_tests["after"]["failures"][0].endswith("corpus_chrf")
    assert verdict(v, ["whitespace-set-white-space"]) == {"verified": False,
                                                          "status": "breaks 1 of the library's own tests"}


def test_a_repro_that_fails_after_its_own_patch(before):
    """The audit's smallest whitespace repro ("aaaaaa" against "aaaaa" + U+001E) scores
    0.7975... after the whitespace patch alone (the reference becomes 5 characters: the divisor
    starts to matter): not verified.  With the record's candidate ("aaaaaa" + U+001E), which
    diverges before and scores 1.0 after, the issue shows that one and the patch is verified."""
    from tests.fixtures.report_examples import _nltk_finding

    ws = _nltk_finding("whitespace-set-white-space", "sentence",
                       {"hypothesis": "aaaaaa", "references": ["aaaaa\u001e"]}, ["whitespace-set-white-space"]).to_dict()
    mine = [f for f in before if f["family"] != "whitespace-set-white-space"] + [ws]
    diff = upstream.patch("nltk", "whitespace-set-white-space")
    v = verify_suggested("nltk", diff, mine, families=["whitespace-set-white-space"], library_tests=False)
    chk = v.repro_checks["whitespace-set-white-space"]
    assert chk["minimal"] and not chk["holds"] and chk["after_raw"] == "0.7975359516526731"
    assert verdict(v, ["whitespace-set-white-space"])["status"].startswith(
        "not verified: after the patch the repro of whitespace-set-white-space scores 0.7975359516526731")
    v = verify_suggested("nltk", diff, mine, families=["whitespace-set-white-space"],
                         candidates=upstream.issue_candidates("nltk"))
    chk = v.repro_checks["whitespace-set-white-space"]
    assert chk["holds"] and not chk["minimal"]
    assert chk["inputs"] == {"hypothesis": "aaaaaa", "references": ["aaaaaa\u001e"]}
    assert (chk["before_raw"], chk["after_raw"], chk["expected"]) == ("0.7530918510400734", "1.0", 100.0)
    assert verdict(v, ["whitespace-set-white-space"]) == {"verified": True, "status": "verified"}
