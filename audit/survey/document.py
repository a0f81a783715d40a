"""The survey's document (survey.json, docs/survey.md; schema ``survey.schema.json``): one entry
per implementation x configuration, from the registry and the units' results.

Which definition a row follows: the claimed one when the audit found nothing and the second
route counts no disagreement; else a definition under which chrf-audit's reference agrees with
the implementation on every input of the second route (none: ``null``, and ``nearest`` names the
definition with the fewest disagreements).  The verdict is ``conforms`` only with no finding and 0
disagreements; ``agreement`` says whether the two routes agree, and where not, why.
"""

from __future__ import annotations

from typing import Optional

from .. import __version__
from ..render._text import slug
from .differential import DEFINITIONS

SCHEMA = "chrf-audit-survey/1"
SCHEMA_VERSION = 1


def config_slug(config: str) -> str:
    return config.lower().replace("+", "p")


def _followed(claimed: str, audit_clean: bool, route: dict) -> tuple[Optional[str], Optional[str]]:
    counts = route.get("definitions") or {}
    if audit_clean and route.get("disagreements") == 0 and route.get("inputs"):
        return claimed, None
    # the claimed definition is followed only when the audit agrees; another one on the route's word
    zero = [d for d in DEFINITIONS if counts.get(d) == 0 and route.get("inputs") and (d != claimed or audit_clean)]
    if zero:
        return zero[0], None
    nearest = min(DEFINITIONS, key=lambda d: (counts.get(d, 1 << 30), d != claimed)) if counts else None
    return None, nearest


def _agreement(families: list, unexplained: int, route: dict) -> str:
    found, n, k = bool(families or unexplained), route.get("inputs", 0), route.get("disagreements", 0)
    if not route.get("against"):
        return f"no second route: {route.get('note') or 'sacreBLEU cannot compute the claimed definition'}"
    if not found and k == 0:
        return "agree"
    if found and k == 0:
        return (f"the audit's findings do not show on the second route's {n} inputs "
                "(they need inputs it did not draw)")
    if not found and route.get("reproduced_by_families", 0) == k:
        return (f"agree: its {k} disagreements with sacreBLEU are where the claimed definition differs from "
                "sacreBLEU's mode, and the claimed definition reproduces each")
    classes = ", ".join(sorted(route.get("by_class") or {}))
    if not found:
        return (f"{k} disagreements of the second route are not seen by the audit (inputs of {classes}: "
                "classes its search did not draw)")
    rest = k - route.get("reproduced_by_families", 0)
    if rest == 0:
        return "agree"
    if not families:
        return (f"agree that it deviates; the audit names no family ({unexplained} unexplained rows), so no "
                f"model reproduces the {k} disagreements")
    return (f"agree that it deviates; {rest} of {k} disagreements are not reproduced by the named families"
            + (f" (the audit's {unexplained} unexplained rows)" if unexplained else ""))


def _fit(impl_doc: dict) -> dict:
    out = {}
    for level, rec in sorted((impl_doc.get("fit") or {}).items()):
        scope = rec.get("scope") or {}
        out[level] = {"explained": rec.get("explained"), "observed": rec.get("observed"),
                      "classes": len(scope.get("classes") or ()), "never_tried": list(scope.get("never_tried") or ())}
    return out


def _row(impl, result: dict, row: dict, issues: list) -> dict:
    doc = row["document"]
    entry = (doc.get("implementations") or [{}])[0]
    names = [f["family"] for f in doc.get("findings") or []]
    families = sorted({f for f in names if not f.startswith("unexplained")})
    unexplained = sum(1 for f in names if f.startswith("unexplained"))
    route = {k: v for k, v in row["differential"].items() if k != "records"}
    claimed = row["claims"]["definition"]
    followed, nearest = _followed(claimed, not names, route)
    verdict = "conforms" if not names and route.get("disagreements") == 0 and route.get("against") else "deviates"
    return {"name": impl.name, "package": impl.package, "version": entry.get("version") or impl.version,
            "runtime": f"python {result.get('python')}", "kind": impl.kind, "wraps": impl.wraps,
            "licence": impl.licence, "tracker": impl.tracker, "docs_claim": impl.docs_claim,
            "status": "audited", "reason": None, "configuration": row["configuration"],
            "implementation": row["implementation"], "claims": row["claims"], "definition_claimed": claimed,
            "definition_followed": followed, "nearest": nearest, "families": families, "unexplained": unexplained,
            "fit": _fit(entry), "verdict": verdict, "differential": route,
            "agreement": _agreement(families, unexplained, route), "issues": issues}


def _skipped(impl, reason: str, config: Optional[str]) -> dict:
    claimed = next((c.claims["definition"] for c in impl.configurations if c.name == config), None)
    return {"name": impl.name, "package": impl.package, "version": impl.version, "runtime": impl.runtime,
            "kind": impl.kind, "wraps": impl.wraps, "licence": impl.licence, "tracker": impl.tracker,
            "docs_claim": impl.docs_claim, "status": "skipped", "reason": reason, "configuration": config,
            "implementation": None, "claims": None, "definition_claimed": claimed, "definition_followed": None,
            "nearest": None, "families": [], "unexplained": 0, "fit": {}, "verdict": "skipped",
            "differential": None, "agreement": None, "issues": []}


def issue_files(name: str, row: dict) -> dict[str, bytes]:
    """The row's issue files (``audit.render.issues``, the writer of ``run``) under
    ``issues/<library>/<configuration>-<family>.md``."""
    from ..render import issues

    out = {}
    for path, data in issues.render(row["document"]).items():
        anchor = path.rsplit("/", 1)[-1]
        out[f"issues/{slug(name)}/{config_slug(row['configuration'])}-{anchor}"] = data
    return out


def document(implementations, results: dict, settings: dict, searched: Optional[dict] = None) -> dict:
    rows, seconds = [], {}
    for impl in implementations:
        result = results.get(impl.name)
        if impl.skip or result is None or result.get("status") != "audited":
            why = impl.skip or (result or {}).get("reason") or "not run"
            rows += [_skipped(impl, why, c.name) for c in impl.configurations] or [_skipped(impl, why, None)]
            continue
        for row in result["rows"]:
            rows.append(_row(impl, result, row, sorted(issue_files(impl.name, row))))
            seconds[f"{impl.name} {row['configuration']}"] = row.get("seconds")
    return {"schema_version": SCHEMA_VERSION, "schema": SCHEMA, "tool": {"name": "chrf-audit", "version": __version__},
            "settings": settings, "implementations": rows, "searched": searched or {},
            "families": sorted({f for r in rows for f in r["families"]}),
            "audited": sum(1 for r in rows if r["status"] == "audited"),
            "volatile": {"audit_seconds": seconds}}


def exit_code(doc: dict) -> int:
    """1 when an audited implementation has a finding, 0 when none has, 2 when nothing was audited."""
    audited = [r for r in doc["implementations"] if r["status"] == "audited"]
    if not audited:
        return 2
    return 1 if any(r["families"] or r["unexplained"] for r in audited) else 0
