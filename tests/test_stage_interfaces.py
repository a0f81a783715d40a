"""Concepts in their stage (issue 34 item 5): the conformance matrix reads a unit of the audit
through a declared interface, not collect's checker by duck typing; the enrich stage names no
report file (the renderers do); the JSON report's builder reads no clock (the command passes
the time in: tests/test_architecture.py holds every renderer to that, tests/test_reports.py
the ``volatile`` field)."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

from reference_impl import ChrfParams

ROOT = Path(__file__).resolve().parents[1]


class _Unit:
    """Exactly ``UnitScores``: samples, tolerance, classify, and no adapter."""

    tolerance = 1e-9

    def __init__(self, samples):
        self.samples = samples
        self.asked = []

    def classify(self, level, segments, params, actual):
        self.asked.append((params.definition, segments, actual))
        return None


def test_the_conformance_matrix_reads_a_unit_through_its_declared_interface():
    from audit.collect.checker import Checker
    from audit.diagnose.conformance import UnitScores, level_conformance

    assert UnitScores in Checker.__mro__  # declared, so the layer test sees collect -> diagnose
    unit = _Unit({"sentence": [([("a", ["a"])], 100.0)], "corpus": []})
    assert isinstance(unit, UnitScores)
    # "a" against "a" scores 100 under sacreBLEU's definition; the other two average over the
    # six requested orders (100/6): each divergence is classified, nothing explains it
    got = level_conformance(unit, ChrfParams(definition="sacrebleu"), {}, "sentence")
    assert got == {"sacrebleu": [], "sacrebleu-eps": ["unexplained"], "chrfpp": ["unexplained"]}
    assert unit.asked == [("sacrebleu-eps", [("a", ["a"])], 100.0), ("chrfpp", [("a", ["a"])], 100.0)]


def test_the_conformance_module_uses_no_member_the_interface_does_not_declare():
    from audit.diagnose import conformance

    declared = {n for n in conformance.UnitScores.__annotations__} | {
        n for n in vars(conformance.UnitScores) if not n.startswith("_")}
    tree = ast.parse(Path(conformance.__file__).read_text(encoding="utf-8"))
    fn = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "level_conformance")
    unit = fn.args.args[0].arg
    used = {n.attr for n in ast.walk(fn) if isinstance(n, ast.Attribute)
            and isinstance(n.value, ast.Name) and n.value.id == unit}
    assert used == {"samples", "tolerance", "classify"} and used <= declared
    assert "adapter" not in [a.arg for a in fn.args.args]


def _strings(path: Path) -> list[str]:
    return [n.value for n in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(n, ast.Constant) and isinstance(n.value, str)]


def test_the_enrich_stage_names_no_report_file():
    """The report per implementation and a sweep's chart are named where the document is
    built (``audit.render.json_report``); the enriched result carries no file name."""
    from audit.enriched import EnrichedResult, FindingDetails

    assert {f.name for f in dataclasses.fields(EnrichedResult)} >= {"result", "details"}
    assert "slugs" not in {f.name for f in dataclasses.fields(EnrichedResult)}
    assert "chart" not in {f.name for f in dataclasses.fields(FindingDetails)}
    named = {str(p.relative_to(ROOT)): s for p in sorted((ROOT / "audit" / "enrich").rglob("*.py"))
             for s in _strings(p) if s.endswith((".md", ".svg")) or "charts/" in s or "{slug" in s}
    assert named == {}
    sources = [p.read_text(encoding="utf-8") for p in (ROOT / "audit" / "enrich").rglob("*.py")]
    assert not any("unique_slugs" in s for s in sources)


def test_the_document_names_the_files_the_enrich_stage_no_longer_does():
    from audit.enrich import enrich
    from audit.render import document
    from tests.fixtures.report_examples import example_result

    doc = document(enrich(example_result(), with_upstream=True))
    assert [e["report"] for e in doc["implementations"]] == ["nltk.md", "sacrebleu.md"]
    charts = {(f["family"], f["level"]): f["chart"] for f in doc["findings"]}
    assert all(c == f"charts/nltk-{fam}.svg" for (fam, _), c in charts.items() if c)
    assert any(charts.values())
    assert all((f["chart"] is None) == (not f["scope"]) for f in doc["findings"])
