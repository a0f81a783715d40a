"""Renderers: terminal table, markdown bug report, audit.json (schema), junit.xml, charts,
GitHub summary.  Built on hand-made findings (the installed nltk scored for real)."""

from __future__ import annotations

import io
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from audit.enrich import enrich
from audit.findings import AdapterSummary, AuditResult, Finding, Repro
from audit.commands.writing import write_reports
from audit.render import SCHEMA_PATH, document, json_report, junit
from tests.fixtures.render import summary_text, terminal_text
from audit.render._text import escape, slug, unique_slugs
from audit.render.chart import bar_chart, line_chart
from tests.fixtures.report_examples import example_impact, example_result

import jsonschema  # noqa: E402  (the test extra)


@pytest.fixture(scope="module")
def result():
    return example_result()


@pytest.fixture(scope="module")
def reports(result, tmp_path_factory):
    out = tmp_path_factory.mktemp("reports")
    paths = write_reports(enrich(result, impact=example_impact()), out)
    return out, paths


def _schema():
    return json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))


def test_files_written(reports):
    out, paths = reports
    names = sorted(p.relative_to(out).as_posix() for p in paths)
    assert names == sorted([
        "nltk.md", "sacrebleu.md", "audit.json", "junit.xml",
        # one issue per fix: the three definition differences' keywords, the whitespace bug
        "issues/nltk/requested-order-divisor.md", "issues/nltk/whitespace-set-white-space.md",
        "charts/nltk-requested-order-divisor.svg", "charts/nltk-f-score-averaged.svg",
        "charts/nltk-corpus-macro-average.svg", "charts/nltk-whitespace-set-white-space.svg",
    ])
    assert all(p.is_file() for p in paths)


def test_json_valid_and_stable_core(reports, result):
    out, _ = reports
    doc = json.loads((out / "audit.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(_schema())
    jsonschema.Draft202012Validator(_schema()).validate(doc)
    assert doc["schema_version"] == "1.5"
    assert len(doc["findings"]) == 4
    by = {f["family"]: f for f in doc["findings"]}
    d = by["requested-order-divisor"]
    assert d["implementation"] == "nltk" and d["level"] == "sentence"
    assert d["repro"] == {"hypothesis": "a", "references": ["a"]}
    assert d["expected"] == 100.0 and d["expected_fraction"] == "100"
    assert d["actual"] == pytest.approx(100 / 6) and d["outcome"] == "value"
    assert d["root_cause"]["function"] == "corpus_chrf"
    assert d["patch"]["verified"] is None  # verification not run here
    assert "sentence_chrf" in d["snippet"]
    assert d["chart"] == "charts/nltk-requested-order-divisor.svg"
    assert d["impact"] == example_impact()["nltk"]["by_family"]["requested-order-divisor"]
    c = by["corpus-macro-average"]
    assert c["level"] == "corpus" and set(c["repro"]) == {"hypotheses", "references"}
    assert "\\u001c" in (out / "audit.json").read_text()  # control characters escaped in the file
    assert by["whitespace-set-white-space"]["repro"]["hypothesis"] == "abc\x1cdef"
    impls = {i["implementation"]: i for i in doc["implementations"]}
    assert impls["sacrebleu"]["families"] == [] and impls["nltk"]["report"] == "nltk.md"
    assert "volatile" not in doc


def test_json_schema_rejects_broken_core(reports):
    out, _ = reports
    doc = json.loads((out / "audit.json").read_text(encoding="utf-8"))
    validator = jsonschema.Draft202012Validator(_schema())
    for mutate in (
        lambda d: d["findings"][0].pop("family"),
        lambda d: d["findings"][0].__setitem__("outcome", "weird"),
        lambda d: d["findings"][0].__setitem__("repro", {"hypotheses": ["a"], "references": [["a"]]}),
        lambda d: d.pop("schema_version"),
    ):
        bad = json.loads(json.dumps(doc))
        mutate(bad)
        assert not validator.is_valid(bad)


def test_byte_identical(result, tmp_path):
    a = write_reports(enrich(result, impact=example_impact()), tmp_path / "a")
    b = write_reports(enrich(result, impact=example_impact()), tmp_path / "b")
    assert [p.relative_to(tmp_path / "a") for p in a] == [p.relative_to(tmp_path / "b") for p in b]
    for pa, pb in zip(a, b):
        assert pa.read_bytes() == pb.read_bytes(), pa.name


def test_timestamp_is_one_separate_field(result, tmp_path):
    """The time comes in (the command reads the clock: ``writing.run_time``); the document
    builder reads none (issue 34 item 5)."""
    from audit.commands.writing import run_time

    (tmp_path / "t.json").write_bytes(
        json_report.render(document(enrich(result), generated_at="2026-12-02T18:00:00Z"))["audit.json"])
    (tmp_path / "n.json").write_bytes(json_report.render(document(enrich(result)))["audit.json"])
    t = json.loads((tmp_path / "t.json").read_text())
    n = json.loads((tmp_path / "n.json").read_text())
    assert set(t) - set(n) == {"volatile"}
    assert t["volatile"]["generated_at"] == "2026-12-02T18:00:00Z"
    assert run_time(False) is None
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", run_time(True))
    t.pop("volatile")
    assert t == n
    jsonschema.Draft202012Validator(_schema()).validate(n)


def test_junit(reports):
    out, _ = reports
    root = ET.parse(out / "junit.xml").getroot()
    cases = root.findall(".//testcase")
    assert [(c.get("classname"), c.get("name")) for c in cases] == [
        ("chrf-audit.nltk", "requested-order-divisor"), ("chrf-audit.nltk", "f-score-averaged"),
        ("chrf-audit.nltk", "corpus-macro-average"), ("chrf-audit.nltk", "whitespace-set-white-space"),
        ("chrf-audit.sacrebleu", "conforms"),
    ]
    assert [c.find("failure") is not None for c in cases] == [True] * 4 + [False]
    assert root.get("tests") == "5" and root.get("failures") == "4"
    text = (out / "junit.xml").read_text()
    assert "\x1c" not in text and "\\u001c" in text


def test_markdown_nltk(reports, result):
    out, _ = reports
    md = (out / "nltk.md").read_text(encoding="utf-8")
    # opens with the conformance matrix
    assert md.index("## Conformance") < md.index("## Environment") < md.index("## Summary")
    assert "| `sacrebleu-eps` | ❌ does not meet: `whitespace-set-white-space` |" in md
    assert "| `chrfpp` | not audited | not audited |" in md
    # environment
    assert "Python" in md and "nltk 3." in md and "nrefs:1\\|case:mixed" in md
    # per family sections with snippet, expected fraction, orders, scope, root cause, patch
    for fam in ("requested-order-divisor", "f-score-averaged", "corpus-macro-average", "whitespace-set-white-space"):
        assert f"`{fam}`" in md
        assert f"![nltk scope chart](charts/nltk-{fam}.svg)" in md
    assert md.count("```diff") == 0  # the diffs are in the upstream issues beside the report
    # one issue per fix: the families a patch fixes together link to that one file
    files = {"requested-order-divisor": "requested-order-divisor", "f-score-averaged": "requested-order-divisor",
             "corpus-macro-average": "requested-order-divisor", "whitespace-set-white-space": "whitespace-set-white-space"}
    for fam, name in files.items():
        issue = (out / "issues" / "nltk" / f"{name}.md").read_text(encoding="utf-8")
        section = md.split(f"## `{fam}`", 1)[1].split("\n## ", 1)[0]
        assert issue.count("```diff") == 1 and f"(issues/nltk/{name}.md)" in section
    assert "| char 1 | 1 | 1 | 1 |" in md and "| char 2–6 | 0 | 0 | 0 | — | — | — | no |" in md
    assert "`169082225/2162349`" in md
    assert "5 of 10 inputs diverge" in md
    assert "4 of 29 inputs diverge" in md
    assert "Platform" not in md and "Linux" not in md  # machine facts stay in audit.json
    assert "segments affected" in md  # impact table
    assert "\x1c" not in md
    # the root-cause line named in the report is the installed source's line
    import nltk.translate.chrf_score as mod

    m = re.search(r"`nltk/translate/chrf_score.py`, line (\d+), in `corpus_chrf`.*`num_ngram_sizes = len", md)
    line = Path(mod.__file__).read_text().splitlines()[int(m.group(1)) - 1]
    assert "num_ngram_sizes = len(ngram_fscores)" in line


def test_markdown_clean_and_not_audited(tmp_path):
    res = example_result(conformance=False)
    write_reports(enrich(res), tmp_path)
    sb = (tmp_path / "sacrebleu.md").read_text()
    assert "No divergence from the claimed definition was found" in sb
    assert sb.count("not audited") == 6
    assert not list((tmp_path / "charts").glob("sacrebleu*"))


def test_charts_are_svg(reports):
    out, _ = reports
    for svg in (out / "charts").glob("*.svg"):
        root = ET.parse(svg).getroot()
        assert root.tag == "{http://www.w3.org/2000/svg}svg"
        assert root.findall(".//{http://www.w3.org/2000/svg}circle") or root.findall(".//{http://www.w3.org/2000/svg}rect")
    s = line_chart("t <&>", "x", "y", [1, 2, 3], [("ref", [100, 100, 100]), ("impl", [16.6, None, 100])])
    ET.fromstring(s)
    ET.fromstring(bar_chart("t", "x", "y", ["U+001C", "b"], [("ref", [100, 100]), ("impl", [37.5, 100])]))


def test_terminal_width_100_and_escaped(result):
    text = terminal_text(result, 100)
    assert all(len(line) <= 100 for line in text.splitlines())
    assert "\x1c" not in text and "\\u001c" in text
    assert "\x1b[" not in text
    for fam in ("requested-order-divisor", "f-score-averaged", "corpus-macro-average"):
        assert fam in text
    assert "16.66667" in text and "-83.33" in text
    assert "sacrebleu" in text and "no finding" in text


def test_terminal_facts(monkeypatch):
    """The writer finds out the terminal's facts: no colour on a pipe or with NO_COLOR; 100
    columns on a pipe unless $COLUMNS says otherwise.  The renderer colours only when told."""
    from audit.files.outputs import terminal_facts

    class Tty(io.StringIO):
        def isatty(self):
            return True

    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert terminal_facts(io.StringIO()) == (100, False)
    assert terminal_facts(Tty())[1] is True
    monkeypatch.setenv("NO_COLOR", "1")
    assert terminal_facts(Tty())[1] is False
    monkeypatch.setenv("COLUMNS", "132")
    assert terminal_facts(io.StringIO()) == (132, False)


def test_terminal_colour_only_when_told(result):
    plain, coloured = terminal_text(result, 100), terminal_text(result, 100, color=True)
    assert "\x1b[" not in plain and "\x1b[1mchrF audit: 4 findings (4 families)\x1b[0m" in coloured
    assert coloured.replace("\x1b[0m", "").replace("\x1b[1m", "").replace("\x1b[32m", "").replace("\x1b[2m", "") == plain


def test_github_summary(result, tmp_path):
    from audit.files.outputs import append_file

    target = tmp_path / "summary.md"
    target.write_text("earlier step\n")
    append_file(target, summary_text(result, ["check passed: no new finding (0 accepted)"]).encode())
    text = target.read_text()
    assert text.startswith("earlier step\n")
    assert "| nltk | `requested-order-divisor` | sentence |" in text
    assert "### chrf-audit check\n\n```\ncheck passed: no new finding (0 accepted)\n```" in text


def test_escape_and_slugs():
    assert escape("a\x1cb\u3000c\\") == "a\\u001cb\\u3000c\\\\"
    assert escape("x" * 50, 10) == "x" * 9 + "…"
    assert escape("\U0001F600") == "\U0001F600"  # printable stays
    assert slug("pkg.mod:fn") == "pkg.mod-fn"
    assert slug("../../etc") == "etc"
    assert unique_slugs(["a:b", "a-b"]) == {"a:b": "a-b", "a-b": "a-b-2"}


def test_generic_implementation(tmp_path):
    repro = Repro("sentence", {"hypothesis": "x|y", "references": ["x"]}, 50.0, "50", None, None, "exception",
                  detail="ZeroDivisionError: boom")
    f = Finding("mypkg.metric:chrf", "exception", "sentence", "the implementation raised an exception", {},
                "sig", "", repro)
    res = AuditResult(1, 10, 1e-9, [AdapterSummary("mypkg.metric:chrf", None, {}, "sig", findings=[f])])
    paths = write_reports(enrich(res), tmp_path)
    md = (tmp_path / "mypkg.metric-chrf.md").read_text()
    assert "from mypkg.metric import chrf" in md and 'print(chrf("x|y", ["x"]))' in md
    assert "ZeroDivisionError: boom" in md and "not audited" in md
    doc = json.loads((tmp_path / "audit.json").read_text())
    jsonschema.Draft202012Validator(_schema()).validate(doc)
    assert doc["findings"][0]["actual"] is None and doc["findings"][0]["outcome"] == "exception"
    (tmp_path / "j.xml").write_bytes(junit.render(document(enrich(res)))["junit.xml"])
    assert ET.parse(tmp_path / "j.xml").getroot().find(".//failure").get("type") == "exception"
    assert len(paths) == 4  # the report, its upstream issue, audit.json, junit.xml


def test_impact_study_record_is_checked_by_the_schema(reports):
    """A record of kind "impact" (chrf-audit run --impact-data) must match $defs/impact_study;
    other impact records stay free form."""
    out, _ = reports
    doc = json.loads((out / "audit.json").read_text(encoding="utf-8"))
    validator = jsonschema.Draft202012Validator(_schema())
    ok = json.loads(json.dumps(doc))
    ok["implementations"][1]["impact"] = {"kind": "impact", "version": 1, "status": "skipped",
                                          "implementation": "sacrebleu", "reason": "no finding"}
    validator.validate(ok)
    bad = json.loads(json.dumps(ok))
    del bad["implementations"][1]["impact"]["reason"]
    assert not validator.is_valid(bad)
    bad = json.loads(json.dumps(ok))
    bad["implementations"][1]["impact"]["status"] = "done"  # a finished study needs its tables
    assert not validator.is_valid(bad)
