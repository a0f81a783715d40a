"""Stats reports as plain records: JSON (the score reports' schema family), terminal table.

The JSON keeps the score reports' top level (``schema_version``, ``findings`` with
``implementation``, ``family``, ``level``, ``repro``, ``expected``, ``actual``, ``outcome``)
with ``kind: "stats"``; ``level`` is ``ci`` or ``paired``, ``expected``/``actual`` are objects
(``{"low", "high"}``, ``{"p_value"}``, ``{"coverage"}``...).  Nothing time-dependent is
written: same seed and environment give byte-identical files.
"""

from __future__ import annotations

import math
from dataclasses import asdict

from ..files import jsontext
from ..render._text import visible
from .families import FAMILIES
from .runner import StatsRun

SCHEMA_VERSION = "1.0"
_MAX_LIST = 200


def _plain(x):
    if isinstance(x, dict):
        return {str(k): _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    if hasattr(x, "item") and not isinstance(x, (str, bytes)):
        x = x.item()
    if isinstance(x, float):
        return x if math.isfinite(x) else None
    if isinstance(x, frozenset):
        return sorted(x)
    return x


def claims_dict(proc) -> dict:
    c = proc.claims
    d = asdict(c)
    d["params"] = {"char_order": c.params.char_order, "word_order": c.params.word_order,
                   "beta": float(c.params.beta), "definition": c.params.definition}
    d["accepts"] = sorted(c.accepts)
    return d


def _repro(call):
    if not isinstance(call, dict):
        return call
    out = dict(call)
    if "hyps" in out and isinstance(out["hyps"], list):
        out["hypotheses"] = out.pop("hyps")
        out["references"] = out.pop("refs")
        if "hyps_b" in out:
            out["hypotheses_b"] = out.pop("hyps_b")
    return out


def build(run: StatsRun) -> dict:
    procs = []
    for r in run.runs:
        p = r.procedure
        procs.append({
            "implementation": p.name, "library": p.library, "version": p.version,
            "level": p.kind, "source": p.source, "claims": claims_dict(p),
            "environment": getattr(p, "environment", None),
            "checks": [{"family": c.family, "check": c.check, "status": c.status,
                        "summary": c.summary, "test": c.test,
                        "evidence": {k: v for k, v in c.evidence.items() if k != "p_values"}}
                       for c in r.results],
            "null_p_values": next((c.evidence["p_values"][:_MAX_LIST] for c in r.results
                                   if "p_values" in c.evidence), None),
        })
    findings = []
    for f in run.findings:
        m = f.main
        findings.append({
            "implementation": f.procedure, "family": f.family, "level": f.level,
            "title": FAMILIES[f.family].title, "summary": m.summary, "check": m.check,
            "test": m.test, "repro": _repro(m.call), "expected": m.expected, "actual": m.actual,
            "outcome": m.outcome, "false_alarm": FAMILIES[f.family].false_alarm,
            "also": [{"check": c.check, "summary": c.summary} for c in f.checks[1:]],
        })
    doc = {
        "schema_version": SCHEMA_VERSION, "kind": "stats",
        "tool": {"name": "chrf-audit", "version": run.environment.get("chrf_audit")},
        "run": {"seed": run.settings.seed, "settings": asdict(run.settings)},
        "environment": run.environment,
        "families": {k: {"title": f.title, "test": f.test, "false_alarm": f.false_alarm}
                     for k, f in FAMILIES.items()},
        "implementations": procs,
        "findings": findings,
    }
    return _plain(doc)


def to_json(run: StatsRun) -> str:
    return jsontext.dumps(build(run))


def family_rows(r) -> list[tuple[str, str, str]]:
    """(family, status, what) per audited family of one procedure run, in the families'
    order: the terminal table and the markdown summary both show these."""
    fams = {f.family: f for f in r.findings}
    rows = []
    for fam in FAMILIES:
        checks = [c for c in r.results if c.family == fam]
        if not checks:
            continue
        if fam in fams:
            status, what = "finding", fams[fam].main.summary
        elif any(c.status == "inconclusive" for c in checks):
            status, what = "inconclusive", next(c.summary for c in checks if c.status == "inconclusive")
        else:
            status, what = "pass", f"{len(checks)} check(s) passed"
        rows.append((fam, status, what))
    return rows


def elide(text: str, limit: int) -> str:
    """``text`` in at most ``limit`` characters: whole when it fits, else cut at the last
    space before the limit (inside a word only when there is none) and ended with "…"."""
    if len(text) <= limit:
        return text
    head = text[:limit - 1]
    cut = head.rfind(" ")
    return (head[:cut] if cut > 0 else head).rstrip(" ,;:") + "…"


def terminal_rows(run: StatsRun) -> list[tuple[str, str, str, str]]:
    """(procedure, family, status, what) per audited family, in the order of the report;
    a long "what" elided (the report has it whole)."""
    # names and exception texts come from the procedure under audit: shown, never acted on
    return [(visible(r.procedure.name, keep=""), fam, status, elide(visible(what, keep=""), 160))
            for r in run.runs for fam, status, what in family_rows(r)]


_STYLE = {"finding": "red", "inconclusive": "yellow", "pass": "green"}


def terminal(run: StatsRun, console=None) -> None:
    """One table per procedure, titled with its name: the family, status and what happened
    keep their width in an 80-column terminal (a procedure column would fold names such as
    ``chrf-audit:paired-permutation`` on every row)."""
    from itertools import groupby

    from rich import box
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table
    console = console or Console()
    console.print("[bold]chrf-audit stats: statistical procedures[/bold]")
    all_rows = terminal_rows(run)
    family_width = max((len(row[1]) for row in all_rows), default=6)  # aligned across the tables
    for procedure, rows in groupby(all_rows, key=lambda row: row[0]):
        table = Table(title=escape(procedure), title_justify="left", box=box.SIMPLE_HEAD)
        table.add_column("family", no_wrap=True, min_width=family_width, overflow="ellipsis")
        table.add_column("status", no_wrap=True, min_width=len("inconclusive"), overflow="ellipsis")
        table.add_column("what", overflow="fold", ratio=1)  # wrapped at spaces; a word longer than the column folded
        for _, fam, status, what in rows:
            table.add_row(fam, f"[{_STYLE[status]}]{status}[/{_STYLE[status]}]", escape(what))
        console.print(table)
    n = len(run.findings)
    console.print(f"{n} finding(s) in {len(run.runs)} procedure(s), seed {run.settings.seed}")
