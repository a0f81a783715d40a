"""Run every check on every procedure; group failing checks into findings.

A finding is one (procedure, family): its first failing check gives the repro, the others
are listed with it.  The run is a pure function of the seed and the procedures' behaviour
(every draw of the audit comes from ``numpy.random.default_rng([seed, salt])``).
"""

from __future__ import annotations

import platform
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Callable, Optional

import numpy as np

from .checks import CheckResult, Session, Settings
from .checks_answers import check_answers
from .checks_ci import check_ci
from .checks_edge import edges
from .checks_paired import check_paired
from .families import FAMILIES
from ..upstream.library import installed_version
from .procedures import Procedure


@dataclass
class Finding:
    procedure: str
    family: str
    level: str
    checks: list[CheckResult]

    @property
    def main(self) -> CheckResult:
        return self.checks[0]


@dataclass
class ProcedureRun:
    procedure: Procedure
    results: list[CheckResult] = field(default_factory=list)

    @property
    def findings(self) -> list[Finding]:
        groups: dict[str, list[CheckResult]] = {}
        for r in self.results:
            if r.is_finding:
                groups.setdefault(r.family, []).append(r)
        order = list(FAMILIES)
        return [Finding(self.procedure.name, fam, self.procedure.kind, rs)
                for fam, rs in sorted(groups.items(), key=lambda kv: order.index(kv[0]))]


@dataclass
class StatsRun:
    settings: Settings
    runs: list[ProcedureRun]
    environment: dict

    @property
    def findings(self) -> list[Finding]:
        return [f for r in self.runs for f in r.findings]


def environment() -> dict:
    env = {"python": platform.python_version(), "numpy": np.__version__}
    if installed_version("sacrebleu"):  # metadata: importing sacreBLEU (code under audit) is for workers
        env["sacrebleu"] = installed_version("sacrebleu")
    from .. import __version__
    env["chrf_audit"] = __version__
    return env


def audit_procedure(proc: Procedure, settings: Settings, stop: Optional[threading.Event] = None) -> list[CheckResult]:
    """Every family's checks, each run whatever another found: the chosen inputs first
    (calibration, pairing, sizes...), then the edge cases and the side-effect probe, then
    the checks over every answer obtained (robustness, estimate, containment, replay)."""
    sess = Session(proc, settings, stop)
    try:
        planned = [check_ci(sess) if proc.kind == "ci" else check_paired(sess), edges(sess)]
        results = [r for evaluate in planned for r in evaluate()] + check_answers(sess)
    except BaseException:
        sess.close(wait=False)
        raise
    sess.close()
    return results


def run_stats(procedures: list[Procedure], settings: Optional[Settings] = None,
              progress: Optional[Callable[[str], None]] = None, jobs: int = 1) -> StatsRun:
    """Audit every procedure.  With ``jobs`` > 1, procedures that run in processes of their
    own are audited that many at a time, so that their workers compute in parallel;
    procedures sharing a process (an external program's) stay together, one after the
    other, and so do the in-process ones (their side-effect probe looks at this process's
    global random state).  Each procedure's calls keep their order, so the result does not
    depend on ``jobs``."""
    settings = settings or Settings()
    groups: dict[object, list[Procedure]] = {}
    for proc in procedures:
        groups.setdefault(id(getattr(proc, "process", proc)) if proc.remote else "in-process", []).append(proc)
    stop = threading.Event()   # set when the audit fails: the other procedures stop calling

    def audit(group: list[Procedure]) -> list[ProcedureRun]:
        out = []
        for proc in group:
            if progress:
                progress(proc.name)
            out.append(ProcedureRun(proc, audit_procedure(proc, settings, stop)))
        return out

    pool = ThreadPoolExecutor(max(1, jobs), "chrf-audit-stats") if jobs > 1 and len(groups) > 1 else None
    try:
        done = list(pool.map(audit, groups.values())) if pool else [audit(g) for g in groups.values()]
    except BaseException:
        stop.set()
        raise
    finally:
        if pool:
            pool.shutdown(wait=False, cancel_futures=True)
    order = {id(p): i for i, p in enumerate(procedures)}
    runs = sorted((r for rs in done for r in rs), key=lambda r: order[id(r.procedure)])
    return StatsRun(settings, runs, environment())
