"""The consumer side of a versions result (issue 33 item 3): ``run --versions-from FILE`` and
the project's ``reports/versions/<package>.json`` put "regression since 3.10.4 (3.10.3
correct)" into the report and the issue files; a malformed or foreign given file is one line,
exit 2.  Nothing machine-wide decides it (issue 39 item 10): a versions result planted in the
cache (``CHRF_AUDIT_CACHE``, ``~/.cache/chrf-audit``) changes no byte of the reports."""

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
    # a file outside the current directory is named by its name alone: no path of the machine
    assert versions.results_for(["nltk"], p)["nltk"]["_source"] == "v.json"


def _plant(tmp_path, monkeypatch, doc) -> None:
    """A versions result in the machine-wide places: CHRF_AUDIT_CACHE and ~/.cache."""
    cache, home = tmp_path / "planted-cache", tmp_path / "home"
    for where in (cache / "versions", home / ".cache" / "chrf-audit" / "versions"):
        where.mkdir(parents=True)
        (where / "nltk.json").write_text(json.dumps(doc))
    monkeypatch.setenv("CHRF_AUDIT_CACHE", str(cache))
    monkeypatch.setenv("HOME", str(home))


#: a hostile result: the divisor (present in every release) "introduced" in 3.10.4
LIE = result(newer=("3.10.4", [DIV, WS]), older=("3.10.3", []))


def test_the_project_result_is_used_and_a_cached_one_never(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _plant(tmp_path, monkeypatch, LIE)
    assert versions.results_for(["nltk"]) == {}  # the cache is not read
    project = tmp_path / "reports" / "versions"
    project.mkdir(parents=True)
    said = []
    (project / "nltk.json").write_text(json.dumps(result(package="sacrebleu")))
    assert versions.results_for(["nltk"], say=said.append) == {} and "about 'sacrebleu'" in said[-1]
    (project / "nltk.json").write_text(json.dumps(result()))
    got = versions.results_for(["nltk"])
    assert got["nltk"]["_source"] == "reports/versions/nltk.json"
    assert got["nltk"]["families"] == result()["families"]
    (project / "nltk.json").write_text("{ broken")
    assert versions.results_for(["nltk"], say=said.append) == {} and "not JSON" in said[-1]


def test_a_versions_result_planted_in_the_cache_changes_no_report(tmp_path, monkeypatch):
    """The same run in the same project (holding the committed reports/versions/nltk.json),
    once with a hostile result planted in CHRF_AUDIT_CACHE and ~/.cache and once with an empty
    cache: the same bytes, and the regression said is the project's."""
    from pathlib import Path

    project = tmp_path / "project"
    (project / "reports" / "versions").mkdir(parents=True)
    committed = Path(__file__).resolve().parents[1] / "reports" / "versions" / "nltk.json"
    (project / "reports" / "versions" / "nltk.json").write_bytes(committed.read_bytes())
    runs = {}
    for name in ("planted", "empty"):
        if name == "planted":
            _plant(tmp_path, monkeypatch, LIE)
        else:
            monkeypatch.setenv("CHRF_AUDIT_CACHE", str(tmp_path / "empty-cache"))
        proc = _run("run", "--impl", "nltk", "--no-verify", "--max-examples", "20", "--quiet", "--reports-dir",
                    name, cwd=project)
        assert proc.returncode == 1, proc.stderr[-2000:]
        out = project / name
        runs[name] = {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}
    assert runs["planted"] == runs["empty"]
    issues = {k: v.decode() for k, v in runs["empty"].items() if k.startswith("issues/")}
    assert ("3.10.4 is the first release that does (versions result: `reports/versions/nltk.json`)"
            in issues[f"issues/nltk/{WS}.md"])
    assert "Regression" not in issues[f"issues/nltk/{DIV}.md"]


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
