"""The worker process of a patch validation (``python -m audit.patches REQUEST``).

A request is a JSON object: the target (``impl``, ``corpus_impl``, ``overrides``, ``seed``,
``max_examples``, ``tolerance``, ``timeout``, ``cases``), where to write the result
(``out``), optionally ``expect_root`` + ``tops`` (the packages that must be imported from
the patched copy), and a ``mode``:

- ``audit``: a derandomized audit -> ``{"adapters", "findings"}``;
- ``replay``: each of ``repros`` checked once -> ``{"adapters", "replays"}``;
- ``audit+replay``: the audit, then each repro whose family the audit did not find ->
  both (the report's patch verification: one process per patch).

``backend_options`` (a patched copy's opt-in keywords) go to the built-in backends; each of
``checks`` is replayed in any mode (``{"checks"}``: an issue's repro after its patch).

Exit 0 with the result written; 2 with one line on stderr for a usage error (an
implementation that cannot be loaded, a patched copy that is not what Python imports).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from ..processes import owner as procs
from ..errors import UsageError
from .diffs import package_root


def _check_imports(request: dict) -> None:
    if request.get("expect_root"):
        root = Path(request["expect_root"]).resolve()
        for top in request.get("tops") or []:
            where = package_root(top)
            if where is None or where != root:
                raise UsageError(f"the patched copy of {top!r} is not what Python imports "
                                 f"(it imports it from {where}); is {top!r} installed as a zip or a namespace?")


def replay(adapters, repros: list[dict], tolerance: float) -> list[dict]:
    """Check each repro once on its implementation: does it still diverge as its family?"""
    from ..collect.checker import Checker

    by_name = {a.name: a for a in adapters}
    out = []
    for r in repros:
        adapter = by_name.get(r["implementation"])
        rec = {"implementation": r["implementation"], "family": r["family"], "reproduces": False,
               "key": None, "actual": None, "outcome": None}
        if adapter is not None:
            try:
                base = adapter.claims.to_dict()
                changes = {k: v for k, v in (r.get("claims") or {}).items() if base.get(k) != v}
                obs = Checker(adapter, tolerance).check(r["level"], r["inputs"], changes or None)
                rec.update(key=list(obs.key) if obs.key else None, actual=obs.outcome.value,
                           outcome=obs.outcome.kind, reproduces=bool(obs.key) and r["family"] in obs.key,
                           raw=obs.outcome.raw, expected=float(obs.expected),
                           expected_fraction=f"{obs.expected.numerator}/{obs.expected.denominator}")
            except Exception as exc:  # a level it no longer supports, a refused claim ...
                rec["outcome"] = f"not replayed: {type(exc).__name__}: {exc}"
        else:
            rec["outcome"] = "not replayed: the implementation is not audited on this side"
        out.append(rec)
    return out


def serve(request: dict) -> dict:
    from ..adapters import resolve
    from ..collect.runner import run_audit

    _check_imports(request)
    adapters = resolve(request.get("impl"), corpus_impl=request.get("corpus_impl"),
                       overrides=request.get("overrides") or None, timeout=request["timeout"],
                       backend_options=request.get("backend_options") or None)
    try:
        out: dict = {"adapters": [
            {"implementation": a.name, "version": a.version,
             "sources": {lvl: loc.file for lvl, loc in a.sources.items()}}
            for a in adapters]}
        repros = request.get("repros") or []
        if request["mode"] in ("audit", "audit+replay"):
            result = run_audit(adapters, seed=request["seed"], max_examples=request["max_examples"],
                               tolerance=request["tolerance"], cases_dir=request.get("cases"),
                               hypothesis_profile=request.get("hypothesis_profile"))
            out["findings"] = [f.to_dict() for f in result.findings]
            found = {(f["implementation"], f["family"]) for f in out["findings"]}
            repros = [r for r in repros if (r["implementation"], r["family"]) not in found]
        if request["mode"] in ("replay", "audit+replay"):
            out["replays"] = replay(adapters, repros, request["tolerance"])
        if request.get("checks"):  # replayed whatever the audit found (an issue's repro after its patch)
            out["checks"] = replay(adapters, request["checks"], request["tolerance"])
        return out
    finally:
        for a in adapters:
            a.close()


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    procs.install()
    request = json.loads(Path(argv[0]).read_text(encoding="utf-8"))
    try:
        payload = serve(request)
    except UsageError as exc:
        print(f"chrf-audit: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # SIGTERM from the parent: the adapters are closed by now
        procs.stop_all()
        return 143
    Path(request["out"]).write_text(json.dumps(payload), encoding="utf-8")
    return 0
