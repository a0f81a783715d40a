"""``run_survey``: the registry's implementations (or those named) as units on the Dask engine of
``chrf-audit versions`` (``audit.versions.engine``: the embedded LocalCluster, or
``--scheduler``), each finished unit kept in the cache under its key (``plan.kept``) and not
redone; then the document (``document.py``).

A unit the engine could not run (its workers kept dying, a worker without chrf-audit) is
reported as skipped and not kept: the next run tries it again.  A unit that failed for a reason
of its own (it cannot be installed, its audit raised) is kept like any result: reported, never
retried for ever.
"""

from __future__ import annotations

import json
from pathlib import Path

from ..collect.parallel import default_jobs
from ..files.outputs import atomic_write
from ..versions.engine import Engine, Progress
from . import plan, registry
from .document import document, issue_files
from .unit import skipped, task

TRANSIENT = "engine"


def _failed(unit: dict, why: str) -> dict:
    return dict(skipped(unit, why), transient=TRANSIENT)


def _keep(unit: dict, result: dict) -> None:
    if result.get("transient"):
        return
    try:
        atomic_write(plan.kept(unit), json.dumps(result, sort_keys=True, ensure_ascii=True))
    except OSError:
        pass  # the cache only speeds things up


#: the most bytes and levels a kept unit may have (a unit's result holds its audit documents)
UNIT_BYTES, UNIT_DEPTH = 64 << 20, 64


def _cached(unit: dict):
    """A finished unit kept in the cache, read as any file from outside (``cache_entry``): a
    planted link, FIFO, huge or deep file is a miss, and the unit runs again."""
    from ..files.cache_entry import read_entry

    found = read_entry(plan.kept(unit), "a survey unit", most=UNIT_BYTES, depth=UNIT_DEPTH)
    ok = isinstance(found, dict) and found.get("name") == unit["name"] and found.get("status") in ("audited", "skipped")
    return found if ok else None


def run_survey(req: plan.Request) -> tuple[dict, dict[str, bytes]]:
    """(the document, the issue files of every audited row: {path: bytes})."""
    implementations = registry.select(req.names, req.registry)
    units = plan.units(req, implementations)
    results = {}
    todo = []
    for unit in units:
        found = _cached(unit)
        if found is not None:
            results[unit["name"]] = found
        else:
            todo.append(unit)
    if todo:
        with Progress(not req.quiet, "chrF", "implementations") as progress, \
                Engine(req.scheduler, req.jobs or default_jobs(), progress, req.worker_wait) as engine:
            results.update(engine.run(todo, work=task, failed=_failed, on_result=_keep))
    settings = {"seed": req.seed, "max_examples": req.max_examples, "tolerance": req.tolerance,
                "timeout": req.timeout, "differential": req.differential}
    searched = registry.searched() if req.registry_path is None else registry.searched(Path(req.registry_path))
    doc = document(implementations, results, settings, searched)
    doc["volatile"]["reused_from_cache"] = sorted(set(results) - {u["name"] for u in todo})
    issues: dict[str, bytes] = {}
    for impl in implementations:
        for row in (results.get(impl.name) or {}).get("rows") or []:
            issues.update(issue_files(impl.name, row))
    return doc, issues
