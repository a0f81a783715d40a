"""``audit.patches.verify_suggested``: the report's patch verification on the path of
``validate-patch`` (the patched copy audited and the before repros replayed; a family is
verified fixed only when its own repro agrees with the reference after the patch).

The planted package ``hidepkg`` (written into a temporary directory, imported through
PYTHONPATH like any installed package) halves its score whenever the hypothesis contains a
marker that a 20-example search never generates; the user's own cases found it."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from audit.patches import FIXED, INTRODUCED, STILL, Target, verify_suggested
from audit.patches.validate import _judge


def _fixes(v, family) -> bool:
    """The family is fixed (its repro agrees after the patch), without error or new family."""
    return (v.error is None and any(s.family == family and s.status == FIXED for s in v.families)
            and not v.of(INTRODUCED))

IMPL = "hidepkg.m:sentence"
MODULE = '''\
"""A chrF that halves its score when the hypothesis contains the marker (a planted bug)."""

from reference_impl import sentence_score

MARKER = "zq#"


def _buggy(hypothesis):
    return MARKER in hypothesis


def sentence(hypothesis, references):
    score = float(sentence_score(hypothesis, references).score)
    return score / 2 if _buggy(hypothesis) else score


VERSION = "1.0"
'''


def _diff(new: str, old: str = "    return MARKER in hypothesis") -> str:
    """A patch of hidepkg/m.py replacing its line ``old`` by the line(s) ``new``."""
    lines = MODULE.splitlines()
    i = lines.index(old)
    added = new.split("\n")
    return (f"--- a/hidepkg/m.py\n+++ b/hidepkg/m.py\n@@ -{i},3 +{i},{len(added) + 2} @@\n {lines[i - 1]}\n"
            f"-{old}\n" + "".join(f"+{line}\n" for line in added) + f" {lines[i + 1]}\n")


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    """(site directory holding hidepkg, the findings of the user's audit of it: 50 examples
    plus a case file holding the marker)."""
    from audit.adapters import resolve
    from audit.collect.runner import run_audit

    site = tmp_path_factory.mktemp("site")
    (site / "hidepkg").mkdir()
    (site / "hidepkg" / "__init__.py").write_text("")
    (site / "hidepkg" / "m.py").write_text(MODULE)
    cases = tmp_path_factory.mktemp("usercases")
    (cases / "marker.json").write_text(json.dumps(
        {"id": "marker", "level": "sentence", "inputs": {"hypothesis": "the zq# cat", "references": ["the cat"]}}))
    mp = pytest.MonkeyPatch()
    mp.syspath_prepend(str(site))
    mp.setenv("PYTHONPATH", os.pathsep.join([str(site)] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
    adapters = resolve(IMPL)
    try:
        result = run_audit(adapters, seed=0, max_examples=50, cases_dir=cases, derandomize=True)
    finally:
        for a in adapters:
            a.close()
    yield site, [f.to_dict() for f in result.findings]
    mp.undo()


def test_the_planted_bug_is_found_by_the_users_audit(planted):
    _, before = planted
    assert len(before) == 1
    f = before[0]
    assert f["implementation"] == IMPL and "zq#" in f["repro"]["hypothesis"]
    assert f["outcome"] == "value" and f["actual"] == pytest.approx(f["expected"] / 2, abs=1e-9)


def test_a_patch_that_hides_the_family_from_the_search_is_not_verified(planted, tmp_path, monkeypatch):
    """The patch narrows the bug to the exact repro: the 20-example after audit no longer
    finds the family (the old re-audit path called that "verified"), but the before repro,
    replayed on the patched copy, still diverges: still present, not verified.  Run from a
    directory whose cases/ holds that very repro: were it used, the after audit would find
    the family (the note would be empty)."""
    _, before = planted
    f = before[0]
    (tmp_path / "cases").mkdir()
    (tmp_path / "cases" / "repro.json").write_text(json.dumps({"level": "sentence", "inputs": f["repro"]}))
    monkeypatch.chdir(tmp_path)
    hyp = f["repro"]["hypothesis"]
    diff = _diff(f"    return hypothesis == {hyp!r}")
    v = verify_suggested(IMPL, diff, before)
    assert v.error is None and v.files == ["hidepkg/m.py"]
    [s] = v.families
    assert (s.family, s.status) == (f["family"], STILL)
    assert s.note == "the after search missed it; its repro still diverges"  # absent from the after audit
    assert s.before == f["actual"] and s.after == pytest.approx(f["expected"] / 2, abs=1e-9)
    assert not _fixes(v, f["family"]) and not v.ok


def test_a_real_fix_of_the_planted_bug_is_verified(planted):
    _, before = planted
    f = before[0]
    v = verify_suggested(IMPL, _diff("    return False"), before)
    assert v.error is None and [(s.family, s.status) for s in v.families] == [(f["family"], FIXED)]
    assert v.families[0].after == pytest.approx(f["expected"], abs=1e-9)
    assert _fixes(v, f["family"])


def test_a_patch_that_breaks_the_import_is_an_error(planted):
    _, before = planted
    f = before[0]
    v = verify_suggested(IMPL, _diff("    return MARKER in hypothesis\nraise ImportError('broken by the patch')"),
                         before)
    assert v.error and "broken by the patch" in v.error, v.error
    assert not v.families and not _fixes(v, f["family"])


def test_a_patch_that_returns_garbage_introduces_families(planted):
    _, before = planted
    f = before[0]
    v = verify_suggested(IMPL, _diff("    return True"), before)
    assert v.error is None
    assert v.of(INTRODUCED), v  # the halved score everywhere: found after, fine before
    assert all(s.before_outcome == "value" and s.before == pytest.approx(s.expected, abs=1e-9)
               for s in v.of(INTRODUCED))
    assert not _fixes(v, f["family"])
    v = verify_suggested(IMPL, _diff("    return 'garbage'", old="    return score / 2 if _buggy(hypothesis) else score"),
                         before)
    assert v.error is None and v.of(INTRODUCED) and not _fixes(v, f["family"])
    assert {s.after_outcome for s in v.of(INTRODUCED)} != {"value"}  # not a number


@pytest.mark.parametrize("cases", [None, "garbage"])
def test_independent_of_the_current_directory(tmp_path, monkeypatch, cases):
    """The same answer from a directory without cases/ and from one whose cases/ holds
    garbage JSON (which fails any audit that reads it): the packaged cases are used and every
    process runs in a temporary directory."""
    from audit import upstream
    from tests.fixtures.report_examples import nltk_findings

    if cases:
        (tmp_path / "cases").mkdir()
        (tmp_path / "cases" / "x.json").write_text("{ not json")
    monkeypatch.chdir(tmp_path)
    before = [f.to_dict() for f in nltk_findings()]
    v = verify_suggested("nltk", upstream.patch("nltk", "requested-order-divisor"), before,
                         options=upstream.patch_options("nltk", ["requested-order-divisor"]), library_tests=False)
    assert v.error is None and _fixes(v, "requested-order-divisor")
    assert {s.family: s.status for s in v.families} == {
        "requested-order-divisor": FIXED, "f-score-averaged": STILL, "corpus-macro-average": STILL,
        "whitespace-set-white-space": STILL}
    assert [s.note for s in v.families if s.status == STILL] == ["", "", ""]  # each found by the after audit


def test_judge_classifies_replays_without_processes():
    """The shared classification on hand-made sides: a vanished family is fixed only when its
    repro now scores what the reference says, or diverges only as a family it had before and
    no farther; a repro that diverges in a new way, or could not be replayed, is not fixed."""
    def finding(family, actual=1.0):
        return {"implementation": "x", "family": family, "level": "sentence", "expected": 2.0, "actual": actual,
                "outcome": "value", "claims": {}, "repro": {"hypothesis": family, "references": ["r"]}}

    def replay(family, reproduces, key=None, outcome="value"):
        return {"implementation": "x", "family": family, "reproduces": reproduces, "key": key, "actual": 2.0,
                "outcome": outcome}

    b = {("x", f): finding(f) for f in ("fixed", "hidden", "other", "known", "unreplayable", "kept")}
    a = {("x", "kept"): finding("kept", 1.5)}
    replays = {"after": {("x", "fixed"): replay("fixed", False), ("x", "hidden"): replay("hidden", True, ["hidden"]),
                         ("x", "other"): replay("other", False, ["no-clipping"]),
                         ("x", "known"): replay("known", False, ["kept"]),
                         ("x", "unreplayable"): replay("unreplayable", False, outcome="not replayed: ValueError: x")}}
    out = {s.family: (s.status, s.note) for s in _judge(b, a, replays, before_side=None, work=None, job_kw={})}
    assert out == {
        "fixed": (FIXED, ""),
        "hidden": (STILL, "the after search missed it; its repro still diverges"),
        "other": (STILL, "its repro still diverges, now as no-clipping: a divergence it did not have before"),
        "known": (FIXED, "its repro now diverges only as kept, which the implementation had before"),
        "unreplayable": (STILL, "the after search missed it; its repro could not be checked "
                                "(not replayed: ValueError: x)"),
        "kept": (STILL, ""),
    }


def test_target_packages_of_builtin_names():
    assert Target(impl="torchmetrics-chrf").packages() == ["torchmetrics"]
    assert Target(impl="sacrebleu-chrf++").packages() == ["sacrebleu"]
    assert Target(impl="nltk").packages() == ["nltk"]


def test_enrich_verifies_through_the_shared_path(monkeypatch, tmp_path):
    """``enrich(verify=True)`` marks a suggested nltk patch verified through
    ``verify_suggested`` (one finding, one verification; an empty verification cache, so
    that it is computed here)."""
    monkeypatch.setenv("CHRF_AUDIT_CACHE", str(tmp_path))
    from audit.enrich import enrich
    from audit.findings import AuditResult
    from tests.fixtures.report_examples import example_result

    import audit.patches as pv

    calls = []
    original = pv.verify_suggested

    def spy(*args, **kw):
        calls.append(args[:1])
        return original(*args, **kw)

    monkeypatch.setattr(pv, "verify_suggested", spy)
    res = example_result(sacrebleu=False)
    res.adapters[0].findings = [f for f in res.adapters[0].findings if f.family == "requested-order-divisor"]
    res = AuditResult(seed=0, max_examples=20, tolerance=1e-9, adapters=res.adapters)
    enriched = enrich(res, verify=True)
    [f] = res.findings
    patch = enriched.of(f).patch
    assert patch["verified"] is True and patch["verification"]["status"] == "verified"
    assert patch["verification"]["options"] == {"effective_order": True}
    assert patch["verification"]["library_tests"]["broken"] == 0
    assert calls == [("nltk",)]
