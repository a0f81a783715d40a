"""Renderers, in the style of pip-audit's formats: pure functions from the document of an
``EnrichedResult`` (``json_report.build``: audit.json) and facts the caller passes in (the
terminal's width and colour, the gate's verdict lines) to ``{relative path: bytes}``.

* ``render_reports(doc, accepted)``: a reports directory: ``<impl>.md`` per implementation
  (``markdown``), ``issues/<impl>/<family>.md`` (``issues``: one pasteable upstream issue per
  fix, ``issue_units``), ``charts/*.svg`` (``chart``), ``audit.json`` (``json_report``),
  ``junit.xml`` (``junit``);
* ``terminal.render(doc, width=, color=)``: ``terminal.txt``, the text shown after a run;
* ``github.render(doc, check_lines)``: ``step-summary.md``, appended to the job summary.

Nothing here reads the environment, writes a file, looks at an upstream library, calls an
implementation or starts a process (tests/test_architecture.py holds this): one writer,
``audit.files.outputs``, puts the bytes where they go.  Because every renderer reads the document,
a saved audit.json re-renders the same bytes (``chrf-audit report --from``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from . import chart, github, issues, json_report, junit, markdown, terminal
from .json_report import SCHEMA_VERSION, build as document

__all__ = ["document", "render_reports", "owners", "SCHEMA_VERSION", "SCHEMA_PATH",
           "chart", "github", "issues", "json_report", "junit", "markdown", "terminal"]

SCHEMA_PATH = Path(__file__).with_name("schema.json")


def render_reports(doc: dict, accepted: Optional[dict] = None) -> dict[str, bytes]:
    """Every file of a reports directory, by path relative to it.  ``accepted``: the findings
    the CI gate accepts, {(implementation, family): reason} (junit.xml shows them skipped)."""
    files: dict[str, bytes] = {}
    files.update(chart.render(doc))
    files.update(markdown.render(doc))
    files.update(issues.render(doc))
    files.update(json_report.render(doc))
    files.update(junit.render(doc, accepted))
    return files


def owners(doc: dict, files: dict[str, bytes]) -> dict[str, Optional[str]]:
    """Which implementation each file belongs to (None: shared by all, audit.json and
    junit.xml), for the report set's manifest."""
    out: dict[str, Optional[str]] = {}
    by_report = {e["report"]: e["implementation"] for e in doc["implementations"]}
    by_issues = {f"issues/{e['report'][:-3]}/": e["implementation"] for e in doc["implementations"]}
    by_chart = {f["chart"]: f["implementation"] for f in doc["findings"] if f.get("chart")}
    for path in files:
        out[path] = by_report.get(path) or by_chart.get(path) or next(
            (impl for prefix, impl in by_issues.items() if path.startswith(prefix)), None)
    return out
