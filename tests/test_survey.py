"""``chrf-audit survey`` end to end on four planted packages in a local index (no network): one
correct, one buggy, one that installs only on another interpreter, one that shadows sacreBLEU's
module; on the embedded Dask cluster, then again from the cache (a finished unit is not redone).
One test, marked ``index``, surveys a real package from the package index."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests import planted_survey as P
from tests import planted_versions as V
from tests.conftest import once_per_session

ROOT = Path(__file__).resolve().parents[1]


def _argv(url: str, reg: Path, *extra) -> list:
    return [sys.executable, "-m", "audit.cli", "survey", "--registry", str(reg), "--index-url", url,
            "--max-examples", "8", "--differential", "15", "--quiet", *extra]


@pytest.fixture(scope="session")
def planted_run(tmp_path_factory):
    cache = V.shared_cache(tmp_path_factory)

    def make(where: Path) -> dict:
        url = P.build_index(where / "index")
        reg = P.registry(where / "registry.json")
        runs = []
        for name in ("first", "again"):
            proc = subprocess.run(_argv(url, reg, "--jobs", "2", "--json", str(where / f"{name}.json"),
                                        "--reports-dir", str(where / name)),
                                  env=V.env(cache), capture_output=True, text=True, timeout=1800, cwd=where)
            runs.append({"returncode": proc.returncode, "stdout": proc.stdout, "stderr": proc.stderr})
        return {"runs": runs, "url": url}

    where, done = once_per_session(tmp_path_factory, "survey-planted-run", make)
    return where, done


def _rows(doc: dict) -> dict:
    return {r["name"]: r for r in doc["implementations"]}


def test_the_planted_survey_names_the_bug_follows_the_definitions_and_says_why_not(planted_run):
    where, done = planted_run
    first = done["runs"][0]
    assert first["returncode"] == 1, first["stderr"][-3000:]  # the buggy package has a finding
    assert "Traceback" not in first["stderr"] + first["stdout"]
    doc = json.loads((where / "first.json").read_text())
    rows = _rows(doc)
    correct, buggy = rows["correct"], rows["buggy"]
    assert (correct["status"], correct["families"], correct["unexplained"], correct["verdict"]) == (
        "audited", [], 0, "conforms")
    assert correct["definition_followed"] == "sacrebleu" and correct["agreement"] == "agree"
    assert correct["differential"]["disagreements"] == 0 and correct["differential"]["inputs"] == 15
    assert buggy["families"] == ["requested-order-divisor"] and buggy["verdict"] == "deviates"
    route = buggy["differential"]
    assert route["disagreements"] > 0 and route["reproduced_by_families"] == route["disagreements"]
    assert buggy["definition_followed"] is None and buggy["agreement"] == "agree"
    assert buggy["issues"] == ["issues/buggy/chrf-requested-order-divisor.md"]
    assert rows["hub-only"]["status"] == "skipped" and "hub" in rows["hub-only"]["reason"]
    assert doc["searched"] == {"npm": "nothing planted there"}


def test_a_package_for_another_interpreter_and_a_shadowing_module_are_audited_in_their_own_environments(planted_run):
    where, done = planted_run
    rows = _rows(json.loads((where / "first.json").read_text()))
    elsewhere = rows["elsewhere"]
    assert elsewhere["status"] == "audited", elsewhere["reason"]
    assert elsewhere["runtime"] != f"python {P.OWN}" and elsewhere["verdict"] == "conforms"
    shadow = rows["shadow"]
    # its own `sacrebleu` keeps whitespace: the control is the real sacreBLEU (it would agree with itself)
    assert shadow["differential"]["disagreements"] > 0
    assert any(f.startswith("whitespace") for f in shadow["families"]), shadow["families"]


def test_the_reports_directory_holds_the_table_the_json_and_the_issue_files(planted_run):
    where, done = planted_run
    rep = where / "first"
    page = (rep / "survey.md").read_text()
    assert "| buggy | 1.0 |" in page and "requested-order-divisor" in page and "hub-only" in page
    issue = (rep / "issues" / "buggy" / "chrf-requested-order-divisor.md").read_text()
    snippet = issue.split("```python\n", 1)[1].split("```", 1)[0]
    assert "from chrf_survey_buggy import sentence" in snippet and "print(sentence(hypothesis, references))" in snippet
    assert json.loads((rep / "survey.json").read_text())["implementations"] == \
        json.loads((where / "first.json").read_text())["implementations"]
    html = (rep / "index.html").read_text(encoding="utf-8")
    links = set(re.findall(r'<a href="(issues/[^"]+)"', html))
    assert "issues/buggy/chrf-requested-order-divisor.md" in links  # the heat map's cell of buggy's family
    assert all((rep / link).is_file() for link in links), links
    assert "corpus" in html or "sentence" in html  # the fit scope column, as the table writes it


def test_a_second_run_reuses_every_finished_unit_and_gives_the_same_table(planted_run):
    where, done = planted_run
    again = done["runs"][1]
    assert again["returncode"] == 1 and "Traceback" not in again["stderr"]
    first, second = (json.loads((where / f"{n}.json").read_text()) for n in ("first", "again"))
    assert second["volatile"]["reused_from_cache"] == ["buggy", "correct", "elsewhere", "shadow"]
    assert {k: v for k, v in first.items() if k != "volatile"} == {k: v for k, v in second.items() if k != "volatile"}


@pytest.mark.parametrize("args,message", [
    (["nope"], "'nope' is not in the survey's registry"),
    (["--differential", "0"], "--differential must be an integer >= 1"),
    (["--registry", "/nonexistent/r.json"], "no such file"),
    (["--jobs", "2", "--scheduler", "tcp://127.0.0.1:9"], "--jobs sizes the embedded cluster"),
])
def test_usage_errors_are_one_line_exit_2(args, message, tmp_path):
    proc = subprocess.run([sys.executable, "-m", "audit.cli", "survey", *args], capture_output=True, text=True,
                          timeout=300, cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.strip().splitlines()[-1].startswith("chrf-audit: error: ") and message in proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.index
def test_a_real_package_from_the_index(tmp_path):
    """fastchrf from the index pip is configured for: Rust's char::is_whitespace (Unicode
    White_Space, without U+001C..U+001F) and UTF-8 encoding that refuses lone surrogates."""
    proc = subprocess.run([sys.executable, "-m", "audit.cli", "survey", "fastchrf", "--max-examples", "5",
                           "--differential", "20", "--jobs", "1", "--quiet", "--json", str(tmp_path / "s.json")],
                          capture_output=True, text=True, timeout=1800, cwd=tmp_path,
                          env={**__import__("os").environ, "CHRF_AUDIT_CACHE": str(tmp_path / "cache")})
    assert proc.returncode == 1, proc.stderr[-3000:]
    row = json.loads((tmp_path / "s.json").read_text())["implementations"][0]
    assert "whitespace-set-white-space" in row["families"] and row["differential"]["disagreements"] > 0


def test_the_document_follows_its_json_schema_and_the_schema_refuses_what_it_should(planted_run):
    import copy

    import jsonschema

    from audit.survey import document

    where, _ = planted_run
    schema = json.loads((ROOT / "audit" / "survey" / "survey.schema.json").read_text())
    doc = json.loads((where / "first.json").read_text())
    jsonschema.validate(doc, schema)
    assert doc["schema"] == document.SCHEMA and doc["schema_version"] == document.SCHEMA_VERSION
    for change in (lambda d: d["implementations"][0].update(status="done"),
                   lambda d: d["implementations"][0].update(definition_followed="nltk"),
                   lambda d: d["implementations"][0]["differential"].pop("disagreements"),
                   lambda d: d["implementations"][0].update(issues=["../x.md"])):
        bad = copy.deepcopy(doc)
        change(bad)
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, schema)


@pytest.mark.parametrize("text,message", [
    ("{not json", "invalid JSON"),
    ('{"implementations": [{"name": "x"}]}', "implementation 'x': 'kind' is missing"),
    ('{"implementations": "all"}', "an object with an 'implementations' list"),
])
def test_a_broken_registry_file_is_one_line_exit_2(text, message, tmp_path):
    reg = tmp_path / "r.json"
    reg.write_text(text, encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "audit.cli", "survey", "--registry", str(reg)], capture_output=True,
                          text=True, timeout=300, cwd=tmp_path)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert proc.stderr.strip().splitlines()[-1].startswith("chrf-audit: error: ") and message in proc.stderr
