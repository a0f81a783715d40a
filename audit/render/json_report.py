"""audit.json: the versioned machine-readable report (schema: audit/render/schema.json) of an
``EnrichedResult``, and THE document every other renderer reads.

Numbers come from one place: ``build`` turns the enriched result into this plain document
once, and the markdown, the upstream issues, JUnit, the terminal table, the step summary and
the charts are views of it (they compute no number of their own: counts they print, such as
a sweep's diverging inputs, are fields here).  So a saved audit.json re-renders every report
byte for byte (``chrf-audit report --from``).
"""

from __future__ import annotations

from typing import Optional

from ..files import jsontext
from ..diagnose.families import title as family_title
from ._plain import finite, plain
from ._text import unique_slugs

#: Major.minor: a minor bump adds fields; a major bump changes or removes one.
#: 1.1: implementations[].run (carried over from an earlier run); 1.2: repro.claims (the
#: parameters a largest-difference input was scored under), scope.diverging
#: 1.3: findings[].issue (the upstream issue's facts), patch.verification (what was checked)
#: 1.4: patch.verification.from_cache (a verdict read from the verification cache, and its writer)
#: 1.5: patch.verification.gates and .check (the library's gates, the check of an opt-in patch's
#: keywords together), issue.group / issue_note / check_output / after_snippet (one issue per patch),
#: implementations[].patch_stacking and .conformance_titles
SCHEMA_VERSION = "1.5"

#: a sweep's input diverges when its difference exceeds this (or it gave no number)
SWEEP_TOLERANCE = 1e-9


def _scope(sweep: Optional[dict]) -> Optional[dict]:
    if not sweep:
        return sweep
    bad = sum(1 for r in sweep["rows"] if r["difference"] is None or abs(r["difference"]) > SWEEP_TOLERANCE)
    return {**sweep, "diverging": bad}


def swapped(p: dict) -> bool:
    """A system pair whose order the implementation's scores reverse (or tie)."""
    d_ref, d_imp = p["reference_difference"], p["implementation_difference"]
    return d_imp is not None and d_ref != 0 and (d_imp == 0 or (d_imp > 0) != (d_ref > 0))


def _with_counts(impact: Optional[dict]) -> Optional[dict]:
    """Impact study records (``kind: impact``) with the counts their report prints, so that
    those numbers too are fields of the document: the confidence level, significant calls,
    changed calls and swapped pairs."""
    if not impact:
        return impact
    out = {}
    for impl, rec in impact.items():
        if isinstance(rec, dict) and rec.get("kind") == "impact" and rec.get("status") == "done" and "counts" not in rec:
            pairs = rec.get("pairs") or []
            rec = {**rec, "counts": {
                "confidence_percent": round(100 * (1 - rec["alpha"])),
                "significant_reference": sum(p["reference_call"] != "n.s." for p in pairs),
                "significant_implementation": sum(p["implementation_call"] not in ("n.s.", None) for p in pairs),
                "calls_changed": sum(bool(p["changed"]) for p in pairs),
                "orders_swapped": sum(swapped(p) for p in pairs),
            }}
        out[impl] = rec
    return out


def _fit_counts(fit) -> dict:
    """The fit per level with the count its headline prints when some scores stay unexplained
    ("... 73 of 247 observed scores: 174 scores remain unexplained"), so that number too is a
    field of the document."""
    out = {}
    for level, rec in (fit or {}).items():
        if isinstance(rec, dict) and isinstance(rec.get("observed"), int) and isinstance(rec.get("explained"), int) \
                and rec["explained"] < rec["observed"] and "unexplained" not in rec:
            rec = {**rec, "unexplained": rec["observed"] - rec["explained"]}
        out[level] = rec
    return out


def _finding(f, enriched, impact: Optional[dict], slug: str) -> dict:
    d = f.to_dict()
    core = {k: d.pop(k) for k in ("implementation", "family", "level", "repro", "expected",
                                  "expected_fraction", "actual", "outcome")}
    out = dict(core)
    out["difference"] = f.minimal.difference
    out["title"] = f.title or family_title(f.family)
    out.update(d)
    for key, repro in (("minimal", f.minimal), ("largest", f.largest)):
        if repro is not None:
            out[key]["difference"] = repro.difference
    fd = enriched.of(f)
    out["snippet"] = fd.snippet
    out["snippet_language"] = fd.snippet_language
    # "file" (inside the package) identifies the source; the absolute "path" of this
    # machine's installation would make reports differ between environments.
    out["root_cause"] = ({k: v for k, v in fd.root_cause.items() if k != "path"}
                         if isinstance(fd.root_cause, dict) else fd.root_cause)
    out["patch"] = fd.patch
    out["scope"] = _scope(fd.scope)
    # the report layer names its files: the report per implementation, the sweep's chart
    out["chart"] = f"charts/{slug}-{f.family}.svg" if fd.scope else None
    out["issue"] = getattr(fd, "issue", None)
    # what "expected" is: the reference's score, or (metamorphic relations) the
    # implementation's own score before the transformation, with the reference's beside
    out["expected_source"] = "implementation" if fd.reference_value else "reference"
    if fd.reference_value:
        out["reference_fraction"], out["reference_value"] = fd.reference_value
    rec = (impact or {}).get(f.implementation)
    by_family = rec.get("by_family") if isinstance(rec, dict) else None
    if by_family and f.family in by_family:
        out["impact"] = by_family[f.family]
    return out


def conformance_titles(entry: dict) -> dict:
    """What each family of the conformance matrix that is no finding of the implementation
    means (a finding's row says it where the report shows it): family -> its title."""
    own = set(entry.get("families") or ())
    fams = {f for levels in (entry.get("conformance") or {}).values() for fs in (levels or {}).values() for f in fs}
    return {f: family_title(f) for f in sorted(fams - own)}


def build(enriched, *, generated_at: Optional[str] = None) -> dict:
    """The document of an ``EnrichedResult`` (plain JSON data).  ``generated_at``: the time of
    the run (``--timestamp``: ``audit.commands.writing.run_time`` reads the clock, never a
    renderer), written with the units' run times in the one ``volatile`` field."""
    result = enriched.result
    slugs = unique_slugs([a.implementation for a in result.adapters])
    impact = _with_counts(plain(enriched.impact)) if enriched.impact is not None else None
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
            "fit": _fit_counts(getattr(a, "fit", {})),
            "families": [f.family for f in a.findings],
            "report": f"{slugs[a.implementation]}.md",
            "impact": (impact or {}).get(a.implementation),
            "contract": getattr(a, "contract", None),
        }
        for a in result.adapters
    ]
    # one diff fixing every family with a patch (the enrich fact ``combined_patches``, when known)
    combined = getattr(enriched, "combined_patches", None) or {}
    stacking = getattr(enriched, "stacking", None) or {}
    for entry in doc["implementations"]:
        if combined.get(entry["implementation"]):
            entry["combined_patch"] = combined[entry["implementation"]]
        if stacking.get(entry["implementation"]):
            entry["patch_stacking"] = stacking[entry["implementation"]]
        titles = conformance_titles(entry)
        if titles:
            entry["conformance_titles"] = titles
    doc["findings"] = [_finding(f, enriched, impact, slugs[a.implementation]) for a in result.adapters for f in a.findings]
    if generated_at is not None:
        # The only non-reproducible field, kept apart from everything else.
        doc["volatile"] = {
            "generated_at": generated_at,
            "elapsed_seconds": {a.implementation: a.elapsed for a in result.adapters},
        }
    return finite(doc)


def upgrade(doc: dict) -> dict:
    """A saved document of an earlier 1.x schema with the fields 1.2 added (derived from its
    own fields), so that ``chrf-audit report --from`` renders it like a new one; a 1.2
    document comes back equal."""
    out = dict(doc, schema_version=SCHEMA_VERSION)  # each derivation only where its field is missing
    findings = []
    for f in doc.get("findings", []):
        f = dict(f)
        for key in ("minimal", "largest"):
            r = f.get(key)
            if isinstance(r, dict) and "difference" not in r:
                f[key] = dict(r, difference=None if r.get("actual") is None else r["actual"] - r["expected"])
        f["scope"] = _scope(f["scope"]) if f.get("scope") and "diverging" not in f["scope"] else f.get("scope")
        if "snippet_language" not in f:
            f["snippet_language"] = "sh" if "\nprintf '%s\\n' " in (f.get("snippet") or "") else "python"
        findings.append(f)
    out["findings"] = findings
    out["implementations"] = [dict(e, impact=_with_counts({"x": e["impact"]})["x"]) if isinstance(e.get("impact"), dict)
                              else e for e in doc.get("implementations", [])]
    out["implementations"] = [dict(e, fit=_fit_counts(e["fit"])) if isinstance(e.get("fit"), dict) else e
                              for e in out["implementations"]]
    return out


def dumps(doc: dict) -> str:
    return jsontext.dumps(doc)


def render(doc: dict) -> dict[str, bytes]:
    """{"audit.json": bytes} of a document."""
    return {"audit.json": dumps(doc).encode("utf-8")}
