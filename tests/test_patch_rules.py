"""The rules of ``audit.patches`` that the end-to-end patch tests reach only through whole
verifications (issue 34 item 1: survivors of the mutation run on ``audit/patches``,
docs/mutation.md): when an issue repro *holds* after a patch, which repro is shown, the
library's test files and their verdict, the rendered broken tests, and how a failed replay or
an unimportable patched copy is reported.  Hand-made inputs, no process."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from audit.errors import UsageError
from audit.patches import FIXED, STILL, FamilyStatus, Target, Validation, render
from audit.patches import library_tests as lt_mod
from audit.patches.library_tests import test_files as library_test_files
from audit.patches.suggested import ROUNDING, _agrees, _choose

#: the module (the package exports its function ``validate`` under the same name)
validate_mod = importlib.import_module("audit.patches.validate")


def _after(outcome="value", key=None, actual=100.0, expected=100.0, raw="100.0"):
    return {"outcome": outcome, "key": key, "actual": actual, "expected": expected, "raw": raw,
            "expected_fraction": "100"}


# -- when a repro holds after the patch ----------------------------------------------------

def test_a_repro_agrees_only_with_a_number_that_no_family_explains():
    assert _agrees(_after())
    assert _agrees(_after(key=[]))
    assert not _agrees(_after(outcome="exception", key=None))  # no number: not the reference's value
    assert not _agrees(_after(key=["requested-order-divisor"], actual=50.0))


def test_float_rounding_alone_agrees_within_rounding_and_not_beyond():
    near = 100.0 - ROUNDING / 2
    assert _agrees(_after(key=["float32-arithmetic"], actual=near))
    assert _agrees(_after(key=["precision-loss", "float32-arithmetic"], actual=near))
    assert not _agrees(_after(key=["float32-arithmetic"], actual=100.0 - 2 * ROUNDING))
    assert not _agrees(_after(key=["float32-arithmetic"], actual=100.0 - ROUNDING))  # strictly within
    # rounding plus another family: the other one is still there
    assert not _agrees(_after(key=["float32-arithmetic", "no-clipping"], actual=near))
    # no value to compare: not agreeing
    assert not _agrees(_after(key=["float32-arithmetic"], actual=None))
    assert not _agrees(_after(key=["float32-arithmetic"], expected=None))


def _rep(level="sentence", minimal=True, before=40.0, before_raw="40.0", name="m"):
    return {"level": level, "inputs": {"hypothesis": name, "references": ["r"]}, "minimal": minimal,
            "before": before, "before_raw": before_raw}


def test_the_first_repro_that_diverged_and_holds_is_chosen():
    """A minimal repro that does not hold is kept only until a candidate that diverged before
    and holds after comes along; a candidate that did not diverge before is never chosen over it."""
    tried = {"fam": [_rep(), _rep(minimal=False, name="c1"), _rep(minimal=False, name="c2")]}
    after = [_after(key=["fam"], actual=40.0, raw="40.0"), _after(), _after(raw="100.00")]
    before = [{"reproduces": False, "actual": 100.0, "raw": "b1"}, {"reproduces": True, "actual": 30.0, "raw": "b2"}]
    got = _choose(tried, after, before)["fam"]
    assert got["inputs"]["hypothesis"] == "c2" and got["holds"] and not got["minimal"]
    # a candidate's before values are its own replay's, a minimal repro's the finding's
    assert (got["before"], got["before_raw"], got["after"], got["after_raw"]) == (30.0, "b2", 100.0, "100.00")
    assert got["expected"] == 100.0 and got["after_key"] is None


def test_a_minimal_repro_that_holds_is_not_replaced():
    tried = {"fam": [_rep(), _rep(minimal=False, name="c1")]}
    got = _choose(tried, [_after(raw="m-after"), _after(raw="c-after")],
                  [{"reproduces": True, "actual": 1.0, "raw": "c-before"}])["fam"]
    assert got["inputs"]["hypothesis"] == "m" and got["holds"]
    assert (got["before"], got["before_raw"], got["after_raw"]) == (40.0, "40.0", "m-after")


def test_nothing_holds_the_first_tried_is_shown_not_holding():
    tried = {"a": [_rep(name="a")], "b": [_rep(minimal=False, name="b")]}
    got = _choose(tried, [_after(key=["a"], actual=1.0), _after()], [{"reproduces": False, "actual": 5.0,
                                                                         "raw": "5.0"}])
    assert not got["a"]["holds"] and got["a"]["before"] == 40.0
    # b scores the reference's value after, but it did not diverge before: it proves nothing
    assert not got["b"]["holds"] and (got["b"]["before"], got["b"]["before_raw"]) == (5.0, "5.0")
    # nothing replayed at all: no after value, not holding, no before value of a candidate
    got = _choose({"c": [_rep(minimal=False)]}, [], [])["c"]
    assert not got["holds"] and got["after"] is None and got["before"] is None and got["before_raw"] is None


# -- the library's own tests ---------------------------------------------------------------

def test_library_test_files_are_the_patched_modules_then_the_packages_chrf_tests(tmp_path):
    for rel in ("pkg/mod.py", "pkg/tests/test_chrf.py", "pkg/tests/test_other.py", "pkg/a/test_x_chrf_y.py"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("", encoding="utf-8")
    assert library_test_files(tmp_path, ["pkg/mod.py", "pkg/mod.py"]) == [
        "pkg/mod.py", "pkg/a/test_x_chrf_y.py", "pkg/tests/test_chrf.py"]
    assert library_test_files(tmp_path, ["nowhere/mod.py"]) == ["nowhere/mod.py"]


def test_library_tests_run_the_released_files_and_count_what_breaks(tmp_path, monkeypatch):
    """A test file only the patched copy has is not run (the released package cannot run it);
    a patched module is, even a new one.  ``broken``: failing after and not before."""
    site, after = tmp_path / "site", tmp_path / "after"
    for root, rels in ((site, ["pkg/mod.py", "pkg/tests/test_chrf.py"]),
                       (after, ["pkg/mod.py", "pkg/new.py", "pkg/tests/test_chrf.py", "pkg/tests/test_new_chrf.py"])):
        for rel in rels:
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text("", encoding="utf-8")
    runs = []

    def run_tests(root, files, timeout):
        runs.append((root, list(files)))
        failures = ["t.a"] if root == site else ["t.a", "t.b", "t.c"]
        return {"passed": 5 - len(failures), "failed": len(failures), "failures": failures, "error": None}

    examples = {site: {"examples": 1, "failed_on_released": 0, "error": None},
                after: {"examples": 3, "failed_on_released": 2, "error": None}}
    monkeypatch.setattr(lt_mod, "run_tests", run_tests)
    monkeypatch.setattr(lt_mod, "regression_examples", lambda path, module, timeout: examples[path.parents[1]])
    got = lt_mod.library_tests(site, after, ["pkg/mod.py", "pkg/new.py"], "pkg.mod")
    want = ["pkg/mod.py", "pkg/new.py", "pkg/tests/test_chrf.py"]
    assert got["files"] == want and runs == [(site, want), (after, want)]
    assert got["broken"] == 2 and got["regression"] == {"added": 2, "failing_before": 2}


def _validation(broken, families=(FIXED,), error=None):
    v = Validation("nltk", "fix.diff", None, ["pkg/mod.py"], {"nltk": "3.9"}, {}, error=error)
    v.families = [FamilyStatus("nltk", f"fam{i}", s, "sentence", {"hypothesis": "a", "references": ["b"]},
                               100.0, 50.0, 100.0, "value", "value") for i, s in enumerate(families)]
    if broken != "not run":
        side = {"passed": 3, "failed": 0, "failures": [], "error": None}
        after = {"passed": 3 - (broken or 0), "failed": broken or 0,
                 "failures": [f"pkg.mod.t{i}" for i in range(broken or 0)], "error": None}
        v.library_tests = {"files": ["pkg/mod.py"], "before": side, "after": after, "broken": broken}
    return v


def test_validated_needs_a_fix_and_no_broken_library_test():
    assert _validation(0).ok and _validation("not run").ok
    assert _validation(0).broken_tests == 0 and _validation("not run").broken_tests is None
    assert _validation(2).broken_tests == 2 and not _validation(2).ok
    assert not _validation(None).ok  # the library's tests could not run on one side
    assert not _validation(0, families=(STILL,)).ok
    assert not _validation(0, error="the audit after the patch failed (exit 1)").ok


def test_the_rendered_verdict_names_the_broken_tests():
    text = render(_validation(2))
    assert "library's own tests (pkg/mod.py): before 3 passed, 0 failed; after 1 passed, 2 failed" in text
    assert "breaks 2 of the library's own tests: pkg.mod.t0, pkg.mod.t1" in text
    assert text.endswith("patch not validated: 1 fixed, 0 still present, 0 introduced")
    assert "breaks" not in render(_validation(0))


# -- failed replays and an unimportable patched copy ---------------------------------------

def test_a_failed_cross_replay_is_a_usage_error_with_its_exit_status(monkeypatch):
    monkeypatch.setattr(validate_mod, "run_all", lambda jobs, **kw: [(3, None, "")])
    b = {("x", "gone"): {"implementation": "x", "family": "gone", "level": "sentence", "claims": {},
                         "repro": {"hypothesis": "a", "references": ["b"]}}}
    with pytest.raises(UsageError, match=r"^the replay after the patch failed \(exit 3\)$"):
        validate_mod._judge(b, {}, {"after_side": ({}, None)}, before_side=({}, None), work=Path("."), job_kw={})
    monkeypatch.setattr(validate_mod, "run_all", lambda jobs, **kw: [(3, None, "worker said why")])
    with pytest.raises(UsageError, match=r"^worker said why$"):
        validate_mod._judge(b, {}, {"after_side": ({}, None)}, before_side=({}, None), work=Path("."), job_kw={})


@pytest.mark.parametrize("rc, raised", [(2, True), (1, False), (3, False)])
def test_only_an_unimportable_patched_copy_is_a_usage_error(monkeypatch, tmp_path, rc, raised):
    """The after audit exits 2 saying the patched copy is not what it imports: the user's
    setup (exit 2 of validate-patch); any other failure is the patch's (not validated)."""
    msg = "the patched copy is not what the after process imports"
    before = (0, {"adapters": [{"implementation": "x", "version": "1"}], "findings": []}, "")
    monkeypatch.setattr(validate_mod, "prepare_after", lambda *a, **kw: (tmp_path, [], ["x.py"]))
    monkeypatch.setattr(validate_mod, "run_pair", lambda *a, **kw: (before, (rc, None, msg)))
    if raised:
        with pytest.raises(UsageError, match=msg):
            validate_mod.validate(Target(impl="x"), diff="d")
    else:
        assert validate_mod.validate(Target(impl="x"), diff="d").error == msg


# -- verify_suggested's wiring, its processes replaced ---------------------------------------

def test_verify_suggested_asks_each_side_the_right_repros(monkeypatch, tmp_path):
    """The after audit replays every issue repro; the record's candidates (not the minimal
    repros) are also replayed before the patch; an opt-in patch's repros are replayed without
    its keywords, and a value that moved (same outcome) is a changed default.  The package is
    looked up without the working directory."""
    suggested = importlib.import_module("audit.patches.suggested")

    def finding(family, actual):
        return {"implementation": "x", "family": family, "level": "sentence", "expected": 100.0, "actual": actual,
                "outcome": "value", "claims": {}, "repro": {"hypothesis": family, "references": ["r"]}}

    before = [finding("opt", 40.0), finding("plain", 60.0)]
    seen = {}

    def prepare_after(target, **kw):
        seen["prepare"] = kw
        return tmp_path, ["x"], ["x/mod.py"]

    class Job:
        def __init__(self, request, *a, **kw):
            seen["after"] = request

        def wait(self):
            # opt's minimal repro holds; plain's does not (still plain), its candidate does
            checks = [_after(raw="after-0"), _after(key=["plain"], actual=60.0, raw="after-1"), _after(raw="after-2")]
            return 0, {"adapters": [{"implementation": "x", "version": "1"}], "findings": [], "replays": [],
                       "checks": checks}, ""

        def kill(self):
            pass

    def run_all(jobs, **kw):
        seen["jobs"] = {j[2]: j[0] for j in jobs}
        out = []
        for req, _, name, _ in jobs:
            if name == "issue-before":
                out.append((0, {"checks": [{"reproduces": True, "actual": 7.0, "raw": "before-c"}]}, ""))
            else:  # default-after: the opt-in family's repro scores 40.5 without the keywords (was 40.0)
                out.append((0, {"checks": [dict(finding("opt", 40.5))]}, ""))
        return out

    monkeypatch.setattr(suggested, "prepare_after", prepare_after)
    monkeypatch.setattr(suggested, "Job", Job)
    monkeypatch.setattr(suggested, "run_all", run_all)
    monkeypatch.setattr(suggested, "_judge", lambda *a, **kw: [])
    v = suggested.verify_suggested("x", "DIFF", before, families=["opt", "plain"], options={"k": True},
                                   default_kept=["opt"], candidates={"plain": [("sentence", {"hypothesis": "c",
                                                                                             "references": ["r"]})]},
                                   library_tests=False)
    assert v.error is None and seen["prepare"]["with_cwd"] is False
    assert [(c["family"], c["minimal"]) for c in seen["after"]["checks"]] == [("opt", True), ("plain", True),
                                                                            ("plain", False)]
    assert [(c["family"], c["minimal"]) for c in seen["jobs"]["issue-before"]["checks"]] == [("plain", False)]
    assert seen["jobs"]["default-after"]["backend_options"] == {}
    assert [r["family"] for r in seen["jobs"]["default-after"]["checks"]] == ["opt"]
    assert v.default_check == {"unchanged": False, "changed": ["opt"]}
    assert v.repro_checks["opt"]["after_raw"] == "after-0" and v.repro_checks["opt"]["holds"]
    plain = v.repro_checks["plain"]
    assert plain["holds"] and not plain["minimal"]
    assert (plain["before_raw"], plain["after_raw"]) == ("before-c", "after-2")
