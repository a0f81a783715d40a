"""The survey's reports (``chrf-audit survey``, docs/survey.md): pure functions of its document.

``render(doc)`` -> ``{"survey.md": ..., "survey.json": ...}``: the one table (implementation,
version, runtime, definition claimed and followed, families named, unexplained rows, fit scope,
verdict, the second route beside it, audit time), the skipped implementations with their reason,
and each library's families linking to their issue files.  The issue files themselves come from
``audit.render.issues`` (the writer of ``run``), the HTML page from ``survey_page`` when it is
there.
"""

from __future__ import annotations

from ._text import md_cell
from ..files.jsontext import dumps


def _fit(row: dict) -> str:
    parts = []
    for level, rec in sorted((row.get("fit") or {}).items()):
        never = len(rec.get("never_tried") or [])
        parts.append(f"{level} {rec.get('explained')}/{rec.get('observed')}, {rec.get('classes')} classes"
                     + (f" ({never} never tried)" if never else ""))
    return "; ".join(parts) or "-"


def _route(row: dict) -> str:
    d = row.get("differential") or {}
    if not d.get("against"):
        return "-"
    text = f"{d['disagreements']}/{d['inputs']}"
    if d["disagreements"] and (row["families"] or row["unexplained"]):
        text += f" ({d.get('reproduced_by_families', 0)} reproduced by the families)"
    return text


def _families(row: dict) -> str:
    return ", ".join(row["families"]) or "none"


def table(doc: dict) -> list[str]:
    seconds = (doc.get("volatile") or {}).get("audit_seconds") or {}
    lines = ["| implementation | version | runtime | configuration | definition claimed | definition followed | "
             "families named | unexplained rows | fit scope | verdict | second route: disagreements | routes | "
             "audit time |", "|" + "---|" * 13]
    for r in doc["implementations"]:
        if r["status"] != "audited":
            continue
        followed = r["definition_followed"] or f"none (nearest: {r['nearest']})"
        secs = seconds.get(f"{r['name']} {r['configuration']}")
        lines.append("| " + " | ".join(md_cell(str(x)) for x in (
            r["name"], r["version"], r["runtime"], r["configuration"], r["definition_claimed"], followed,
            _families(r), r["unexplained"], _fit(r), r["verdict"], _route(r), r["agreement"],
            f"{secs:.0f} s" if isinstance(secs, (int, float)) else "-")) + " |")
    return lines


def _skipped(doc: dict) -> list[str]:
    rows = [r for r in doc["implementations"] if r["status"] == "skipped"]
    seen, lines = set(), []
    for r in rows:
        if r["name"] in seen:
            continue
        seen.add(r["name"])
        lines.append(f"- **{r['name']}** {r['version']}: {md_cell(r['reason'] or '')}")
    for where, why in sorted((doc.get("searched") or {}).items()):
        lines.append(f"- **{where}**: {md_cell(why)}")
    return lines


def _by_library(doc: dict) -> list[str]:
    lines = []
    for r in doc["implementations"]:
        if r["status"] != "audited" or not r["issues"]:
            continue
        links = ", ".join(f"[{p.rsplit('/', 1)[-1][:-3]}]({p})" for p in r["issues"])
        lines.append(f"- **{r['name']}** ({r['configuration']}; {r['licence']}; tracker {r['tracker']}): {links}")
    return lines


def markdown(doc: dict) -> str:
    s = doc["settings"]
    lines = ["# chrF implementations, audited side by side (`chrf-audit survey`)", "",
             f"Every implementation at seed {s['seed']}, {s['max_examples']} examples per level, tolerance "
             f"{s['tolerance']}; the second route: {s['differential']} seeded inputs of every input class "
             "against sacreBLEU's own `CHRF` at the claimed parameters (docs/survey.md).", ""]
    lines += table(doc) + [""]
    skipped = _skipped(doc)
    if skipped:
        lines += ["## Not audited", ""] + skipped + [""]
    libs = _by_library(doc)
    if libs:
        lines += ["## Issues per library", ""] + libs + [""]
    return "\n".join(lines)


def render(doc: dict) -> dict[str, bytes]:
    return {"survey.md": markdown(doc).encode("utf-8"), "survey.json": dumps(doc).encode("utf-8")}


def page_document(doc: dict) -> dict:
    """The document the static page renders (``survey_page.render_survey_page``): each audited
    row with its fit scope as the table writes it (``fit_scope``) and its audit time
    (``audit_seconds``, from the document's ``volatile`` part)."""
    seconds = (doc.get("volatile") or {}).get("audit_seconds") or {}
    rows = []
    for row in doc.get("implementations") or []:
        if row.get("status") == "audited":
            row = dict(row, fit_scope=_fit(row), audit_seconds=seconds.get(f"{row['name']} {row['configuration']}"))
        rows.append(row)
    return dict(doc, implementations=rows)
