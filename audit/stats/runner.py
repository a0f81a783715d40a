"""Run every check on every procedure; group failing checks into findings.

A finding is one (procedure, family): its first failing check gives the repro, the others
are listed with it.  The run is a pure function of the seed and the procedures' behaviour
(every draw of the audit comes from ``numpy.random.default_rng([seed, salt])``).
"""

from __future__ import annotations

import platform
from dataclasses import dataclass, field
from typing import Callable, Optional

import numpy as np

from .checks import CheckResult, Session, Settings
from .checks_answers import check_answers
from .checks_ci import check_ci
from .checks_edge import edges
from .checks_paired import check_paired
from .families import FAMILIES
from .procedures import Procedure, dist_version


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
    if dist_version("sacrebleu"):  # metadata: importing sacreBLEU (code under audit) is for workers
        env["sacrebleu"] = dist_version("sacrebleu")
    from .. import __version__
    env["chrf_audit"] = __version__
    return env


def audit_procedure(proc: Procedure, settings: Settings) -> list[CheckResult]:
    """Every family's checks, each run whatever another found: the chosen inputs first
    (calibration, pairing, sizes...), then the edge cases and the side-effect probe, then
    the checks over every answer obtained (robustness, estimate, containment, replay)."""
    sess = Session(proc, settings)
    try:
        planned = [check_ci(sess) if proc.kind == "ci" else check_paired(sess), edges(sess)]
        results = [r for evaluate in planned for r in evaluate()] + check_answers(sess)
    except BaseException:
        sess.close(wait=False)
        raise
    sess.close()
    return results


def run_stats(procedures: list[Procedure], settings: Optional[Settings] = None,
              progress: Optional[Callable[[str], None]] = None) -> StatsRun:
    settings = settings or Settings()
    runs = []
    for proc in procedures:
        if progress:
            progress(proc.name)
        runs.append(ProcedureRun(proc, audit_procedure(proc, settings)))
    return StatsRun(settings, runs, environment())
