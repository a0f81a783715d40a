"""A markdown summary appended to $GITHUB_STEP_SUMMARY (GitHub Actions job summary)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Optional

from ._text import md_cell, md_code, num, repro_text, signed, visible
from .markdown import conformance_matrix


def summary_markdown(result) -> str:
    lines = ["## chrF audit", ""]
    findings = result.findings
    if findings:
        rows = [[md_cell(f.implementation), f"`{f.family}`", f.level, md_code(repro_text(f.minimal.inputs, 50)),
                 num(f.minimal.expected), num(f.minimal.actual) if f.minimal.outcome == "value" else f.minimal.outcome,
                 signed(f.minimal.difference)] for f in findings]
        lines += ["| Implementation | Family | Level | Minimal repro | Expected | Actual | Difference |",
                  "| --- | --- | --- | --- | ---: | ---: | ---: |"]
        lines += ["| " + " | ".join(r) + " |" for r in rows]
    else:
        lines.append("No finding.")
    for a in result.adapters:
        if getattr(a, "conformance", None):
            lines += ["", f"### {md_cell(a.implementation)} conformance", ""] + conformance_matrix(a)
    lines += ["", f"seed {result.seed}, max examples {result.max_examples}, tolerance {result.tolerance:g}", ""]
    return visible("\n".join(lines))


def append_github_summary(result, path: Optional[str] = None) -> Optional[Path]:
    """Append the summary to ``path`` or $GITHUB_STEP_SUMMARY; None (nothing written) when
    neither is set."""
    target = path or os.environ.get("GITHUB_STEP_SUMMARY")
    if not target:
        return None
    p = Path(target)
    with open(p, "a", encoding="utf-8") as fh:
        fh.write(summary_markdown(result) + "\n")
    return p
