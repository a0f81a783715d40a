"""The GitHub Actions job summary: markdown that the writer appends to $GITHUB_STEP_SUMMARY
(``audit.files.outputs``; the path is the caller's fact, never read here).

A view of the document (audit.json): the findings table, each implementation's conformance
matrix, the search settings and, for ``check``, the gate's verdict lines.
"""

from __future__ import annotations

from typing import Optional

from ._doc import actual_text
from ._text import md_cell, md_code, md_fence, num, repro_text, signed, visible
from .markdown import conformance_matrix


def summary_markdown(doc: dict, check_lines: Optional[list[str]] = None) -> str:
    lines = ["## chrF audit", ""]
    findings = doc["findings"]
    if findings:
        rows = [[md_cell(f["implementation"]), md_code(f["family"]), md_cell(f["level"]),
                 md_code(repro_text(f["minimal"]["inputs"], 50)), num(f["minimal"]["expected"]), actual_text(f),
                 signed(f["minimal"].get("difference"))] for f in findings]
        lines += ["| Implementation | Family | Level | Minimal repro | Expected | Actual | Difference |",
                  "| --- | --- | --- | --- | ---: | ---: | ---: |"]
        lines += ["| " + " | ".join(r) + " |" for r in rows]
    else:
        lines.append("No finding.")
    for entry in doc["implementations"]:
        if entry.get("conformance"):
            lines += ["", f"### {md_cell(entry['implementation'])} conformance", ""] + conformance_matrix(entry)
    run = doc["run"]
    lines += ["", f"seed {run['seed']}, max examples {run['max_examples']}, tolerance {run['tolerance']:g}", ""]
    if check_lines:
        lines += ["### chrf-audit check", ""] + md_fence("\n".join(check_lines)) + [""]
    return visible("\n".join(lines)) + "\n"


def render(doc: dict, check_lines: Optional[list[str]] = None) -> dict[str, bytes]:
    """{"step-summary.md": bytes}: what is appended to the job summary."""
    return {"step-summary.md": summary_markdown(doc, check_lines).encode("utf-8", "backslashreplace")}
