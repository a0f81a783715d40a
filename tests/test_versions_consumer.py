"""The consumer side of a versions result (issue 33 item 3): ``run --versions-from FILE`` and
the cached ``<cache>/versions/<package>.json`` put "regression since 3.10.4 (3.10.3 correct)"
into the report and the issue files; a malformed or foreign file is one line, exit 2."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from audit.enrich import versions
from audit.enrich.issue_facts import regression
from audit.errors import UsageError

WS, DIV = "whitespace-set-white-space", "requested-order-divisor"


def result(package="nltk", newer=("3.10.4", [DIV, WS]), older=("3.10.3", [DIV])):
    rel = [{"version": v, "status": "audited", "reason": None, "families": f} for v, f in (older, newer)]
    fams = {f: {"introduced": next(r["version"] for r in rel if f in r["families"]), "fixed": None}
            for r in rel for f in r["families"]}
    return {"package": package, "releases": rel, "families": fams}


def test_regression_since_the_first_release_that_has_it():
    doc = {**result(), "_source": "v.json"}
    assert regression(doc, WS, "3.10.4") == {"introduced": "3.10.4", "last_good": "3.10.3", "fixed": None,
                                             "source": "v.json"}
    assert regression(doc, DIV, "3.10.4") is None  # present in every audited release: not a regression
    assert regression(doc, WS, "3.9.1") is None  # the audited release is not in the result
    assert regression(None, WS, "3.10.4") is None
    skipped = result()
    skipped["releases"][0]["status"] = "skipped"
    assert regression(skipped, WS, "3.10.4") is None  # no audited release without it


@pytest.mark.parametrize("data, message", [
    ([], "expected a JSON object"),
    ({"releases": [], "families": {}}, "'package' must be a non-empty string"),
    ({"package": "nltk", "releases": [{"version": "1", "status": "maybe"}], "families": {}}, "'status' must be"),
    ({"package": "nltk", "releases": [{"version": "1", "status": "audited", "families": "x"}], "families": {}},
     "'families' must be a list"),
    ({"package": "nltk", "releases": [], "families": {WS: {"introduced": 3}}}, "expected {\"introduced\""),
])
def test_malformed_results_are_one_line(data, message):
    with pytest.raises(UsageError, match=message.replace("(", r"\(").replace("{", r"\{")):
        versions.parse(data, "f.json")


def test_given_file_must_be_about_an_audited_package(tmp_path):
    p = tmp_path / "v.json"
    p.write_text(json.dumps(result(package="sacrebleu")))
    with pytest.raises(UsageError, match="about 'sacrebleu', which this run does not audit"):
        versions.results_for(["nltk"], p)
    p.write_text(json.dumps(result()))
    assert versions.results_for(["nltk"], p)["nltk"]["_source"] == str(p)


def test_cached_result_used_when_it_matches(tmp_path, monkeypatch):
    monkeypatch.setenv("CHRF_AUDIT_CACHE", str(tmp_path))
    from audit.versions.runner import cache_file

    # where `chrf-audit versions` leaves its last result is where `run` looks for it
    assert cache_file("nltk") == tmp_path / "versions" / "nltk.json"
    assert versions.results_for(["nltk"]) == {}
    (tmp_path / "versions").mkdir()
    (tmp_path / "versions" / "nltk.json").write_text(json.dumps(result(package="sacrebleu")))
    assert versions.results_for(["nltk"]) == {}  # about another package: not used
    (tmp_path / "versions" / "nltk.json").write_text(json.dumps(result()))
    got = versions.results_for(["nltk"])
    assert got["nltk"]["_source"] == "versions/nltk.json in the chrf-audit cache"
    (tmp_path / "versions" / "nltk.json").write_text("{ broken")
    said = []
    assert versions.results_for(["nltk"], say=said.append) == {} and "not JSON" in said[0]


def test_issue_and_report_say_regression_since(tmp_path):
    """The report and the issue file of the whitespace family carry the versions result's
    fact; the divisor, present in both releases, does not."""
    from audit.commands.writing import write_reports
    from audit.enrich import enrich
    from tests.fixtures.report_examples import example_result

    res = example_result(sacrebleu=False)
    write_reports(enrich(res, versions={"nltk": {**result(), "_source": "reports/versions/nltk.json"}}), tmp_path)
    ws = (tmp_path / "issues" / "nltk" / f"{WS}.md").read_text()
    assert ws.splitlines()[0] == ("# nltk sentence_chrf: chrF with ignore_whitespace=True scores U+001C..U+001F as "
                                  "characters (regression since 3.10.4)")
    assert ("**Regression since 3.10.4 (3.10.3 correct):** audited release by release, 3.10.3 does not show it and "
            "3.10.4 is the first release that does (versions result: `reports/versions/nltk.json`).") in ws
    div = (tmp_path / "issues" / "nltk" / f"{DIV}.md").read_text()
    assert "Regression" not in div and "regression" not in div.splitlines()[0]
    assert "**Regression since 3.10.4** (3.10.3 correct)." in (tmp_path / "nltk.md").read_text()


def _run(*args, cwd):
    return subprocess.run([sys.executable, "-c", "import sys; from audit.cli import main; sys.exit(main())", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300)


def test_run_refuses_a_bad_versions_file_before_auditing(tmp_path):
    bad = tmp_path / "v.json"
    bad.write_text(json.dumps(result(package="sacrebleu")))
    proc = _run("run", "--impl", "nltk", "--versions-from", str(bad), "--json", str(tmp_path / "a.json"), cwd=tmp_path)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr
    assert "about 'sacrebleu', which this run does not audit (nltk)" in proc.stderr
    assert not (tmp_path / "a.json").exists()
    bad.write_text("[1, 2")
    proc = _run("run", "--impl", "nltk", "--versions-from", str(bad), cwd=tmp_path)
    assert proc.returncode == 2 and "not JSON" in proc.stderr and "Traceback" not in proc.stderr
