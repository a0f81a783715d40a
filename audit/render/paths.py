"""The files a document's reports go to, checked before anything is rendered or written.

Why: audit.json is read back -- ``chrf-audit report --from`` re-renders it, and a run into a
shared reports directory carries the other implementations' entries of the earlier audit.json
over (``carry``) -- and anyone can write one.  Its ``implementations[].report`` names the
markdown report (and, without ``.md``, the directory of the upstream issues), its
``findings[].chart`` the chart; both were used as paths as they stood: ``"../../x.md"`` or an
absolute path wrote outside the reports directory, ``null`` or a NUL ended in a traceback,
and two entries naming one file (or a report named like the manifest) overwrote each other
without a word.  A document whose reports can be written has: each ``report`` a markdown
name chrf-audit gives (``audit.files.names``: one slug, no directory part), no two the same
ignoring case (one file on a case-insensitive file system; each report's issues directory is
its own then too), each ``chart`` null or ``charts/<slug>.svg``, and no chart drawn by two
families.  Shapes are the schema's business: this reads whatever it is given and says nothing
of what it cannot read.
"""

from __future__ import annotations

from typing import Optional

from ..files.names import CHART, MARKDOWN, shown


def problems(doc) -> list[str]:
    """What keeps ``doc``'s reports from being written inside their directory, one line each
    (empty: nothing)."""
    out: list[str] = []
    entries = doc.get("implementations") if isinstance(doc, dict) else None
    reports: dict[str, int] = {}
    for i, entry in enumerate(entries if isinstance(entries, list) else []):
        if not isinstance(entry, dict):
            continue
        report = entry.get("report")
        if not (isinstance(report, str) and MARKDOWN.fullmatch(report)):
            out.append(f"implementations/{i}/report {shown(report)} is not a report file name "
                       "(NAME.md, written inside the reports directory)")
            continue
        j = reports.setdefault(report.casefold(), i)
        if j != i:
            out.append(f"implementations/{i}/report {shown(report)}: implementations/{j} has that report file too")
    findings = doc.get("findings") if isinstance(doc, dict) else None
    charts: dict[str, tuple[int, tuple]] = {}
    for i, f in enumerate(findings if isinstance(findings, list) else []):
        chart = f.get("chart") if isinstance(f, dict) else None
        if chart is None:
            continue
        if not (isinstance(chart, str) and CHART.fullmatch(chart)):
            out.append(f"findings/{i}/chart {shown(chart)} is not a chart file name "
                       "(charts/NAME.svg, written inside the reports directory)")
            continue
        whose = (f.get("implementation"), f.get("family"))
        j, other = charts.setdefault(chart.casefold(), (i, whose))
        if other != whose:
            out.append(f"findings/{i}/chart {shown(chart)}: findings/{j} (another implementation or family) "
                       "has that chart file too")
    return out


def problem(doc) -> Optional[str]:
    """The first of ``problems``, or None."""
    found = problems(doc)
    return found[0] if found else None
