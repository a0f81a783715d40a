"""Renderers of an ``AuditResult``: rich terminal table, markdown bug report per
implementation, versioned JSON, JUnit XML, SVG charts, GitHub job summary.

They read the plain records of ``audit.findings`` only; upstream knowledge (snippets, root
causes, patches, scope sweeps) comes from ``audit.upstream``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

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


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        fh.write(text)
    return path


def write_reports(result, out_dir, *, impact: Optional[dict] = None, timestamp: bool = False,
                  verify_patches: bool = True) -> list[Path]:
    """Write ``<impl>.md`` per implementation, ``audit.json``, ``junit.xml`` and
    ``charts/<impl>-<family>.svg`` into ``out_dir``; return the paths written.

    Byte-identical for the same result (and environment): nothing time-dependent is written
    unless ``timestamp=True``, which adds one separate ``volatile`` field to audit.json.
    ``impact`` maps implementation -> a precomputed impact record (optional ``by_family``).
    ``verify_patches`` re-audits each suggested patch on a temporary copy of the upstream."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    det = collect(result, verify_patches=verify_patches)
    impact = plain(impact) if impact is not None else None
    paths: list[Path] = []
    for a in result.adapters:
        for f in a.findings:
            fd = det.of(f)
            if fd.scope and fd.chart:
                paths.append(_write(out / fd.chart, scope_chart(f.implementation, f.family, fd.scope)))
        paths.append(_write(out / f"{det.slugs[a.implementation]}.md", render_markdown(a, result, det, impact)))
    paths.append(write_json(result, out / "audit.json", impact=impact, timestamp=timestamp, details=det))
    paths.append(write_junit(result, out / "junit.xml"))
    return paths
