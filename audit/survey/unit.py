"""One unit of ``chrf-audit survey``: one implementation of the registry, installed into its own
cached environment (``audit.versions.envs``: one per release, interpreter and the requirements
beside it) and audited there through chrf-audit's protocol server (``audit.versions.server``),
each configuration (chrF, chrF++) an adapter, at the run's seed and budget; then the second
route (``differential``) on the same adapters.

``run_unit(unit, say)`` takes and returns plain JSON data (a Dask worker on another machine runs
it as well as this process).  The result holds, per configuration, the audit's document
(audit.json's shape: the issue files are rendered from it where the reports are written), the
families, the unexplained rows, the fit, and the second route's counts.  An implementation that
cannot be installed or imported with any interpreter it allows is ``skipped`` with one line.
"""

from __future__ import annotations

import shlex
import time
from pathlib import Path
from typing import Callable, Optional

from ..errors import UsageError
from ..processes.stderr_lines import one_line
from ..versions import envs
from ..versions.index import IndexOptions
from ..versions.unit import describe_release, server_command


def skipped(unit: dict, reason: str) -> dict:
    return {"name": unit["name"], "status": "skipped", "reason": one_line(reason, 400), "python": None,
            "version": unit["version"], "rows": []}


def _interpreters(unit: dict):
    allowed = set(unit.get("python") or ())
    for interp in envs.interpreters(tuple(unit.get("pythons") or ())):
        if not allowed or interp.tag in allowed:
            yield interp


def _environment(unit: dict, say) -> tuple[Optional[Path], Optional[dict], str]:
    index = IndexOptions(unit["index"].get("index_url"), tuple(unit["index"].get("find_links") or ()))
    spec, reasons = unit["targets"][0], []
    for interp in _interpreters(unit):
        try:
            venv, info = envs.prepare(unit["distribution"], unit["version"], interp, index,
                                      lambda py: describe_release(py, spec, unit["timeout"]), say=say,
                                      beside=tuple(unit.get("beside") or ()))
            return venv, info, ""
        except envs.Unusable as exc:
            reasons.append(str(exc))
    if not reasons:
        wanted = "/".join(unit.get("python") or ()) or f"{envs.MIN_PYTHON[0]}.{envs.MIN_PYTHON[1]}+"
        return None, None, f"needs Python {wanted}: no such interpreter on this machine"
    return None, None, reasons[0] + (f" (and with {len(reasons) - 1} more interpreters)" if len(reasons) > 1 else "")


def _record(spec: dict, source):
    """The finding source of a registry expression: how its issue's snippet calls it."""
    backend = spec["backend"]

    def record(level: str) -> Optional[dict]:
        expr = backend.get(level)
        if backend.get("kind") != "expression" or not expr:
            return None
        out = {"call": "expression", "setup": backend.get("setup") or "", "expression": expr}
        loc = (source or {}).get(level)
        if loc is not None:
            out.update(file=loc.file, line=loc.line, function=f"{loc.module}.{loc.qualname}")
        return out
    return record


def _start(python: Path, spec: dict, timeout: float):
    from ..adapters.external import ExternalAdapter

    expression = spec["backend"].get("kind") == "expression"
    return ExternalAdapter.start(shlex.join(server_command(python, spec)), timeout, name=spec["name"],
                                 record=(lambda level, sources: _record(spec, sources)(level)) if expression else None)


def _row(unit: dict, adapter, config: str, say) -> dict:
    """Audit one configuration; its document, findings and second route."""
    from ..collect.runner import run_audit
    from ..enrich import enrich
    from ..render.json_report import build
    from . import differential, reproduce

    say(f"auditing {unit['name']} {config}")
    started = time.monotonic()  # the audit time the table shows (volatile, never a decision)
    cases = unit.get("cases")
    result = run_audit([adapter], seed=unit["seed"], max_examples=unit["max_examples"], tolerance=unit["tolerance"],
                       hypothesis_profile=unit.get("hypothesis_profile"), cases_dir=Path(cases) if cases else None,
                       jobs=1)
    doc = build(enrich(result, with_upstream=False))
    for f in doc["findings"]:  # the issue files name the package a user installs
        f["issue"] = {**(f.get("issue") or {}), "library": unit["distribution"]}
    # the interpreter that ran it is its environment's, not chrf-audit's
    doc["environment"]["python"] = f"Python {unit['interpreter']} (its environment)"
    say(f"second route: {unit['name']} {config}")
    claims = adapter.claims.to_dict()
    route = differential.run(adapter, claims, unit["seed"], unit["differential"], unit["tolerance"])
    families = sorted({f["family"] for f in doc["findings"] if not f["family"].startswith("unexplained")})
    route["reproduced_by_families"] = reproduce.reproduced(families, claims, route["records"], unit["tolerance"])
    return {"configuration": config, "implementation": adapter.name, "claims": claims, "document": doc,
            "differential": route, "seconds": round(time.monotonic() - started, 1)}


def run_unit(unit: dict, say: Callable[[str], None] = lambda m: None) -> dict:
    """Install and audit one implementation (see the module's docstring)."""
    from ..adapters.base import AdapterError

    workdir = envs.empty_dir()
    unit = dict(unit, targets=[dict(t, cwd=str(workdir)) for t in unit["targets"]])
    say(f"preparing {unit['name']} {unit['version']}")
    venv, info, why = _environment(unit, say)
    if venv is None:
        return skipped(unit, why)
    python, rows = venv / "bin" / "python", []
    unit["interpreter"] = info.get("python")
    for spec in unit["targets"]:
        try:
            adapter = _start(python, spec, unit["timeout"])
        except (AdapterError, UsageError) as exc:
            return skipped(unit, f"cannot start its audit: {exc}")
        try:
            rows.append(_row(unit, adapter, spec["configuration"], say))
        finally:
            adapter.close()
            adapter.process.kill()  # the audit's re-configured variants share the server: it ends here
    return {"name": unit["name"], "status": "audited", "reason": None, "python": info.get("python"),
            "version": unit["version"], "rows": rows}


def task(unit: dict) -> dict:
    """What a Dask worker runs (``audit.versions.engine.Engine.run(work=task)``): one unit; its
    own failure is a skipped implementation with the reason, never retried."""
    from ..versions.engine import TOPIC

    try:
        from distributed import get_worker

        worker = get_worker()
    except (ImportError, ValueError):  # pragma: no cover - called outside a worker
        worker = None

    def say(text: str) -> None:
        if worker is not None:
            worker.log_event(TOPIC, {"version": unit["version"], "text": text})

    try:
        return run_unit(unit, say)
    except Exception as exc:  # noqa: BLE001 - reported as the implementation's reason
        detail = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        return skipped(unit, f"the audit failed: {detail}")
