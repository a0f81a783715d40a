"""Renderers: rich terminal table, markdown bug report per implementation, versioned JSON,
JUnit XML, SVG charts, GitHub job summary.

Pure functions of their input: the markdown reports, audit.json and the charts render an
``EnrichedResult`` (``audit.enriched``, made by ``audit.enrich.enrich``: snippets, root
causes, patches and their verification, scope sweeps); the terminal table, junit.xml and the
job summary render the plain records of the ``AuditResult`` alone.  Nothing here looks at
an upstream library, calls an implementation or starts a process
(tests/test_architecture.py holds this).
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from ..files.report_set import report_set
from . import carry, json_report, junit
from ._plain import plain
from .chart import scope_chart
from .github import append_github_summary
from .json_report import SCHEMA_VERSION, write_json
from .junit import write_junit
from .markdown import render_markdown
from .terminal import render_terminal

__all__ = ["render_terminal", "write_reports", "write_json", "write_junit", "append_github_summary",
           "render_markdown", "SCHEMA_VERSION", "SCHEMA_PATH"]

SCHEMA_PATH = Path(__file__).with_name("schema.json")


def write_reports(enriched, out_dir, *, impact: Optional[dict] = None, timestamp: bool = False,
                  accepted: Optional[dict] = None) -> list[Path]:
    """Write ``<impl>.md`` per implementation, ``audit.json``, ``junit.xml`` and
    ``charts/<impl>-<family>.svg`` of an ``EnrichedResult`` into ``out_dir``; return the
    paths written.  The reports an earlier run wrote there for implementations this one does
    not audit stay, and audit.json and junit.xml carry them over (``carry``).

    Byte-identical for the same enriched result: nothing time-dependent is written unless
    ``timestamp=True``, which adds one separate ``volatile`` field to audit.json.
    ``impact`` maps implementation -> a precomputed impact record (optional ``by_family``).
    ``accepted``: the findings the CI gate accepts, {(implementation, family): reason}
    (junit.xml shows them skipped, not failed)."""
    out = Path(out_dir)
    result = enriched.result
    impact = plain(impact) if impact is not None else None
    # everything is rendered first, then written as one set (atomic files, under the
    # directory's lock, stale files of an earlier run removed): see audit.files.outputs
    files: list[tuple[str, str, str]] = []  # (path, text, owner)
    for a in result.adapters:
        for f in a.findings:
            fd = enriched.of(f)
            if fd.scope and fd.chart:
                files.append((fd.chart, scope_chart(f.implementation, f.family, fd.scope), a.implementation))
        files.append((f"{enriched.slugs[a.implementation]}.md", render_markdown(a, enriched, impact), a.implementation))
    doc = json_report.build(enriched, impact=impact, timestamp=timestamp)
    suites = junit.build(result, accepted)
    with report_set(out) as rs:
        earlier = carry.earlier_json(rs.previous_text("audit.json"))
        names = carry.carried_names(earlier, {a.implementation for a in result.adapters}, rs.previous_owners(),
                                    {rel for rel, _, _ in files})
        rs.keep(names)
        paths = [rs.write(rel, text, owner) for rel, text, owner in files]
        paths.append(rs.write("audit.json", json_report.dumps(carry.merge_json(doc, earlier, names))))
        paths.append(rs.write("junit.xml", junit.to_bytes(carry.merge_junit(suites, rs.previous_text("junit.xml"), names))))
    return paths
