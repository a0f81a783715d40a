"""The survey's static page, ``reports/survey/index.html``: the survey table (sortable by a
click on a column header), a family x implementation heat map whose cells link to the
libraries' issue files, and the implementations that were not audited with their reasons.

Pure: ``render_survey_page(doc) -> bytes`` of a survey document (survey.json, the shape of
docs/survey.md).  One self-contained file: its stylesheet and script are inline
(``_survey_assets``) and its Content-Security-Policy allows nothing else, so it opens from a
file with no network.  Every text of the document (names, versions, reasons, families come from
outside) is shown, never interpreted: characters a reader cannot see as ``\\uXXXX``
(``_text.escape``), then HTML-escaped; a link is made only from a path of the shape
``issues/<library>/<file>.md``.  A field of the wrong type renders as text or as missing, never
as an exception.  The same document gives the same bytes (no clock, no ordering of its own but
the document's and sorted family ids).
"""

from __future__ import annotations

import base64
import hashlib
import html
import math
import re
from typing import Optional

from ._survey_assets import CSS, JS
from ._text import escape

#: The page's file name inside the survey's reports directory.
PAGE = "index.html"

#: (header, field, type, group) of the table's columns, in order.  A column whose field is
#: optional (``OPTIONAL``) is shown only when some implementation has it.  ``type``: "number"
#: columns sort as numbers.  Fields under ``differential`` are written ``differential.x``.
COLUMNS = (
    ("implementation", "name", "text", "what"),
    ("configuration", "configuration", "text", "what"),
    ("version", "version", "text", "what"),
    ("runtime", "runtime", "text", "what"),
    ("definition claimed", "definition_claimed", "text", "first"),
    ("definition followed", "definition_followed", "text", "first"),
    ("families named", "families", "number", "first"),
    ("unexplained rows", "unexplained", "number", "first"),
    ("fit scope", "fit_scope", "text", "first"),
    ("verdict", "verdict", "text", "first"),
    ("audit time (s)", "audit_seconds", "number", "first"),
    ("against", "differential.against", "text", "second"),
    ("inputs", "differential.inputs", "number", "second"),
    ("disagreements", "differential.disagreements", "number", "second"),
    ("reproduced by families", "differential.reproduced_by_families", "number", "second"),
)
OPTIONAL = frozenset({"fit_scope", "verdict", "audit_seconds"})
GROUPS = {"what": "", "first": "first route: chrf-audit's audit",
          "second": "second route: a differential against sacreBLEU's CHRF"}

#: An issue file a page may link to: a path ending in issues/<library>/<file>.md, each part a
#: plain name (no "..", no scheme, nothing to escape); the link is that ending, relative to the
#: page, whose directory holds issues/.
_ISSUE_PATH = re.compile(r"(?:^|/)(issues/[A-Za-z0-9][A-Za-z0-9._+-]*/[A-Za-z0-9][A-Za-z0-9._+-]*\.md)$")


def _h(value) -> str:
    """Any value as HTML text (an attribute value too): what a reader cannot see as \\uXXXX,
    then every character HTML acts on (``<>&"'``) as a reference."""
    return html.escape(escape(_plain(value)), quote=True)


def _plain(value) -> str:
    """A field as one line of text: lists joined, objects as ``key: value`` pairs."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (int, float)):
        return _number(value)
    if isinstance(value, (list, tuple)):
        return ", ".join(_plain(v) for v in value)
    if isinstance(value, dict):
        return "; ".join(f"{_plain(k)}: {_plain(v)}" for k, v in value.items())
    return str(value)


def _number(x) -> str:
    if isinstance(x, float) and math.isfinite(x) and x != int(x):
        return format(x, ".6g")
    if isinstance(x, float) and math.isfinite(x):
        return str(int(x))
    return str(x)


def _finite(value) -> Optional[float]:
    """A JSON number that sorts (not a bool, not NaN or infinite), else None.  An integer is
    finite however large (``math.isfinite`` of 10**400 raises: it goes through a float)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int) or (isinstance(value, float) and math.isfinite(value)):
        return value
    return None


def _entries(doc) -> list[dict]:
    impls = doc.get("implementations") if isinstance(doc, dict) else None
    return [e for e in impls if isinstance(e, dict)] if isinstance(impls, list) else []


def _families(entry: dict) -> list[str]:
    fams = entry.get("families")
    return [_plain(f) for f in fams] if isinstance(fams, list) else []


def _field(entry: dict, field: str):
    if field.startswith("differential."):
        diff = entry.get("differential")
        return diff.get(field.split(".", 1)[1]) if isinstance(diff, dict) else None
    return entry.get(field)


def _audited(entry: dict) -> bool:
    """In the table and the heat map; anything else (``skipped``, or a status the page does
    not know) is listed as not audited, with its reason."""
    return entry.get("status") == "audited"


def issue_links(entry: dict) -> dict[str, str]:
    """Family id -> the href of its issue file among the entry's ``issues`` (relative to the
    page): the file named after the family, else its first further group (``<family>-2.md``);
    paths not of the shape ``issues/<library>/<file>.md`` are no link."""
    paths = entry.get("issues")
    found: dict[str, list[str]] = {}
    for p in paths if isinstance(paths, list) else []:
        m = _ISSUE_PATH.search(p) if isinstance(p, str) else None
        if m:
            found.setdefault(m.group(1).rsplit("/", 1)[1][:-3], []).append(m.group(1))
    config = entry.get("configuration")
    prefixes = [""] + ([config.lower().replace("+", "p") + "-"] if isinstance(config, str) else [])
    out = {}
    for fam in _families(entry) + ["unexplained"]:
        for prefix in prefixes:  # issues/<library>/<family>.md, or <configuration>-<family>.md
            stem = prefix + fam
            further = sorted((s for s in found if re.fullmatch(re.escape(stem) + r"-\d+", s)),
                             key=lambda s: int(s.rsplit("-", 1)[1]))
            if stem in found or further:
                out[fam] = found[stem if stem in found else further[0]][0]
                break
    return out


def _columns(entries: list[dict]) -> list[tuple]:
    """The columns shown: every optional one that some audited implementation has."""
    return [c for c in COLUMNS if c[1] not in OPTIONAL or any(c[1] in e for e in entries if _audited(e))]


def _cell(entry: dict, column: tuple, links: dict[str, str]) -> str:
    header, field, kind, _ = column
    value = _field(entry, field)
    if field == "families":
        fams = _families(entry)
        items = "".join(f"<li>{_linked(f, links.get(f))}</li>" for f in fams)
        shown = f'<ul class="families">{items}</ul>' if fams else "none"
        return f'<td data-sort="{len(fams)}">{shown}</td>'
    if field == "definition_followed" and value is None:
        return '<td data-sort="" class="missing">none of the three</td>'
    if value is None:
        return '<td data-sort="" class="missing">—</td>'
    if kind == "number":
        x = _finite(value)
        sort = "" if x is None else repr(x)
        return f'<td class="num" data-sort="{sort}">{_h(value)}</td>'
    return f'<td data-sort="{_h(value)}">{_h(value)}</td>'


def _linked(text: str, href: Optional[str], label: Optional[str] = None) -> str:
    """``text``, a link to ``href`` (an ``issue_links`` path) when there is one, titled ``label``."""
    title = f' title="{_h(label)}"' if label else ""
    if href is not None:
        return f'<a href="{_h(href)}"{title}>{_h(text)}</a>'
    return f"<span{title}>{_h(text)}</span>" if label else _h(text)


def survey_table(entries: list[dict]) -> list[str]:
    """The sortable table: one row per audited implementation x configuration."""
    cols = _columns(entries)
    groups, spans = [], []
    for _, _, _, group in cols:
        if spans and spans[-1][0] == group:
            spans[-1][1] += 1
        else:
            spans.append([group, 1])
    for group, span in spans:
        groups.append(f'<th scope="colgroup" colspan="{span}" class="group">{GROUPS[group]}</th>' if GROUPS[group]
                      else f'<td colspan="{span}"></td>')
    heads = [f'<th scope="col" data-type="{kind}"><button type="button">{header}</button></th>'
             for header, _, kind, _ in cols]
    out = ['<div class="wide"><table id="survey">', "<thead>", "<tr>" + "".join(groups) + "</tr>",
           "<tr>" + "".join(heads) + "</tr>", "</thead>", "<tbody>"]
    for i, entry in enumerate(e for e in entries if _audited(e)):
        links = issue_links(entry)
        out.append(f'<tr data-order="{i}">' + "".join(_cell(entry, c, links) for c in cols) + "</tr>")
    out += ["</tbody>", "</table></div>"]
    return out


def _column_label(entry: dict) -> str:
    config = _plain(entry.get("configuration"))
    return f"<span>{_h(entry.get('name'))}</span>" + (f"<span>{_h(config)}</span>" if config else "")


def heat_map(entries: list[dict]) -> list[str]:
    """Families (rows) x audited implementation and configuration (columns); a named family's
    cell links to its issue file when the implementation has one; a last row counts the
    unexplained rows when any implementation has some."""
    audited = [e for e in entries if _audited(e)]
    families = sorted({f for e in audited for f in _families(e)})
    unexplained = [_finite(e.get("unexplained")) or 0 for e in audited]
    if not audited:
        return ["<p>No implementation was audited.</p>"]
    out = ['<div class="wide"><table id="heatmap">', "<thead><tr>", '<th scope="col">family</th>']
    out += [f'<th scope="col" class="column">{_column_label(e)}</th>' for e in audited]
    out += ["</tr></thead>", "<tbody>"]
    for fam in families:
        cells = []
        for e in audited:
            name = _plain(e.get("name"))
            if fam in _families(e):
                label = f"{fam}: named in {name} {_plain(e.get('configuration'))}".rstrip()
                cells.append(f'<td class="named">{_linked("●", issue_links(e).get(fam), label)}</td>')
            else:
                cells.append('<td class="clean"></td>')
        out.append(f'<tr><th scope="row">{_h(fam)}</th>' + "".join(cells) + "</tr>")
    if any(unexplained):
        cells = [f'<td class="count">{_linked(_number(n), issue_links(e).get("unexplained"))}</td>' if n
                 else '<td class="clean"></td>' for e, n in zip(audited, unexplained)]
        out.append('<tr><th scope="row">unexplained rows</th>' + "".join(cells) + "</tr>")
    out += ["</tbody>", "</table></div>",
            '<p class="legend"><span class="named"></span>family named (links to its issue file)'
            '<span class="clean"></span>not named<span class="count"></span>unexplained rows</p>']
    return out


def skipped_list(entries: list[dict]) -> list[str]:
    skipped = [e for e in entries if not _audited(e)]
    if not skipped:
        return ["<p>Every implementation was audited.</p>"]
    out = ['<ul id="skipped">']
    for e in skipped:
        what = ", ".join(_h(e.get(k)) for k in ("package", "version", "configuration") if _plain(e.get(k)))
        reason = _h(e.get("reason")) or "no reason given"
        if e.get("status") != "skipped":
            reason = f"status {_h(e.get('status')) or 'missing'}: {reason}"
        out.append(f"<li><strong>{_h(e.get('name'))}</strong>" + (f" ({what})" if what else "") + f": {reason}</li>")
    out.append("</ul>")
    return out


def _digest(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii") + "'"


#: Nothing loads from anywhere: only the page's own style and script, by their hashes.
POLICY = (f"default-src 'none'; style-src {_digest(CSS)}; script-src {_digest(JS)}; "
          "base-uri 'none'; form-action 'none'")


def render_survey_page(doc: dict) -> bytes:
    """The page of a survey document, as UTF-8 bytes."""
    entries = _entries(doc)
    n_audited = sum(1 for e in entries if _audited(e))
    version = _h(doc.get("schema_version")) if isinstance(doc, dict) else ""
    body = [
        "<h1>chrF implementations, audited</h1>",
        f'<p class="note">{n_audited} implementation x configuration row{"s" if n_audited != 1 else ""} audited, '
        f"{len(entries) - n_audited} not audited. Each row is judged twice: by chrf-audit's audit against the "
        "three definitions (sacreBLEU, sacreBLEU with eps smoothing, chrF++.py), and by a differential against "
        "sacreBLEU's own CHRF that shares no code with it. Click a column header to sort.</p>",
        '<h2 id="table-heading">The survey</h2>', *survey_table(entries),
        '<h2 id="heatmap-heading">Families by implementation</h2>', *heat_map(entries),
        '<h2 id="skipped-heading">Not audited</h2>', *skipped_list(entries),
        f'<p class="note">survey.json schema version {version or "unknown"}.</p>',
    ]
    page = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
            f'<meta http-equiv="Content-Security-Policy" content="{POLICY}">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            "<title>chrF implementations: survey</title>", f"<style>{CSS}</style>", "</head>", "<body>",
            *body, f"<script>{JS}</script>", "</body>", "</html>", ""]
    return "\n".join(page).encode("utf-8")
