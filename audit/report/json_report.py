"""audit.json: the versioned machine-readable report (schema: audit/report/schema.json)."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Optional

from ..families import title as family_title
from ..outputs import atomic_write
from .details import ReportDetails, collect, finite, plain

#: Major.minor: a minor bump adds fields; a major bump changes or removes one.
SCHEMA_VERSION = "1.0"


def _finding(f, det: Optional[ReportDetails], impact: Optional[dict]) -> dict:
    d = f.to_dict()
    core = {k: d.pop(k) for k in ("implementation", "family", "level", "repro", "expected",
                                  "expected_fraction", "actual", "outcome")}
    out = dict(core)
    out["difference"] = f.minimal.difference
    out["title"] = f.title or family_title(f.family)
    out.update(d)
    if det is not None:
        fd = det.of(f)
        out["snippet"] = fd.snippet
        # "file" (inside the package) identifies the source; the absolute "path" of this
        # machine's installation would make reports differ between environments.
        out["root_cause"] = ({k: v for k, v in fd.root_cause.items() if k != "path"}
                             if isinstance(fd.root_cause, dict) else fd.root_cause)
        out["patch"] = fd.patch
        out["scope"] = fd.scope
        out["chart"] = fd.chart
        # what "expected" is: the reference's score, or (metamorphic relations) the
        # implementation's own score before the transformation, with the reference's beside
        out["expected_source"] = "implementation" if fd.reference_value else "reference"
        if fd.reference_value:
            out["reference_fraction"], out["reference_value"] = fd.reference_value
    by_family = ((impact or {}).get(f.implementation) or {}).get("by_family") if isinstance((impact or {}).get(f.implementation), dict) else None
    if by_family and f.family in by_family:
        out["impact"] = by_family[f.family]
    return out


def build(result, *, details: Optional[ReportDetails] = None, impact: Optional[dict] = None,
          timestamp: bool = False) -> dict:
    impact = plain(impact) if impact is not None else None
    doc: dict = {
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": "chrf-audit", "version": details.environment["chrf_audit"] if details else None},
        "run": {"seed": result.seed, "max_examples": result.max_examples, "tolerance": result.tolerance},
    }
    if details is not None:
        doc["environment"] = details.environment
    doc["implementations"] = [
        {
            "implementation": a.implementation,
            "version": a.version,
            "claims": a.claims,
            "signature": a.signature,
            "reference_signature": getattr(a, "reference_signature", ""),
            "sources": getattr(a, "sources", {}),
            "examples": a.examples,
            "conformance": getattr(a, "conformance", None),
            "families": [f.family for f in a.findings],
            "report": f"{details.slugs[a.implementation]}.md" if details else None,
            "impact": (impact or {}).get(a.implementation),
        }
        for a in result.adapters
    ]
    doc["findings"] = [_finding(f, details, impact) for a in result.adapters for f in a.findings]
    if timestamp:
        # The only non-reproducible field, kept apart from everything else.
        doc["volatile"] = {
            "generated_at": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "elapsed_seconds": {a.implementation: a.elapsed for a in result.adapters},
        }
    return finite(doc)


def dumps(doc: dict) -> str:
    return json.dumps(doc, indent=2, ensure_ascii=True, allow_nan=False) + "\n"


def write_json(result, path, *, impact: Optional[dict] = None, timestamp: bool = False,
               details: Optional[ReportDetails] = None, verify_patches: bool = False, writer=None) -> Path:
    """Write audit.json.  Without ``details`` they are collected here (patches are then not
    verified unless ``verify_patches``: ``patch.verified`` is null, "not checked")."""
    if details is None:
        details = collect(result, verify_patches=verify_patches)
    return (writer or atomic_write)(path, dumps(build(result, details=details, impact=impact, timestamp=timestamp)))
