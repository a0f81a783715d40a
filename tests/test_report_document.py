"""The document (audit.json) is the one input of every renderer (issues 21 and 23):

* ``chrf-audit report --from audit.json`` re-renders the same bytes as the run that wrote it;
* every number of a markdown report and of an upstream issue is a number of audit.json;
* the sections a reader relies on are there (JSON ``scope``, the per-order table, the step
  summary's conformance matrix);
* machine facts (platform) stay in audit.json: the markdown is the same on any machine;
* a report reads in minutes: each family once with both levels, long material folded;
* what a reader cannot see is escaped (NFD vs NFC), and the largest difference names the
  parameters it was scored under.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest

from audit.enrich import enrich
from audit.findings import AdapterSummary, AuditResult, Finding, Repro
from audit.commands.writing import write_reports
from audit.render import document, github, issues, markdown, render_reports
from tests.fixtures.report_examples import example_impact, example_result
from tests.report_numbers import underived

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def doc():
    return document(enrich(example_result(), impact=example_impact()))


def _files(directory: Path) -> dict[str, bytes]:
    return {p.relative_to(directory).as_posix(): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()}


def test_report_from_audit_json_gives_the_same_bytes(doc, tmp_path):
    run = tmp_path / "run"
    write_reports(doc, run)
    again = tmp_path / "again"
    proc = subprocess.run([sys.executable, "-m", "audit.cli", "report", "--from", str(run / "audit.json"),
                           "--reports-dir", str(again), "--quiet"], capture_output=True, text=True, cwd=tmp_path,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    first, second = _files(run), _files(again)
    assert sorted(first) == sorted(second)
    assert "issues/nltk/whitespace-set-white-space.md" in first and "charts/nltk-f-score-averaged.svg" in first
    for rel in first:
        assert first[rel] == second[rel], rel


def test_report_from_refuses_a_broken_file(tmp_path):
    bad = tmp_path / "audit.json"
    bad.write_text(json.dumps({"schema_version": "1.2", "findings": [{"family": "x"}]}))
    proc = subprocess.run([sys.executable, "-m", "audit.cli", "report", "--from", str(bad)], capture_output=True,
                          text=True, cwd=tmp_path, timeout=300)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "does not follow the audit.json schema" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def test_every_markdown_number_comes_from_the_document(doc):
    files = render_reports(doc)
    texts = {rel: data.decode("utf-8") for rel, data in files.items() if rel.endswith(".md")}
    assert "nltk.md" in texts and any(rel.startswith("issues/") for rel in texts)
    for rel, text in texts.items():
        # an issue cites the definition (fixed prose: a paper's year, sacreBLEU >= 2.0, 1e-16)
        assert underived(text, doc, tuple(issues.CITATIONS.values()) if rel.startswith("issues/") else ()) == [], rel
    # the check itself: a number the renderer made up is caught
    assert underived(texts["nltk.md"] + "\nmean of all differences: 42.4242\n", doc) == ["42.4242"]


def test_json_scope_is_what_the_sweep_scored(doc):
    d = next(f for f in doc["findings"] if f["family"] == "requested-order-divisor")
    rows = d["scope"]["rows"]
    assert [r["x"] for r in rows] == list(range(1, 11))
    assert rows[0]["inputs"] == {"hypothesis": "a", "references": ["a"]}
    assert rows[0]["expected"] == 100.0 and rows[0]["actual"] == pytest.approx(100 / 6)
    assert d["scope"]["diverging"] == 5 and rows[5]["difference"] == 0


def test_markdown_sections_a_reader_relies_on(doc):
    md = markdown.render(doc)["nltk.md"].decode("utf-8")
    # conformance and environment first, then the summary, then each family once
    assert md.index("## Conformance") < md.index("## Environment") < md.index("## Summary") < md.index(
        "## `requested-order-divisor`")
    for fam in ("requested-order-divisor", "f-score-averaged", "corpus-macro-average", "whitespace-set-white-space"):
        assert md.count(f"## `{fam}`") == 1
    # the per-order table of the minimal repro, folded
    start = md.index("## `requested-order-divisor`")
    section = md[start:md.index("## `", start + 5)]
    assert "<details><summary>Per-order statistics of the minimal repros</summary>" in section
    assert "| char 1 | 1 | 1 | 1 | `1` | `1` | `1` | yes |" in section
    assert "| char 2–6 | 0 | 0 | 0 | — | — | — | no |" in section
    # the sweep, folded, under its one-line summary
    assert "5 of 10 inputs diverge" in section and (
        "<details><summary>The sweep (consecutive inputs with the same result share a row)</summary>" in section)
    assert "| 1 | `hyp \"a\" ref \"a\"` | 100 | 16.666667 | -83.3333 ⚠ |" in section
    # lengths 6..10 all score 100 against 100: one row names each of them, first and last input shown
    assert ("| 6–10 | `hyp \"abcdef\" ref \"abcdef\"` … `hyp \"abcdefghij\" ref \"abcdefghij\"` | 100 | 100 | +0 |"
            in section)
    assert section.count("| +0 |") == 1


def test_one_family_with_both_levels_in_one_section():
    res = example_result()
    nltk = res.adapters[0]
    f = next(x for x in nltk.findings if x.family == "requested-order-divisor")
    corpus = dataclasses.replace(f, level="corpus", minimal=dataclasses.replace(
        f.minimal, level="corpus", inputs={"hypotheses": ["a"], "references": [["a"]]}))
    both = dataclasses.replace(res, adapters=[dataclasses.replace(nltk, findings=[f, corpus]), *res.adapters[1:]])
    doc = document(enrich(both, with_upstream=False))
    md = markdown.render(doc)["nltk.md"].decode("utf-8")
    assert md.count("## `requested-order-divisor`") == 1
    assert "|  | Sentence level | Corpus level |" in md
    assert "| Minimal repro (escaped) | `hyp \"a\" ref \"a\"` | `1 seg: \"a\"→\"a\"` |" in md
    # one code block holds both levels' snippets, each whole (each runs alone, the block as one program)
    assert md.count("Repro at the sentence and corpus levels:") == 1 and "Repro at the sentence level:" not in md
    block = md.split("Repro at the sentence and corpus levels:\n\n```python\n", 1)[1].split("\n```\n", 1)[0]
    snippets = [x["snippet"].rstrip("\n") for x in doc["findings"] if x["family"] == "requested-order-divisor"]
    assert len(snippets) == 2 and block == "\n\n".join(snippets)
    # the two levels' reference statistics are the same: one table says so
    assert md.count("Sentence and corpus levels (the same statistics), the reference:") == 1
    issue = issues.render(doc)["issues/nltk/requested-order-divisor.md"].decode("utf-8")
    assert "At the corpus level: `1 seg: \"a\"→\"a\"` gives" in issue


def test_step_summary_has_each_conformance_matrix(doc):
    text = github.render(doc)["step-summary.md"].decode("utf-8")
    assert "### nltk conformance" in text and "### sacrebleu conformance" in text
    assert "| `sacrebleu-eps` | ❌ does not meet: `whitespace-set-white-space` |" in text
    assert "| Definition | Sentence level | Corpus level |" in text


def test_markdown_is_the_same_on_any_machine(doc):
    other = copy.deepcopy(doc)
    other["environment"]["platform"] = "Darwin-23.1.0-arm64-arm-64bit"
    assert doc["environment"]["platform"] != other["environment"]["platform"]
    a, b = render_reports(doc), render_reports(other)
    for rel in a:
        if rel.startswith("issues/"):  # an upstream issue names the OS (issue 31): its name, not the machine
            assert a[rel].replace(b", Linux.", b", Darwin.") == b[rel], rel
            assert b"Darwin-23" not in b[rel] and b"arm64" not in b[rel]
        elif rel != "audit.json":
            assert a[rel] == b[rel], rel
    assert a["audit.json"] != b["audit.json"]  # the fact is kept, in the JSON only


def _nfd_result() -> AuditResult:
    def finding(hyp):
        m = Repro("sentence", {"hypothesis": hyp, "references": ["\u00e9aaaaa"]}, 100.0, "100", 50.0, "0.5", "value")
        return Finding("x", "unicode-normalization", "sentence", "t", {}, "", "", m)

    nfc, nfd = "\u00e9aaaaa", unicodedata.normalize("NFD", "\u00e9aaaaa")
    return AuditResult(0, 1, 1e-9, [AdapterSummary("x", "1", {}, "s", findings=[finding(nfc)]),
                                    AdapterSummary("y", "1", {}, "s", findings=[dataclasses.replace(
                                        finding(nfd), implementation="y")])])


def test_nfd_and_nfc_print_differently_everywhere():
    doc = document(enrich(_nfd_result(), with_upstream=False))
    summary = github.render(doc)["step-summary.md"].decode("utf-8")
    assert '`hyp "éaaaaa" ref "éaaaaa"`' in summary
    assert '`hyp "e\\u0301aaaaa" ref "éaaaaa"`' in summary
    md = markdown.render(doc)
    assert '"e\\u0301aaaaa"' in md["y.md"].decode("utf-8") and '"e\\u0301aaaaa"' not in md["x.md"].decode("utf-8")


def test_largest_difference_names_its_parameters():
    """The report once said "Largest difference seen: -87.5 on hyp "a" ref "a" (expected 100,
    actual 12.5)" beside a sweep scoring that input 16.67: the largest was scored by the
    claims swarm at char order 8.  The report says so now."""
    res = example_result()
    nltk = res.adapters[0]
    f = next(x for x in nltk.findings if x.family == "requested-order-divisor")
    largest = dataclasses.replace(f.minimal, actual=12.5, actual_raw="0.125",
                                  claims={**f.claims, "char_order": 8})
    g = dataclasses.replace(f, largest=largest, claims={**f.claims, "char_order": 6})
    res = dataclasses.replace(res, adapters=[dataclasses.replace(nltk, findings=[g])])
    doc = document(enrich(res, with_upstream=False))
    assert doc["findings"][0]["largest"]["claims"]["char_order"] == 8
    md = markdown.render(doc)["nltk.md"].decode("utf-8")
    assert ('| Largest difference seen (this family alone) | -87.5 on `hyp "a" ref "a"` with char_order=8 (expected 100, '
            'actual 12.5) |' in md)


def test_combined_patch_is_linked_and_pasteable():
    """The enrich fact ``combined_patches`` (one diff fixing every family with a patch) shows in
    the document, the report's summary and as an issue of its own."""
    e = enrich(example_result(), with_upstream=False)
    e.combined_patches = {"nltk": {"diff": "--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\n",
                                   "families": ["requested-order-divisor", "f-score-averaged"], "verified": True}}
    doc = document(e)
    entry = next(i for i in doc["implementations"] if i["implementation"] == "nltk")
    assert entry["combined_patch"]["verified"] is True
    assert "combined_patch" not in next(i for i in doc["implementations"] if i["implementation"] == "sacrebleu")
    files = render_reports(doc)
    md = files["nltk.md"].decode("utf-8")
    assert ("**All at once:** one combined patch fixes `requested-order-divisor`, `f-score-averaged` (verified): "
            "[`issues/nltk/all-families.md`](issues/nltk/all-families.md)." in md)
    issue = files["issues/nltk/all-families.md"].decode("utf-8")
    assert issue.startswith("# nltk 3.10.4: one patch for the 2 chrF findings") and "```diff\n--- a/x.py" in issue
    assert "(requested-order-divisor.md)" in issue and "(f-score-averaged.md)" in issue
    assert underived(issue, doc) == []


def test_upgrade_leaves_a_new_document_alone_and_fills_an_old_one(doc):
    from audit.render.json_report import upgrade

    assert upgrade(doc) == doc
    old = copy.deepcopy(doc)
    old["schema_version"] = "1.1"
    for f in old["findings"]:
        f.pop("snippet_language")
        f["minimal"].pop("difference")
        if f.get("scope"):
            f["scope"].pop("diverging")
    assert upgrade(old) == doc


def test_issue_shows_the_root_cause_excerpt_only_when_the_diff_does_not():
    """The diff's removed line *is* the root-cause line with its context: the issue then names
    it once instead of repeating the excerpt; a root cause the patch leaves alone keeps it."""
    doc = document(enrich(example_result(), with_upstream=False))
    f = next(x for x in doc["findings"] if x["implementation"] == "nltk" and x["family"] == "requested-order-divisor")
    f["root_cause"] = {"file": "m.py", "line": 2, "function": "score", "why": "the divisor",
                       "excerpt": "1      a = 1\n2>     return a / 6\n3      # end"}
    f["patch"] = {"diff": "--- a/m.py\n+++ b/m.py\n@@ -1,3 +1,3 @@\n     a = 1\n-    return a / 6\n+    return a / n\n"
                          "     # end\n", "verified": True, "description": "divide by n"}
    text = issues.render(doc)["issues/nltk/requested-order-divisor.md"].decode("utf-8")
    assert ("`m.py`, line 2, in `score`: `return a / 6` — the divisor. The patch below replaces this line." in text
            and "2>     return a / 6" not in text)
    f["patch"]["diff"] = f["patch"]["diff"].replace("-    return a / 6\n+    return a / n\n", "     return a / 6\n+    n = 6\n")
    text = issues.render(doc)["issues/nltk/requested-order-divisor.md"].decode("utf-8")
    assert "`m.py`, line 2, in `score`: the divisor." in text and "```python\n1      a = 1\n2>     return a / 6" in text


def test_family_impact_table_is_folded_and_the_study_is_not():
    """The 16-system table of each family's impact is long material (folded); the study's own
    system table and pairwise calls, the answer a reader came for, stay open."""
    doc = json.loads((Path(__file__).resolve().parents[1] / "reports" / "wmt17" / "audit.json").read_text("utf-8"))
    md = markdown.render(doc)["nltk.md"].decode("utf-8")
    sections = md.split("\n### Impact on a corpus\n")[1:]
    assert len(sections) == 4  # one per family
    folded = [s for s in sections if "<details><summary>System by system</summary>" in s.split("\n## ", 1)[0]]
    assert len(folded) == 3  # the fourth (whitespace) changes no system: a sentence says so
    for s in folded:
        body = s.split("\n## ", 1)[0]
        assert body.index("<details><summary>System by system</summary>") < body.index("| System | Reference |")
        assert body.index("| System | Reference |") < body.index("</details>")
    top = md.split("## Impact on a corpus\n", 1)[1].split("\n## `", 1)[0]
    assert "### Systems" in top and "<details>" not in top


def test_an_absolute_source_path_shows_its_file_name_only():
    """An external program's root cause is a path on the auditing machine: the report names the
    file (the path stays in audit.json), so the report reads the same on any machine."""
    doc = document(enrich(example_result(), with_upstream=False))
    f = next(x for x in doc["findings"] if x["implementation"] == "nltk" and x["family"] == "requested-order-divisor")
    f["root_cause"] = {"file": "/home/someone/chrF/chrF++.py", "function": "computeChrF", "why": "w"}
    md = markdown.render(doc)["nltk.md"].decode("utf-8")
    text = issues.render(doc)["issues/nltk/requested-order-divisor.md"].decode("utf-8")
    for out in (md, text):
        assert "`chrF++.py`, in `computeChrF`" in out and "/home/someone" not in out
    f["root_cause"]["file"] = "nltk/translate/chrf_score.py"
    assert "`nltk/translate/chrf_score.py`, in `computeChrF`" in markdown.render(doc)["nltk.md"].decode("utf-8")
