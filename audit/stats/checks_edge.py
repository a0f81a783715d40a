"""Robustness: edge cases of the resampling, identical systems, a single resample, and
determinism for a fixed seed.  Every input here is deterministic and small, so a failure is
reported with the very input that caused it (already minimal)."""

from __future__ import annotations

from . import data as D
from .checks import CheckResult, Settings, args_for, call, failed, fmt
from .checks_ci import CONTAIN_TOL


def check_edges(proc, s: Settings) -> list[CheckResult]:
    params = proc.claims.params
    edges = D.edge_cases(params)
    res: list[CheckResult] = []
    args = args_for(proc, s, resamples=200)
    single = args_for(proc, s, resamples=1)
    for name, c in edges.items():
        res.append(_one(proc, name, c, args))
    normal = D.skewed(s.rng(1), 20, params)
    res.append(_one(proc, f"{single['resamples']} resample(s)", normal, single))
    if proc.kind == "paired":
        res.append(_identical(proc, normal, args))
    if "seed" in proc.claims.accepts:
        # a paired input whose p-value is mid-range (B shuffled inside groups), so that an
        # ignored seed shows as a different p-value
        a, _, shuffled = D.cached(("pairing", s.seed, params), lambda: D.pairing_corpus(s.rng(5), params))
        for seed in (0, 1234):
            res.append(_deterministic(proc, normal if proc.kind == "ci" else (a, shuffled),
                                      args_for(proc, s, resamples=1000, seed=seed)))
    return res


def _call(proc, c, args):
    if isinstance(c, tuple):
        return call(proc, c[0].hyps, c[0].refs, args, hyps_b=c[1].hyps)
    if proc.kind == "ci":
        return call(proc, c.hyps, c.refs, args)
    # paired: the second system is the first with every hypothesis reversed word by word
    other = [" ".join(reversed(h.split())) or "x" for h in c.hyps]
    return call(proc, c.hyps, c.refs, args, hyps_b=other)


def _one(proc, name, c, args) -> CheckResult:
    rec, out = _call(proc, c, args)
    if not out.ok:
        return failed(proc, name, rec, out, name)
    v = out.values
    if proc.kind == "ci":
        exact = c.score(proc.claims.params)
        if not v["low"] - CONTAIN_TOL <= exact <= v["high"] + CONTAIN_TOL and c.n == 1:
            return CheckResult(proc.name, "robustness", name, "finding",
                               f"on {name} the interval [{fmt(v['low'])}, {fmt(v['high'])}] excludes "
                               f"the corpus score {fmt(exact)} (every resample is the corpus itself)",
                               "a one-segment corpus has one possible resample", rec,
                               {"score": exact}, v)
    return CheckResult(proc.name, "robustness", name, "pass", f"{name}: {_show(v)}")


def _show(v: dict) -> str:
    return ", ".join(f"{k} {fmt(x)}" for k, x in v.items())


def _identical(proc, c, args) -> CheckResult:
    rec, out = call(proc, c.hyps, c.refs, args, hyps_b=list(c.hyps))
    name = "identical systems"
    if not out.ok:
        return failed(proc, name, rec, out, name)
    p = out.values["p_value"]
    if p < 1 - 1e-9:
        return CheckResult(proc.name, "robustness", name, "finding",
                           f"a system compared with itself gets p = {fmt(p)}"
                           + (" < 0.05: 'significantly different'" if p < 0.05 else ""),
                           "identical systems tie in every relabelling or resample: p must be 1",
                           rec, {"p_value": 1.0}, out.values)
    return CheckResult(proc.name, "robustness", name, "pass", "a system compared with itself gets p = 1")


def _deterministic(proc, c, args) -> CheckResult:
    name = f"determinism (seed {args['seed']})"
    rec, first = _call(proc, c, args)
    _, second = _call(proc, c, args)
    if not (first.ok and second.ok):
        bad = first if not first.ok else second
        return failed(proc, name, rec, bad, name)
    if first.values != second.values:
        return CheckResult(proc.name, "robustness", name, "finding",
                           f"two calls with seed {args['seed']} give different results (values in "
                           "the JSON report)", "a fixed seed must reproduce the result exactly",
                           rec, first.values, second.values)
    return CheckResult(proc.name, "robustness", name, "pass", f"seed {args['seed']} reproduces the result")
