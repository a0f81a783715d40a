"""Shared pieces of the checks: settings, results, how a procedure is called.

A check returns ``CheckResult`` records, one per sub-check, with status ``pass``,
``finding`` or ``inconclusive`` (the inputs did not have the property the check needs: never
a finding).  Findings carry the exact call (inputs and arguments), so a report can print a
repro that imports only the audited library.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from .procedures import Outcome, Procedure


@dataclass(frozen=True)
class Settings:
    """Default sizes: each check's false-alarm rate (audit.stats.families) holds for these;
    the whole audit of sacreBLEU and evaluatio runs in well under 2 minutes on 2 cores."""

    seed: int = 0
    resamples: int = 1000          # resamples / trials of a single audited call
    replicates: int = 30           # Monte Carlo replicates of each float64 model
    trials: int = 200              # calibration: datasets under the null / coverage corpora
    null_segments: int = 30
    calibration_resamples: int = 199
    coverage_segments: int = 60
    coverage_resamples: int = 300
    pool: int = 300

    def rng(self, salt: int) -> np.random.Generator:
        return np.random.default_rng([self.seed, salt])


@dataclass
class CheckResult:
    procedure: str
    family: str
    check: str
    status: str                       # "pass", "finding", "inconclusive"
    summary: str
    test: str = ""
    call: Optional[dict] = None
    expected: Optional[dict] = None
    actual: Optional[dict] = None
    outcome: str = "value"
    evidence: dict = field(default_factory=dict)

    @property
    def is_finding(self) -> bool:
        return self.status == "finding"

    def to_dict(self) -> dict:
        return {k: getattr(self, k) for k in (
            "procedure", "family", "check", "status", "summary", "test", "call", "expected",
            "actual", "outcome", "evidence")}


def args_for(proc: Procedure, settings: Settings, *, resamples=None, alpha=None, seed=None) -> dict:
    """The arguments a call passes: what the procedure accepts, else its fixed claims."""
    c = proc.claims
    r = resamples if resamples is not None else settings.resamples
    out = {
        "resamples": max(int(r), c.min_resamples) if "resamples" in c.accepts else c.resamples,
        # 1000 + seed: some procedures treat seed 0 as "no seed" (robustness checks seed 0)
        "seed": ((1000 + settings.seed) if seed is None else seed) if "seed" in c.accepts else None,
    }
    if proc.kind == "ci":
        out["alpha"] = (alpha if alpha is not None else c.alpha) if "alpha" in c.accepts else c.alpha
    return out


def call(proc: Procedure, hyps, refs, args: dict, hyps_b=None, layout: str = "segments"):
    """(call record, Outcome).  The record holds everything a repro needs."""
    rec = {"hyps": list(hyps), "refs": [list(r) for r in refs], **args}
    if layout != "segments":
        rec["layout"] = layout
    if proc.kind == "ci":
        out = proc.ci(hyps, refs, resamples=args["resamples"], alpha=args["alpha"],
                      seed=args["seed"], layout=layout)
    else:
        rec["hyps_b"] = list(hyps_b)
        out = proc.paired(hyps, hyps_b, refs, resamples=args["resamples"], seed=args["seed"],
                          layout=layout)
    return rec, out


def failed(proc: Procedure, check: str, rec: dict, out: Outcome, what: str) -> CheckResult:
    """A non-value outcome on any input is a robustness finding with that input."""
    return CheckResult(
        proc.name, "robustness", check, "finding",
        f"{out.kind} on {what}: {out.detail}", "the call must return finite, ordered values",
        call=rec, actual=out.values, outcome=out.kind)


def fmt(x) -> str:
    return "None" if x is None else f"{x:.6g}" if isinstance(x, float) else str(x)
