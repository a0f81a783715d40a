"""The committed reports (reports/) are true of the installed libraries.

Every repro snippet in a committed report is run against the installed upstream library in
a fresh interpreter and must print the actual value the report gives; every committed
audit.json validates against the schema; every JUnit file parses; every patch marked
verified is the one the project generates today for the installed source.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

import jsonschema

from audit import upstream
from audit.render import SCHEMA_PATH

REPORTS = Path(__file__).resolve().parent.parent / "reports"
AUDITS = sorted(REPORTS.rglob("audit.json"))
FINDINGS = [(p, f) for p in AUDITS for f in json.loads(p.read_text(encoding="utf-8"))["findings"]]


def _id(item):
    path, finding = item
    return f"{path.parent.relative_to(REPORTS)}/{finding['implementation']}/{finding['family']}"


def test_reports_are_committed():
    assert (REPORTS / "audit.json").is_file(), "run `chrf-audit run` to regenerate reports/"
    assert (REPORTS / "nltk.md").is_file()


@pytest.mark.parametrize("path", AUDITS, ids=lambda p: str(p.relative_to(REPORTS)))
def test_audit_json_validates(path):
    doc = json.loads(path.read_text(encoding="utf-8"))
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(schema).validate(doc)
    junit = ET.parse(path.with_name("junit.xml")).getroot()
    cases = junit.findall(".//testcase")
    assert len(cases) >= len(doc["findings"]) and cases


def _needs(finding) -> str | None:
    """Why this finding's snippet cannot run here (None: it can): its upstream library is an
    optional extra, or the program is a script that is never committed (chrF++.py, GPL)."""
    import importlib.util
    import os

    impl = finding["implementation"]
    if upstream.is_builtin(impl):
        module = upstream.get(impl).package
        if importlib.util.find_spec(module) is None:
            return f"{module} is not installed (an optional extra)"
    if "chrfpp_wrapper.py" in (finding.get("snippet") or "") and not os.path.isfile(os.environ.get("CHRFPP_SCRIPT", "")):
        return "the GPL chrF++.py script is never shipped: set CHRFPP_SCRIPT to the path of a copy"
    return None


def _program(finding) -> bool:
    """Its snippet is a protocol request piped into a program."""
    return "\nprintf '%s\\n' " in (finding.get("snippet") or "")


#: the findings whose snippet prints something to compare (a value, or a program's answer)
RUNNABLE = [(p, f) for p, f in FINDINGS if f.get("snippet") and (f["outcome"] == "value" or _program(f))]


def test_most_findings_have_a_runnable_snippet():
    assert len(RUNNABLE) >= len(FINDINGS) // 2 and RUNNABLE


@pytest.mark.parametrize("item", RUNNABLE, ids=_id)
def test_snippet_prints_reported_actual(item):
    path, finding = item
    snippet = finding["snippet"]
    program = _program(finding)
    # The markdown shows this very snippet, or the issue's repro when the minimal one does not
    # hold after the family's patch alone (as the issue file does)
    slug = next(i["report"] for i in json.loads(path.read_text())["implementations"]
                if i["implementation"] == finding["implementation"])
    alt = (finding.get("issue") or {}).get("repro")
    assert (alt["snippet"] if alt else snippet) in (path.parent / slug).read_text(encoding="utf-8")
    # It imports the upstream library only, never chrf-audit.
    assert not re.search(r"^\s*(from|import)\s+(audit|reference_impl)\b", snippet, re.M)
    why = _needs(finding)
    if why:
        pytest.skip(why)
    if program:  # the request, piped into the program as the report says, from the project root
        out = subprocess.run(["bash", "-c", snippet], capture_output=True, text=True, timeout=120,
                             cwd=REPORTS.parent)
        assert out.returncode == 0, out.stderr
        answer = json.loads(out.stdout.strip().splitlines()[-1])
        assert answer["id"] == 1
        if finding["outcome"] == "value":
            assert repr(answer["score"]) == finding["minimal"]["actual_raw"]
        else:
            assert finding["outcome"] == "exception" and answer["error"] in finding["minimal"]["detail"]
        return
    out = subprocess.run([sys.executable, "-I", "-c", snippet], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    printed = out.stdout.strip().splitlines()[-1]
    assert printed == finding["minimal"]["actual_raw"], (printed, finding["minimal"]["actual_raw"])


@pytest.mark.parametrize("item", [i for i in FINDINGS if (i[1].get("patch") or {}).get("verified")], ids=_id)
def test_verified_patch_is_todays_patch(item):
    """The verified diff in the report is what the project generates against the installed
    source (tests/test_upstream_patches.py applies it to a copy and re-audits)."""
    _, finding = item
    why = _needs(finding)
    if why:
        pytest.skip(why)
    assert finding["patch"]["diff"] == upstream.patch(finding["implementation"], finding["family"])


@pytest.mark.parametrize("path", AUDITS, ids=lambda p: str(p.relative_to(REPORTS)))
def test_committed_reports_regenerate_from_their_audit_json(path):
    """Every committed report is a view of its audit.json (``chrf-audit report --from``): the
    markdown, the upstream issues, the charts, junit.xml and audit.json itself come out byte
    for byte.  No renderer prints a machine fact (the platform is in audit.json only), so
    this holds on any machine."""
    from audit.render import render_reports

    doc = json.loads(path.read_text(encoding="utf-8"))
    files = render_reports(doc)
    assert any(rel.endswith(".md") for rel in files)
    for rel, data in files.items():
        assert (path.parent / rel).read_bytes() == data, rel


def test_a_sample_upstream_issue_is_linked_from_the_readme():
    readme = (REPORTS.parent / "README.md").read_text(encoding="utf-8")
    links = re.findall(r"\]\((reports/[^)]*/issues/[^)]+\.md|reports/issues/[^)]+\.md)\)", readme)
    assert links and all((REPORTS.parent / link).is_file() for link in links)
    for link in links:
        assert len((REPORTS.parent / link).read_text(encoding="utf-8").splitlines()) <= 90


def _absolute_paths(node) -> set:
    """Every absolute file path a document holds (sources, root causes: the auditing machine's)."""
    if isinstance(node, dict):
        return set().union(*map(_absolute_paths, node.values())) if node else set()
    if isinstance(node, list):
        return set().union(*map(_absolute_paths, node)) if node else set()
    return {node} if isinstance(node, str) and node.startswith("/") and node.count("/") > 1 else set()


@pytest.mark.parametrize("path", AUDITS, ids=lambda p: str(p.relative_to(REPORTS)))
def test_no_report_prints_a_path_of_the_auditing_machine(path):
    """Machine facts stay in audit.json: no markdown prints an absolute path it holds (an
    external program's file, a site-packages directory), so reports read the same anywhere."""
    doc = json.loads(path.read_text(encoding="utf-8"))
    paths = _absolute_paths(doc)
    assert paths or path.parent.name != "chrfpp"  # chrF++.py's path is there, to be kept out
    for md in sorted(path.parent.glob("*.md")) + sorted(path.parent.glob("issues/*/*.md")):
        text = md.read_text(encoding="utf-8")
        assert not [p for p in paths if p in text], md


@pytest.mark.parametrize("path", AUDITS, ids=lambda p: str(p.relative_to(REPORTS)))
def test_every_number_of_a_committed_report_is_in_its_audit_json(path):
    from audit.render import issues
    from tests.report_numbers import underived

    doc = json.loads(path.read_text(encoding="utf-8"))
    for md in [path.parent / e["report"] for e in doc["implementations"]] + sorted(path.parent.glob("issues/*/*.md")):
        prose = tuple(issues.CITATIONS.values()) if md.parent.parent.name == "issues" else ()
        assert underived(md.read_text(encoding="utf-8"), doc, prose) == [], md


@pytest.mark.parametrize("path", AUDITS, ids=lambda p: str(p.relative_to(REPORTS)))
def test_a_familys_largest_difference_is_measured_with_that_family_alone(path):
    """Issue 42 item 6: "Largest difference seen (this family alone)" is an input only that
    family explains (its explanation is the family itself), never one another family adds to."""
    doc = json.loads(path.read_text(encoding="utf-8"))
    largest = [f for f in doc["findings"] if f.get("largest") and f["largest"] != f["minimal"]]
    assert largest or path.parent.name in ("chrfpp",)
    for f in largest:
        assert f["largest"]["explanation"] == [f["family"]], (f["family"], f["largest"]["explanation"])


@pytest.mark.parametrize("path", AUDITS, ids=lambda p: str(p.relative_to(REPORTS)))
def test_every_family_of_a_conformance_row_is_explained_where_it_appears(path):
    """Issue 42 item 6: a family the conformance matrix names is a finding with its own section,
    or is said (with its title) right below the matrix."""
    doc = json.loads(path.read_text(encoding="utf-8"))
    for entry in doc["implementations"]:
        md = (path.parent / entry["report"]).read_text(encoding="utf-8")
        matrix, below = md.split("## Conformance", 1)[1].split("\n\n", 3)[2:4]
        rows = [line.split(" | ", 1)[1] for line in matrix.splitlines()[2:]]  # the cells after the definition
        named = {f for row in rows for f in re.findall(r"`([a-z0-9-]+)`", row)}
        assert named or "✅ meets | ✅ meets" in matrix
        for family in named:
            assert f"\n## `{family}`\n" in md or f"`{family}`: " in below, (entry["report"], family)
