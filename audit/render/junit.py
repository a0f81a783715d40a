"""junit.xml: one testcase per (implementation, family); a clean implementation gets one
passing testcase.  Deterministic (no timestamps, no durations); all text escaped so that
control characters of repros never reach the XML.

A finding the CI gate accepts (``chrf-audit check``: in the baseline) is not a failure: its
testcase is *skipped* with the baseline's reason, so a CI dashboard reading junit.xml tells
the same story as the gate's exit code."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Optional

from ._doc import actual_text, findings_of
from ._text import escape, num, repro_text, signed


def build(doc: dict, accepted: Optional[dict] = None) -> ET.Element:
    """The test suites of a document (audit.json); ``accepted``: {(implementation, family):
    reason} of the findings the gate accepts."""
    accepted = accepted or {}
    root = ET.Element("testsuites", {"name": "chrf-audit"})
    total = failures = skipped = 0
    for entry in doc["implementations"]:
        impl = entry["implementation"]
        suite = ET.SubElement(root, "testsuite", {"name": f"chrf-audit.{escape(impl)}"})
        cases = fails = skips = 0
        findings = findings_of(doc, impl)
        for f in findings:
            cases += 1
            case = ET.SubElement(suite, "testcase", {"classname": f"chrf-audit.{escape(impl)}", "name": f["family"]})
            m = f["minimal"]
            msg = f"{f['family']}: {f['title']}; expected {num(m['expected'])}, actual {actual_text(f)}"
            reason = accepted.get((impl, f["family"]))
            if reason is not None:
                skips += 1
                msg = f"accepted in the baseline ({escape(reason) or 'no reason given'}): {msg}"
                fail = ET.SubElement(case, "skipped", {"message": escape(msg)})
            else:
                fails += 1
                fail = ET.SubElement(case, "failure", {"message": escape(msg), "type": m["outcome"]})
            fail.text = "\n".join([
                f"implementation: {escape(impl)}",
                f"family: {f['family']} ({f['level']} level)",
                f"repro: {repro_text(m['inputs'])}",
                f"expected: {m['expected']!r} ({m['expected_fraction']})",
                f"actual: {m['actual']!r}" + (f" (raw {escape(m['actual_raw'])})" if m.get("actual_raw") else ""),
                f"difference: {signed(m.get('difference'), 10)}",
                f"outcome: {m['outcome']}" + (f": {escape(m['detail'])}" if m.get("detail") else ""),
            ])
        if not findings:
            cases += 1
            ET.SubElement(suite, "testcase", {"classname": f"chrf-audit.{escape(impl)}", "name": "conforms"})
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


def render(doc: dict, accepted: Optional[dict] = None) -> dict[str, bytes]:
    """{"junit.xml": bytes} of a document."""
    return {"junit.xml": to_bytes(build(doc, accepted))}
