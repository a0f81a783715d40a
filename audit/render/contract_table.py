"""The contract-conformance table of a service (``AdapterSummary.contract``): each promise of
its contract, kept or broken with its finding, for the markdown report and the terminal.
Pure functions of the plain table ``audit.collect.service_contract`` records."""

from __future__ import annotations

from typing import Optional

from ._text import md_cell, md_table


def _label(row: dict) -> str:
    return "search" if row["family"] == "search" else row["family"]


def markdown_lines(table: Optional[dict]) -> list[str]:
    if not table:
        return []
    rows = table["promises"]
    kept = sum(r["status"] == "kept" for r in rows)
    lines = [f"## Contract conformance: `{table['contract']}`", "",
             f"{kept} of {len(rows)} promises kept ({table.get('requests', 0)} requests to "
             f"{md_cell(table.get('url', ''))}, {table.get('retries', 0)} retried).", ""]
    body = []
    for r in rows:
        status = "✅ kept" if r["status"] == "kept" else "❌ broken"
        found = ", ".join(f"`{f}`" for f in r["findings"]) or "—"
        body.append([f"`{_label(r)}`", md_cell(r["promise"]), status, found, str(r.get("checked", 0))])
    lines += md_table(["Promise", "What the contract says", "Status", "Finding", "Checked"], body,
                      ["---", "---", "---", "---", "---:"])
    ex = table.get("example")
    if ex:
        svc = ex.get("service") or {}
        lines += ["", f"The contract's example: the service answered score `{svc.get('score')}`, score_fraction "
                      f"`{svc.get('score_fraction')}`; exactly: `{ex['reference']['score']}`, "
                      f"`{ex['reference']['score_fraction']}` — "
                      + ("**reproduced**." if ex.get("reproduced") else "**not reproduced**.")]
    return lines + [""]


def terminal_lines(implementation: str, table: Optional[dict], width: int = 100) -> list[str]:
    if not table:
        return []
    rows = table["promises"]
    kept = sum(r["status"] == "kept" for r in rows)
    out = [f"contract {table['contract']} of {implementation}: {kept} of {len(rows)} promises kept"]
    name_w = max(len(_label(r)) for r in rows)
    for r in rows:
        if r["status"] == "kept":
            line = f"  kept    {_label(r).ljust(name_w)}  {r['promise']}"
        else:
            detail = r.get("detail") or ", ".join(r["findings"])
            line = f"  BROKEN  {_label(r).ljust(name_w)}  {detail}"
        out.append(line if len(line) <= width else line[: width - 1] + "…")
    ex = table.get("example")
    if ex:
        svc = ex.get("service") or {}
        out.append(f"  example: {svc.get('score')} {svc.get('score_fraction')} "
                   + ("(reproduced)" if ex.get("reproduced") else
                      f"(not reproduced: exactly {ex['reference']['score']} {ex['reference']['score_fraction']})"))
    return out
