"""audit.json: the versioned machine-readable report (schema: audit/render/schema.json) of an
``EnrichedResult``."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from typing import Optional

from ..files import jsontext
from ..diagnose.families import title as family_title
from ..files.outputs import atomic_write
from ._plain import finite, plain

#: Major.minor: a minor bump adds fields; a major bump changes or removes one.
SCHEMA_VERSION = "1.1"  # 1.1: implementations[].run (carried over from an earlier run)


def _finding(f, enriched, impact: Optional[dict]) -> dict:
    d = f.to_dict()
    core = {k: d.pop(k) for k in ("implementation", "family", "level", "repro", "expected",
                                  "expected_fraction", "actual", "outcome")}
    out = dict(core)
    out["difference"] = f.minimal.difference
    out["title"] = f.title or family_title(f.family)
    out.update(d)
    fd = enriched.of(f)
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


def build(enriched, *, impact: Optional[dict] = None, timestamp: bool = False) -> dict:
    result = enriched.result
    impact = plain(impact) if impact is not None else None
    doc: dict = {
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": "chrf-audit", "version": enriched.environment["chrf_audit"]},
        "run": {"seed": result.seed, "max_examples": result.max_examples, "tolerance": result.tolerance},
        "environment": enriched.environment,
    }
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
            "fit": getattr(a, "fit", {}),
            "families": [f.family for f in a.findings],
            "report": f"{enriched.slugs[a.implementation]}.md",
            "impact": (impact or {}).get(a.implementation),
            "contract": getattr(a, "contract", None),
        }
        for a in result.adapters
    ]
    doc["findings"] = [_finding(f, enriched, impact) for a in result.adapters for f in a.findings]
    if timestamp:
        # The only non-reproducible field, kept apart from everything else.
        doc["volatile"] = {
            "generated_at": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "elapsed_seconds": {a.implementation: a.elapsed for a in result.adapters},
        }
    return finite(doc)


def dumps(doc: dict) -> str:
    return jsontext.dumps(doc)


def write_json(enriched, path, *, impact: Optional[dict] = None, timestamp: bool = False, writer=None) -> Path:
    """Write audit.json of an ``EnrichedResult`` (atomically; ``writer(path, data)``: a
    ReportSet's write)."""
    return (writer or atomic_write)(path, dumps(build(enriched, impact=impact, timestamp=timestamp)))
