"""Reports of other implementations carried over in a shared reports directory.

Why: three runs of three implementations into one directory must leave three sets of
reports, not the last one's.  ``write_reports`` keeps the files an earlier run wrote for
implementations this run does not audit (``audit.files.report_set`` proves they are chrf-audit's),
and the two shared files say so: audit.json keeps those implementations' entries and
findings (each entry with the ``run`` settings it was audited with), junit.xml their test
suites.  Pure functions of the earlier files' text and this run's rendering.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from typing import Optional

from . import paths
from ._text import escape


def earlier_json(text: Optional[str]) -> Optional[dict]:
    """An earlier audit.json, when it is one (else None: nothing is carried from it)."""
    if not text:
        return None
    try:
        doc = json.loads(text)
    except (ValueError, RecursionError):
        return None
    ok = (isinstance(doc, dict) and isinstance(doc.get("implementations"), list)
          and isinstance(doc.get("findings"), list) and str(doc.get("schema_version", "")).startswith("1."))
    return doc if ok else None


def carried_names(earlier: Optional[dict], audited: set, owned: dict, taken: set) -> list[str]:
    """The implementations of the earlier audit.json to carry: not audited now, with report
    files still provably there (``owned``: the manifest's proven files, {path: owner}) and
    their report not another implementation's, whose file names are report names (``paths``:
    an entry planted with ``"report": "../../x.md"`` or a chart outside ``charts/`` is not
    carried, so the next ``report --from`` is not made to write there), and whose report is
    not overwritten by this run (``taken``: the files this run writes, compared ignoring
    case)."""
    if earlier is None:
        return []
    taken_cf = {t.casefold() for t in taken}
    out = []
    for entry in earlier["implementations"]:
        name = entry.get("implementation") if isinstance(entry, dict) else None
        if not isinstance(name, str) or name in audited or name in out:
            continue
        report = entry.get("report")
        mine = {"implementations": [entry],
                "findings": [f for f in earlier["findings"] if isinstance(f, dict) and f.get("implementation") == name]}
        if (paths.problems(mine) or name not in owned.values() or owned.get(report, name) != name
                or report.casefold() in taken_cf):
            continue
        if any(f.get("chart") and f["chart"].casefold() in taken_cf for f in mine["findings"]):
            continue
        out.append(name)
    return out


def merge_json(doc: dict, earlier: Optional[dict], names: list[str]) -> dict:
    """This run's audit.json with the carried implementations' entries and findings after its
    own; each carried entry records the ``run`` it was audited with."""
    if not names or earlier is None:
        return doc
    keep = set(names)
    run = earlier.get("run")
    first = {}  # one entry per implementation (the first, as ``carried_names`` checked it)
    for e in earlier["implementations"]:
        if isinstance(e, dict) and e.get("implementation") in keep:
            first.setdefault(e["implementation"], e)
    entries = [dict(e, run=e.get("run", run)) for e in first.values()]
    findings = [f for f in earlier["findings"] if isinstance(f, dict) and f.get("implementation") in keep]
    out = dict(doc)
    out["implementations"] = list(doc["implementations"]) + entries
    out["findings"] = list(doc["findings"]) + findings
    packages = (earlier.get("environment") or {}).get("packages") if isinstance(earlier.get("environment"), dict) else None
    if isinstance(packages, dict):
        env = dict(doc["environment"])
        env["packages"] = {**{k: v for k, v in packages.items() if k in keep}, **env.get("packages", {})}
        out["environment"] = env
    return out


def merge_junit(root: ET.Element, text: Optional[str], names: list[str]) -> ET.Element:
    """This run's junit.xml with the carried implementations' test suites after its own; the
    totals count them."""
    if not names or not text:
        return root
    try:
        earlier = ET.fromstring(text.encode("utf-8"))
    except ET.ParseError:
        return root
    wanted = {f"chrf-audit.{escape(n)}" for n in names}
    for suite in earlier.findall("testsuite"):
        if suite.get("name") in wanted:
            root.append(suite)
    for key in ("tests", "failures", "skipped"):
        total = sum(int(s.get(key, "0") or 0) for s in root.findall("testsuite"))
        root.set(key, str(total))
    return root


def merge_junit_bytes(data: bytes, text: Optional[str], names: list[str]) -> bytes:
    """``merge_junit`` on rendered bytes (``junit.render``)."""
    from .junit import to_bytes

    if not names or not text:
        return data
    return to_bytes(merge_junit(ET.fromstring(data), text, names))
