"""junit.xml: one testcase per (implementation, family); a clean implementation gets one
passing testcase.  Deterministic (no timestamps, no durations); all text escaped so that
control characters of repros never reach the XML.

A finding the CI gate accepts (``chrf-audit check``: in the baseline) is not a failure: its
testcase is *skipped* with the baseline's reason, so a CI dashboard reading junit.xml tells
the same story as the gate's exit code."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Optional

from ..diagnose.families import title as family_title
from ._text import escape, num, repro_text, signed


def build(result, accepted: Optional[dict] = None) -> ET.Element:
    """``accepted``: {(implementation, family): reason} of the findings the gate accepts."""
    accepted = accepted or {}
    root = ET.Element("testsuites", {"name": "chrf-audit"})
    total = failures = skipped = 0
    for a in result.adapters:
        suite = ET.SubElement(root, "testsuite", {"name": f"chrf-audit.{escape(a.implementation)}"})
        cases = fails = skips = 0
        for f in a.findings:
            cases += 1
            case = ET.SubElement(suite, "testcase", {"classname": f"chrf-audit.{escape(a.implementation)}",
                                                      "name": f.family})
            m = f.minimal
            msg = (f"{f.family}: {f.title or family_title(f.family)}; expected {num(m.expected)}, "
                   f"actual {num(m.actual) if m.outcome == 'value' else m.outcome}")
            reason = accepted.get((f.implementation, f.family))
            if reason is not None:
                skips += 1
                msg = f"accepted in the baseline ({escape(reason) or 'no reason given'}): {msg}"
                fail = ET.SubElement(case, "skipped", {"message": escape(msg)})
            else:
                fails += 1
                fail = ET.SubElement(case, "failure", {"message": escape(msg), "type": m.outcome})
            fail.text = "\n".join([
                f"implementation: {escape(f.implementation)}",
                f"family: {f.family} ({f.level} level)",
                f"repro: {repro_text(m.inputs)}",
                f"expected: {m.expected!r} ({m.expected_fraction})",
                f"actual: {m.actual!r}" + (f" (raw {escape(m.actual_raw)})" if m.actual_raw else ""),
                f"difference: {signed(m.difference, 10)}",
                f"outcome: {m.outcome}" + (f": {escape(m.detail)}" if m.detail else ""),
            ])
        if not a.findings:
            cases += 1
            ET.SubElement(suite, "testcase", {"classname": f"chrf-audit.{escape(a.implementation)}",
                                              "name": "conforms"})
        suite.set("tests", str(cases))
        suite.set("failures", str(fails))
        suite.set("errors", "0")
        suite.set("skipped", str(skips))
        total += cases
        failures += fails
        skipped += skips
    root.set("tests", str(total))
    root.set("failures", str(failures))
    root.set("errors", "0")
    if skipped:
        root.set("skipped", str(skipped))
    return root


def to_bytes(root: ET.Element) -> bytes:
    import io

    tree = ET.ElementTree(root)
    ET.indent(tree)
    buf = io.BytesIO()
    tree.write(buf, encoding="utf-8", xml_declaration=True)
    return buf.getvalue() + b"\n"


def write_junit(result, path, writer=None, accepted: Optional[dict] = None) -> Path:
    """Write the JUnit XML (atomically; ``writer(path, data)``: a ReportSet's write)."""
    from ..files.outputs import atomic_write

    return (writer or atomic_write)(Path(path), to_bytes(build(result, accepted)))
