"""``chrf-audit check``: configuration, baseline (new / accepted / stale / expired), --strict,
--update-baseline, and one-line exit-2 errors."""

import json
import shutil
from pathlib import Path

import pytest

from audit.gate import baseline as B
from audit.cli import main

ROOT = Path(__file__).resolve().parents[1]
PLANTED = ROOT / "tests" / "planted"
BUGGY = "plantedpkg:requested_order_divisor"
CORRECT = "plantedpkg:correct_float"


def _config(impl: str, extra: str = "") -> str:
    return f"""
[project]
name = "mylib"

[tool.chrf-audit]
max-examples = 20
cases = "{(ROOT / 'cases').as_posix()}"
{extra}

[[tool.chrf-audit.implementations]]
impl = "{impl}.sentence"
corpus-impl = "{impl}.corpus"
beta = 2
scale = 100
definition = "sacrebleu"
"""


@pytest.fixture
def project(tmp_path, monkeypatch):
    shutil.copytree(PLANTED, tmp_path / "plantedpkg", ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    monkeypatch.setenv("NO_COLOR", "1")
    (tmp_path / "pyproject.toml").write_text(_config(BUGGY), encoding="utf-8")
    return tmp_path


def test_fingerprint_is_stable():
    fp = B.fingerprint("nltk", "requested-order-divisor")
    assert len(fp) == 16 and fp == B.fingerprint("nltk", "requested-order-divisor")
    assert fp != B.fingerprint("nltk", "f-score-averaged")


def test_baseline_lifecycle(project, capsys):
    # 1. a planted bug fails the gate, the configured reports are written
    assert main(["check", "--quiet", "--json", "out/audit.json", "--junit", "out/junit.xml"]) == 1
    out = capsys.readouterr().out
    assert "NEW      plantedpkg:requested_order_divisor  requested-order-divisor" in out
    # one family, found at both levels: two findings, one baseline entry
    assert "check failed: 2 new findings" in out
    doc = json.loads((project / "out" / "audit.json").read_text())
    assert [(f["family"], f["level"]) for f in doc["findings"]] == [("requested-order-divisor", "sentence"),
                                                                    ("requested-order-divisor", "corpus")]
    assert (project / "out" / "junit.xml").is_file()

    # 2. accepting it (update keeps hand-written reasons) makes the gate pass
    assert main(["check", "--quiet", "--update-baseline", "--today", "2030-01-02"]) == 0
    doc = json.loads((project / "chrf-audit-baseline.json").read_text())
    [entry] = doc["accepted"]
    assert entry["reason"] == "accepted 2030-01-02"
    assert entry["fingerprint"] == B.fingerprint(entry["implementation"], entry["family"])
    entry["reason"], entry["expires"] = "upstream issue #1", "2030-06-30"
    (project / "chrf-audit-baseline.json").write_text(json.dumps(doc))
    assert main(["check", "--quiet", "--update-baseline", "--today", "2030-01-03"]) == 0
    [entry] = json.loads((project / "chrf-audit-baseline.json").read_text())["accepted"]
    assert (entry["reason"], entry["expires"]) == ("upstream issue #1", "2030-06-30")
    capsys.readouterr()
    assert main(["check", "--quiet", "--today", "2030-01-03"]) == 0
    assert "check passed: no new finding (2 accepted)" in capsys.readouterr().out

    # 3. expiry: reported, fails only with --strict
    assert main(["check", "--quiet", "--today", "2030-07-01"]) == 0
    assert "EXPIRED  plantedpkg:requested_order_divisor  requested-order-divisor" in capsys.readouterr().out
    assert main(["check", "--quiet", "--today", "2030-07-01", "--strict"]) == 1
    assert "check failed (--strict): 1 expired entry" in capsys.readouterr().out

    # 4. fixed: the entry is stale (reported; --strict, flag or config, fails)
    (project / "pyproject.toml").write_text(_config(CORRECT), encoding="utf-8")
    assert main(["check", "--quiet", "--today", "2030-01-03"]) == 0
    out = capsys.readouterr().out
    assert "STALE    plantedpkg:requested_order_divisor  requested-order-divisor" in out
    assert main(["check", "--quiet", "--today", "2030-01-03", "--strict"]) == 1
    assert "check failed (--strict): 1 stale entry" in capsys.readouterr().out
    (project / "pyproject.toml").write_text(_config(CORRECT, "strict = true"), encoding="utf-8")
    assert main(["check", "--quiet", "--today", "2030-01-03"]) == 1
    capsys.readouterr()
    # --update-baseline changes only the audited implementation's entries: the entry of the
    # implementation no longer configured stays, with its reason (issue 12)
    before = (project / "chrf-audit-baseline.json").read_text()
    assert main(["check", "--quiet", "--update-baseline"]) == 0
    assert "(0 added, 0 removed)" in capsys.readouterr().out
    assert (project / "chrf-audit-baseline.json").read_text() == before


def _junit(path):
    import xml.etree.ElementTree as ET

    root = ET.parse(path).getroot()
    return root, [(c.get("name"), [e.tag for e in c]) for c in root.iter("testcase")]


def test_junit_agrees_with_the_gate(project, capsys):
    """Findings the baseline accepts are skipped in junit.xml, not failures (issue 19, item 6):
    a passing gate writes failures="0"; a new finding is a failure; an expired entry fails
    only with --strict, as the exit code does."""
    assert main(["check", "--quiet", "--junit", "j.xml"]) == 1
    root, cases = _junit(project / "j.xml")
    assert root.get("failures") == "2" and [tags for _, tags in cases] == [["failure"], ["failure"]]
    assert main(["check", "--quiet", "--update-baseline", "--today", "2030-01-02", "--junit", "j.xml"]) == 0
    assert _junit(project / "j.xml")[0].get("failures") == "0"
    doc = json.loads((project / "chrf-audit-baseline.json").read_text())
    doc["accepted"][0].update(reason="upstream issue #1", expires="2030-06-30")
    (project / "chrf-audit-baseline.json").write_text(json.dumps(doc))
    assert main(["check", "--quiet", "--today", "2030-01-03", "--junit", "j.xml", "--reports-dir", "r"]) == 0
    for path in (project / "j.xml", project / "r" / "junit.xml"):
        root, cases = _junit(path)
        assert (root.get("tests"), root.get("failures"), root.get("skipped")) == ("2", "0", "2")
        assert [tags for _, tags in cases] == [["skipped"], ["skipped"]]
        assert "accepted in the baseline (upstream issue #1)" in root.find(".//skipped").get("message")
        suite = root.find("testsuite")
        assert (suite.get("failures"), suite.get("skipped")) == ("0", "2")
    assert main(["check", "--quiet", "--today", "2030-07-01", "--junit", "j.xml"]) == 0
    assert _junit(project / "j.xml")[0].get("failures") == "0"
    assert main(["check", "--quiet", "--today", "2030-07-01", "--strict", "--junit", "j.xml"]) == 1
    assert _junit(project / "j.xml")[0].get("failures") == "2"
    capsys.readouterr()


def test_flags_override_the_configuration(project, capsys, monkeypatch):
    # --impl replaces the configured implementations; the verdict reaches the job summary
    summary = project / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    args = ["check", "--quiet", "--impl", f"{CORRECT}.sentence", "--corpus-impl", f"{CORRECT}.corpus",
            "--max-examples", "10"]
    assert main(args) == 0
    assert "check passed" in capsys.readouterr().out
    text = summary.read_text()
    assert "## chrF audit" in text and "check passed: no new finding (0 accepted)" in text


@pytest.mark.parametrize("extra, message", [
    ("max_examples = 5", "unknown key 'max_examples' (did you mean 'max-examples'?)"),
    ('seed = "zero"', "seed must be an integer, got a string ('zero')"),
    ("tolerance = -1.0", "tolerance must be between 0 and 100"),
    ("strict = 1", "strict must be true or false"),
    ("hypothesis-profile = 3", "hypothesis-profile must be a non-empty string, got an integer (3)"),
])
def test_invalid_configuration_is_one_line_exit_2(project, capsys, extra, message):
    (project / "pyproject.toml").write_text(_config(BUGGY, extra), encoding="utf-8")
    assert main(["check", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and err.startswith("chrf-audit: error: pyproject.toml")


@pytest.mark.parametrize("entry, message", [
    ('bta = 2', "unknown key 'bta' (did you mean 'beta'?)"),
    ('scale = 10', "scale must be 1 or 100"),
    ('beta = "two"', "beta must be a number"),
])
def test_invalid_implementation_entry(project, capsys, entry, message):
    text = _config(BUGGY).replace("beta = 2\nscale = 100", entry)
    (project / "pyproject.toml").write_text(text, encoding="utf-8")
    assert main(["check", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert message in err and "implementations]] #1" in err and err.count("\n") == 1


@pytest.mark.parametrize("args, message", [
    (["--impl", "plantedpkg.nope:sentence"], "cannot import module 'plantedpkg.nope'"),
    (["--impl", "plantedpkg:correct_float.nope"], "has no attribute 'correct_float.nope'"),
    (["--impl", "foo"], "unknown implementation 'foo'"),
    (["--config", "missing.toml"], "missing.toml: no such configuration file"),
    (["--baseline", "bad.json"], "bad.json: invalid JSON"),
    (["--today", "tomorrow"], "--today: 'tomorrow' is not an ISO date"),
])
def test_usage_errors(project, capsys, args, message):
    (project / "bad.json").write_text("{not json", encoding="utf-8")
    assert main(["check", "--quiet", *args]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_wrong_signature_is_exit_2(project, capsys):
    (project / "sig.py").write_text("def score(a, b, c):\n    return 0.0\n", encoding="utf-8")
    assert main(["check", "--quiet", "--impl", "sig:score"]) == 2
    assert "cannot be called as function(hypothesis, references)" in capsys.readouterr().err


def test_baseline_fingerprint_mismatch_is_exit_2(project, capsys):
    (project / "chrf-audit-baseline.json").write_text(json.dumps({"schema_version": 1, "accepted": [
        {"fingerprint": "0000000000000000", "implementation": "x", "family": "crash", "reason": ""}]}))
    assert main(["check", "--quiet"]) == 2
    assert "does not match" in capsys.readouterr().err
