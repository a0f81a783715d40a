"""junit.xml: one testcase per (implementation, family); a clean implementation gets one
passing testcase.  Deterministic (no timestamps, no durations); all text escaped so that
control characters of repros never reach the XML."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from ..families import title as family_title
from ._text import escape, num, repro_text, signed


def build(result) -> ET.Element:
    root = ET.Element("testsuites", {"name": "chrf-audit"})
    total = failures = 0
    for a in result.adapters:
        suite = ET.SubElement(root, "testsuite", {"name": f"chrf-audit.{escape(a.implementation)}"})
        cases = 0
        for f in a.findings:
            cases += 1
            case = ET.SubElement(suite, "testcase", {"classname": f"chrf-audit.{escape(a.implementation)}",
                                                      "name": f.family})
            m = f.minimal
            msg = (f"{f.family}: {f.title or family_title(f.family)}; expected {num(m.expected)}, "
                   f"actual {num(m.actual) if m.outcome == 'value' else m.outcome}")
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
        suite.set("failures", str(len(a.findings)))
        suite.set("errors", "0")
        suite.set("skipped", "0")
        total += cases
        failures += len(a.findings)
    root.set("tests", str(total))
    root.set("failures", str(failures))
    root.set("errors", "0")
    return root


def to_bytes(root: ET.Element) -> bytes:
    import io

    tree = ET.ElementTree(root)
    ET.indent(tree)
    buf = io.BytesIO()
    tree.write(buf, encoding="utf-8", xml_declaration=True)
    return buf.getvalue() + b"\n"


def write_junit(result, path, writer=None) -> Path:
    """Write the JUnit XML (atomically; ``writer(path, data)``: a ReportSet's write)."""
    from ..outputs import atomic_write

    return (writer or atomic_write)(Path(path), to_bytes(build(result)))
