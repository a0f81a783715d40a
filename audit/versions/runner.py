"""``run_versions``: which releases, their units on the engine (all of them, or ``--bisect``'s
rounds), and the document (which ``run`` reads from the project's
``reports/versions/<package>.json`` or ``--versions-from``: docs/versions.md).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Optional

from ..collect.parallel import default_jobs
from ..settings import options
from . import bisect as bisection
from . import envs, releases, scheduler
from .engine import Engine, Progress
from .index import IndexOptions, available_versions
from .matrix import document
from .targets import library, targets


@dataclass
class Request:
    package: str
    spec: str
    impl: Optional[str] = None
    corpus_impl: Optional[str] = None
    overrides: dict = field(default_factory=dict)
    max_refs: Optional[int] = None
    name: Optional[str] = None
    accepts: Optional[str] = None
    seed: int = options.default("seed")
    max_examples: int = options.BUDGET
    tolerance: float = options.default("tolerance")
    timeout: float = options.default("timeout")
    cases: Optional[str] = None  # a directory (absolute) or None: none (the command works out the table's default)
    hypothesis_profile: Optional[str] = None
    pythons: tuple = ()
    index: IndexOptions = field(default_factory=IndexOptions)
    bisect: bool = False
    scheduler: Optional[str] = None
    jobs: Optional[int] = None  # None: the number of cores
    worker_wait: float = options.default("worker_wait")
    quiet: bool = False


def report_name(package: str) -> str:
    """The package's name in file names: a built-in upstream's own name, else the canonical
    distribution name."""
    lib = library(package)
    return lib.name if lib is not None else envs.canonical(package)


def plan(req: Request) -> tuple[str, list, list, list]:
    """(distribution, implementation specs, versions to audit, listed versions not offered);
    every usage error before any work."""
    distribution, specs = targets(req.package, impl=req.impl, corpus_impl=req.corpus_impl,
                                  overrides=req.overrides, max_refs=req.max_refs, name=req.name,
                                  accepts=req.accepts)
    parsed = releases.parse(req.spec)
    envs.check_given(req.pythons)  # a bad --python is an error now, not in every unit
    if req.scheduler:  # a wrong address is told before the package index is asked
        scheduler.check(req.scheduler)
    chosen, missing = releases.select(parsed, available_versions(distribution, req.index))
    return distribution, specs, chosen, missing


def run_versions(req: Request) -> dict:
    distribution, specs, chosen, missing = plan(req)
    settings = {"seed": req.seed, "max_examples": req.max_examples, "tolerance": req.tolerance,
                "timeout": req.timeout, "bisect": req.bisect, "spec": req.spec,
                "claims": dict(sorted(req.overrides.items()))}
    base = {"distribution": distribution, "targets": specs, "seed": req.seed, "max_examples": req.max_examples,
            "tolerance": req.tolerance, "timeout": req.timeout, "cases": req.cases,
            "hypothesis_profile": req.hypothesis_profile, "pythons": list(req.pythons), "index": req.index.to_dict()}
    token = hashlib.sha256(json.dumps(base, sort_keys=True, default=str).encode()).hexdigest()[:12]

    def units(versions):
        return [dict(base, version=v, token=token) for v in versions]

    results: dict = {}
    with (Progress(not req.quiet, distribution) as progress,
          Engine(req.scheduler, req.jobs or default_jobs(), progress, req.worker_wait) as engine):
        if req.bisect:
            while True:
                picks = bisection.next_round(chosen, results)
                if not picks:
                    break
                results.update(engine.run(units(picks)))
        else:
            results.update(engine.run(units(chosen)))
    inferred = bisection.inferred(chosen, results) if req.bisect else {}
    for v in missing:
        results[v] = {"version": v, "status": "skipped", "reason": "not on the package index", "families": [],
                      "findings": [], "python": None, "sources": {}}
    lib = library(req.package)
    doc = document(report_name(req.package), releases.ordered(chosen + missing), results,
                   implementations=[s["name"] for s in specs], settings=settings,
                   library=lib.name if lib is not None else None, inferred=inferred)
    doc["distribution"] = distribution
    return doc
