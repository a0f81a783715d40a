"""The reports of ``chrf-audit versions``: a markdown page per package with the family x release
matrix, each family's introduction and fix with the root-cause diff, the skipped releases and
why, and an SVG heat map of the matrix (the charts' style: ``chart.py``).

Pure: ``render(doc, facts) -> {relative path: bytes}`` of the versions document
(``audit.versions.matrix.document``); ``facts`` may hold ``"command"`` (the command line that
made it, shown in the page).
"""

from __future__ import annotations

from .chart import _f, _xml
from ._text import md_cell, md_code, md_fence

PRESENT, ABSENT, SKIPPED, UNAUDITED, NARROWED = "#d62728", "#2ca02c", "#bdbdbd", "#ffffff", "#fdd49e"
CELL_H, LEFT, TOP, BOTTOM, RIGHT = 22, 230, 44, 96, 24


def _cells(doc: dict) -> tuple[list, list, dict]:
    families = sorted(doc["families"])
    versions = [r["version"] for r in doc["releases"]]
    state = {}
    for r in doc["releases"]:
        for fam in families:
            if r["status"] == "audited" and r["version"] in doc["families"][fam].get("narrowed", ()):
                state[(fam, r["version"])] = "narrowed"
            elif r["status"] == "audited":
                state[(fam, r["version"])] = "present" if fam in r["families"] else "absent"
            else:
                state[(fam, r["version"])] = "unaudited" if (r.get("reason") or "").startswith("not audited") else "skipped"
    return families, versions, state


def heat_map(doc: dict) -> str:
    """The matrix as an SVG: one row per family, one column per release (oldest left)."""
    families, versions, state = _cells(doc)
    rows = families or ["(no finding)"]
    cell_w = max(14.0, min(48.0, 560.0 / max(1, len(versions))))
    width = int(LEFT + cell_w * len(versions) + RIGHT + 150)
    height = int(TOP + CELL_H * len(rows) + BOTTOM)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="Helvetica, Arial, sans-serif" font-size="11">',
           f'<rect x="0" y="0" width="{width}" height="{height}" fill="#ffffff"/>',
           f'<text x="{width / 2:.0f}" y="22" text-anchor="middle" font-size="14" font-weight="bold">'
           f'{_xml(doc["package"])}: chrF families by release</text>']
    colors = {"present": PRESENT, "absent": ABSENT, "skipped": SKIPPED, "unaudited": UNAUDITED, "narrowed": NARROWED}
    for i, fam in enumerate(rows):
        y = TOP + CELL_H * i
        out.append(f'<text x="{LEFT - 8}" y="{_f(y + CELL_H / 2 + 4)}" text-anchor="end">{_xml(fam)}</text>')
        for j, v in enumerate(versions):
            x = LEFT + cell_w * j
            kind = state.get((fam, v), "absent" if families == [] else "skipped")
            out.append(f'<rect x="{_f(x + 1)}" y="{_f(y + 1)}" width="{_f(cell_w - 2)}" height="{CELL_H - 2}" '
                       f'fill="{colors[kind]}" stroke="#cccccc"><title>{_xml(fam)} @ {_xml(v)}: {kind}</title></rect>')
    base = TOP + CELL_H * len(rows)
    for j, v in enumerate(versions):
        cx = LEFT + cell_w * (j + 0.5)
        out.append(f'<text x="{_f(cx)}" y="{base + 10}" text-anchor="end" font-size="9" '
                   f'transform="rotate(-60 {_f(cx)} {base + 10})">{_xml(v)}</text>')
    lx = LEFT + cell_w * len(versions) + 16
    legend = [("shows the family", "present"), ("does not", "absent"), ("skipped", "skipped"),
              ("not audited (bisect)", "unaudited")]
    if "narrowed" in state.values():
        legend.append(("not comparable (narrowed)", "narrowed"))
    for k, (label, kind) in enumerate(legend):
        y = TOP + 4 + 18 * k
        out.append(f'<rect x="{_f(lx)}" y="{y}" width="12" height="12" fill="{colors[kind]}" stroke="#999999"/>')
        out.append(f'<text x="{_f(lx + 18)}" y="{y + 10}">{label}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _md(text) -> str:
    return md_cell(text)  # a release's reason, a package's or implementation's name: untrusted text


def _mark(state: str) -> str:
    return {"present": "**x**", "absent": "·", "skipped": "skipped", "unaudited": "(·)", "narrowed": "n/c"}[state]


def chart_path(doc: dict) -> str:
    return f"charts/{doc['package']}-versions.svg"


def markdown(doc: dict, facts: dict) -> str:
    families, versions, state = _cells(doc)
    s = doc.get("settings") or {}
    audited = [r for r in doc["releases"] if r["status"] == "audited"]
    lines = [f"# chrF families across releases of {_md(doc['package'])}", ""]
    if facts.get("command"):
        lines += ["Made by:", ""] + md_fence(facts["command"], "sh") + [""]
    span = f"{versions[0]} .. {versions[-1]}" if versions else "none"
    lines += [f"{len(audited)} of {len(versions)} releases audited ({span}), implementations "
              f"{', '.join(md_code(n) for n in doc.get('implementations') or [])}; seed {s.get('seed')}, "
              f"{s.get('max_examples')} examples per implementation and level, tolerance {s.get('tolerance')}.", ""]
    if s.get("bisect"):
        lines += ["`--bisect`: only the releases needed to place each transition were audited, assuming that "
                  "between two audited releases showing the same families every release shows them "
                  "(monotone intervals per family).", ""]
    lines += [f"![families by release]({chart_path(doc)})", "", "## Matrix", ""]
    if families:
        lines += ["| family | " + " | ".join(_md(v) for v in versions) + " |",
                  "|---|" + "---|" * len(versions)]
        for fam in families:
            lines.append(f"| {md_code(fam)} | " + " | ".join(_mark(state[(fam, v)]) for v in versions) + " |")
        lines += ["", "**x**: the release shows the family; ·: it does not; (·): not audited, inferred by "
                  "`--bisect`." + (" n/c: not comparable, the release audited the implementations showing it "
                                   "narrowed or not at all (below)." if "narrowed" in state.values() else ""), ""]
    else:
        lines += ["No audited release shows a finding.", ""]
    lines += ["## Introduced and fixed", "", "| family | introduced | fixed |", "|---|---|---|"]
    for fam in families:
        t = doc["families"][fam]
        known = [r["version"] for r in audited if r["version"] not in t.get("narrowed", ())]
        intro = t["introduced"] or f"before {known[0]} (the oldest audited shows it)"
        if t["introduced"]:
            before = _before(known, t["introduced"])
            intro += f" ({before} correct)" if before else ""
        fixed = t["fixed"] or "not fixed (the newest audited shows it)"
        lines.append(f"| {md_code(fam)} | {_md(intro)} | {_md(fixed)} |")
    lines.append("")
    for fam in families:
        for side in ("introduced", "fixed"):
            d = (doc.get("diffs") or {}).get(fam, {}).get(side)
            if not d:
                continue
            lines += [f"### {md_code(fam)} {side} in {_md(d['to'] if side == 'introduced' else d['to'])}", "",
                      f"Between {_md(d['from'])} and {_md(d['to'])}"
                      + (f", the root-cause function {md_code(d['function'])} in {md_code(d['file'])}:" if d.get("diff")
                         else f": {_md(d.get('note') or 'no diff')}."), ""]
            if d.get("diff"):
                lines += md_fence(d["diff"], "diff") + [""]
    narrowed = [r for r in doc["releases"] if r.get("unsupported") or r.get("limits")]
    if narrowed:
        lines += ["## Narrowed audits", "", "What a release could not audit as asked: an implementation whose "
                  "claims it cannot compute (not audited there), or one it computes narrowed.", "",
                  "| release | implementation | |", "|---|---|---|"]
        for r in narrowed:
            lines += [f"| {_md(r['version'])} | {md_code(u['implementation'])} | unsupported: {_md(u['reason'])} |"
                      for u in r.get("unsupported") or []]
            lines += [f"| {_md(r['version'])} | {md_code(name)} | audited narrowed: {_md(note)} |"
                      for name, note in sorted((r.get("limits") or {}).items())]
        lines.append("")
    skipped = [r for r in doc["releases"] if r["status"] == "skipped"
               and not (r.get("reason") or "").startswith("not audited")]
    lines += ["## Skipped releases", ""]
    if skipped:
        lines += ["| release | why |", "|---|---|"] + [f"| {_md(r['version'])} | {_md(r['reason'])} |" for r in skipped]
    else:
        lines.append("None.")
    lines.append("")
    return "\n".join(lines + _unseen(doc))


def _unseen(doc: dict) -> list:
    """The ranges of releases the document has no families for, and why the run stopped."""
    lines = []
    if doc.get("unseen"):
        lines += ["## Ranges it could not see", ""] + [f"- {_md(unseen_text(s))}" for s in doc["unseen"]] + [""]
    if doc.get("stopped"):
        lines += [f"The run stopped before every release was audited ({_md(doc['stopped'])}).", ""]
    return lines


def unseen_text(span: dict) -> str:
    """One line about a range of releases the document has no families for (``unseen`` of
    the document): where, how many, and the transitions that may lie in it."""
    where = span["from"] if span["releases"] == 1 else f"{span['from']}..{span['to']}"
    line = f"could not see {where} ({span['releases']} release{'s' if span['releases'] != 1 else ''})"
    if span.get("families"):
        line += (f": {', '.join(span['families'])} changed between {span['before']} and {span['after']}, "
                 f"somewhere in this range or at {span['after']}")
    return line


def _before(audited: list, version: str):
    i = audited.index(version)
    return audited[i - 1] if i > 0 else None


def render(doc: dict, facts: dict = None) -> dict:
    """``{"<package>.md": ..., "charts/<package>-versions.svg": ...}``."""
    facts = facts or {}
    return {f"{doc['package']}.md": markdown(doc, facts).encode("utf-8"),
            chart_path(doc): heat_map(doc).encode("utf-8")}
