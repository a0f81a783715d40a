"""Renderers of an ``AuditResult``: rich terminal table, markdown bug report per
implementation, versioned JSON, JUnit XML, SVG charts, GitHub job summary.

They read the plain records of ``audit.findings`` only; upstream knowledge (snippets, root
causes, patches, scope sweeps) comes from ``audit.upstream``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from ..outputs import report_set
from .chart import scope_chart
from .details import collect, plain
from .github import append_github_summary
from .json_report import SCHEMA_VERSION, write_json
from .junit import write_junit
from .markdown import render_markdown
from .terminal import render_terminal

__all__ = ["render_terminal", "write_reports", "write_json", "write_junit", "append_github_summary",
           "render_markdown", "SCHEMA_VERSION", "SCHEMA_PATH"]

SCHEMA_PATH = Path(__file__).with_name("schema.json")




def write_reports(result, out_dir, *, impact: Optional[dict] = None, timestamp: bool = False,
                  verify_patches: bool = True) -> list[Path]:
    """Write ``<impl>.md`` per implementation, ``audit.json``, ``junit.xml`` and
    ``charts/<impl>-<family>.svg`` into ``out_dir``; return the paths written.

    Byte-identical for the same result (and environment): nothing time-dependent is written
    unless ``timestamp=True``, which adds one separate ``volatile`` field to audit.json.
    ``impact`` maps implementation -> a precomputed impact record (optional ``by_family``).
    ``verify_patches`` judges each suggested patch on a temporary copy of the upstream
    (``audit.patch_validation.verify_suggested``: the copy audited, the repros replayed)."""
    out = Path(out_dir)
    det = collect(result, verify_patches=verify_patches)
    impact = plain(impact) if impact is not None else None
    # everything is rendered first, then written as one set (atomic files, under the
    # directory's lock, stale files of an earlier run removed): see audit.outputs
    files: list[tuple[str, str]] = []
    for a in result.adapters:
        for f in a.findings:
            fd = det.of(f)
            if fd.scope and fd.chart:
                files.append((fd.chart, scope_chart(f.implementation, f.family, fd.scope)))
        files.append((f"{det.slugs[a.implementation]}.md", render_markdown(a, result, det, impact)))
    with report_set(out) as rs:
        paths = [rs.write(rel, text) for rel, text in files]
        paths.append(write_json(result, out / "audit.json", impact=impact, timestamp=timestamp, details=det,
                                writer=lambda p, data: rs.write(p.name, data)))
        paths.append(write_junit(result, out / "junit.xml", writer=lambda p, data: rs.write(p.name, data)))
    return paths
