"""The contract-conformance table of a service (``AdapterSummary.contract``): each promise of
its contract, kept or broken with its finding, for the markdown report and the terminal.
Pure functions of the plain table ``audit.contract.conformance`` records.

What a service answered (a broken promise's detail, the example's values) and what a
contract file or an audit.json states are untrusted text: each is shown escaped (``_text``:
no control character reaches a terminal, no newline, markdown or HTML reaches a document) and
cut to a length (an answer may be megabytes)."""

from __future__ import annotations

import textwrap
from typing import Optional

from ._text import md_cell, md_code, md_table, visible

#: characters of one value of the service's answer shown
SHOWN = 60
#: characters of what broke a promise shown on the terminal (wrapped, not cut to the width)
BROKEN_SHOWN = 300


def _value(v, limit: int = SHOWN) -> str:
    """A value of the answer as one visible line of at most ``limit`` characters."""
    text = visible(v if isinstance(v, str) else str(v), keep="")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _label(row: dict) -> str:
    return visible(str(row["family"]), keep="")


def _unchecked(rows: list) -> str:
    """", N not checked" when a promise got no answer to judge (a service that stopped answering)."""
    n = sum(r["status"] == "not checked" for r in rows)
    return f", {n} not checked" if n else ""


def markdown_lines(table: Optional[dict]) -> list[str]:
    if not table:
        return []
    rows = table["promises"]
    kept = sum(r["status"] == "kept" for r in rows)
    lines = [f"## Contract conformance: {md_code(_value(table['contract'], 200))}", "",
             f"{kept} of {len(rows)} promises kept{_unchecked(rows)} ({table.get('requests', 0)} requests to "
             f"{md_cell(table.get('url', ''))}, {table.get('retries', 0)} retried).", ""]
    body = []
    for r in rows:
        status = {"kept": "✅ kept", "broken": "❌ broken"}.get(r["status"], "➖ not checked")
        found = ", ".join(md_code(f) for f in r["findings"]) or "—"
        body.append([md_code(_label(r)), md_cell(r["promise"]), status, found, str(r.get("checked", 0))])
    lines += md_table(["Promise", "What the contract says", "Status", "Finding", "Checked"], body,
                      ["---", "---", "---", "---", "---:"])
    ex = table.get("example")
    if ex:
        svc = ex.get("service") or {}
        lines += ["", f"The contract's example: the service answered score {md_code(_value(svc.get('score')))}, "
                      f"score_fraction {md_code(_value(svc.get('score_fraction')))}; exactly: "
                      f"{md_code(_value(ex['reference']['score']))}, {md_code(_value(ex['reference']['score_fraction']))} — "
                      + ("**reproduced**." if ex.get("reproduced") else "**not reproduced**.")]
    for r in table.get("readings") or []:
        if r.get("checked") == "answers":
            lines += ["", f"The contract leaves a point open ({md_code(_value(r.get('id', ''), 80))}); the "
                          "service's answers follow: "
                          f"**{md_cell(_value(r.get('says', ''), 300))}** ({r.get('answers', 0)} answers tell the "
                          "readings apart; every declared reading keeps the promise)."]
    doc = table.get("document")
    if doc:
        lines += ["", f"Contract document {md_code(_value(doc.get('from', ''), 200))}: "
                      + (f"{len(doc['differences'])} differences from the built-in contract:" if doc.get("differences")
                         else "the same as the built-in contract." if doc.get("builtin") else "no built-in contract "
                         "of its name@version to compare with.")]
        lines += [f"- {md_cell(_value(d, 200))}" for d in doc.get("differences") or []]
    return lines + [""]


def reading_lines(table: Optional[dict], width: int = 100) -> list[str]:
    """One line per point the contract leaves open that answers show: the reading followed."""
    out = []
    for r in (table or {}).get("readings") or []:
        if r.get("checked") == "answers":
            # the reading is the point of the line: wrapped, never cut
            text = f"reading: {_value(r.get('says', ''), 300)} ({r.get('answers', 0)} answers tell the readings apart)"
            out += textwrap.wrap(text, max(width, 40), initial_indent="  ", subsequent_indent="    ",
                                 break_long_words=True, break_on_hyphens=False)
    return out


def terminal_lines(implementation: str, table: Optional[dict], width: int = 100) -> list[str]:
    if not table:
        return []
    rows = table["promises"]
    kept = sum(r["status"] == "kept" for r in rows)
    # the count first: at any width the verdict is one unbroken phrase at the start of the line
    out = [f"{kept} of {len(rows)} promises kept{_unchecked(rows)}: contract {_value(table['contract'], 200)} of "
           f"{visible(implementation, keep='')}"]
    name_w = max(len(_label(r)) for r in rows)
    for r in rows:
        if r["status"] == "kept":
            line = f"  kept    {_label(r).ljust(name_w)}  {_value(r['promise'], width)}"
            out.append(line if len(line) <= width else line[: width - 1] + "…")
        elif r["status"] == "not checked":
            line = f"  -       {_label(r).ljust(name_w)}  not checked: no answer came to judge it"
            out.append(line if len(line) <= width else line[: width - 1] + "…")
        else:
            # what broke it is the point of the row (the value against the contract's): wrapped
            # (``_fit``), never cut, at any width, on a terminal or in a pipe
            detail = r.get("detail") or ", ".join(r["findings"])
            out.append(f"  BROKEN  {_label(r).ljust(name_w)}  {_value(detail, BROKEN_SHOWN)}")
    ex = table.get("example")
    if ex:
        svc = ex.get("service") or {}
        out.append(f"  example: {_value(svc.get('score'))} {_value(svc.get('score_fraction'))} "
                   + ("(reproduced)" if ex.get("reproduced") else
                      f"(not reproduced: exactly {_value(ex['reference']['score'])} "
                      f"{_value(ex['reference']['score_fraction'])})"))
    out += reading_lines(table, width)
    doc = table.get("document")
    if doc and doc.get("differences"):
        out.append(f"  contract document {_value(doc.get('from', ''), 120)}: {len(doc['differences'])} differences from "
                   "the built-in contract (printed before the audit; audit.json)")
    return [part for line in out for part in _fit(line, width)]


def _fit(line: str, width: int) -> list[str]:
    """``line`` within ``width`` columns: wrapped at spaces, continued under its indent."""
    if len(line) <= width:
        return [line]
    indent = " " * (len(line) - len(line.lstrip()) + 4)
    return textwrap.wrap(line, width, subsequent_indent=indent, break_on_hyphens=False,
                         drop_whitespace=True) or [line[:width]]
