"""Checks of a confidence-interval procedure: point estimate, what is resampled, precision,
coverage.  Each is stated with its test in ``audit.stats.families``."""

from __future__ import annotations

import numpy as np

from .. import significance as sig
from . import data as D
from . import stat_tests as T
from .checks import CheckResult, Settings, args_for, call, failed, fmt
from .models import ci_model, ci_replicates
from .procedures import DRAWS, Procedure

POINT_TOL = 1e-9       # the point estimate is one float64 evaluation of summed statistics
CONTAIN_TOL = 1e-4     # containment: float32 rounding of a bound is the precision check's job
REPLAY_TOL = 1e-9


def check_ci(proc: Procedure, s: Settings) -> list[CheckResult]:
    params = proc.claims.params
    corpus = D.cached(("skewed", s.seed, 60, params), lambda: D.skewed(s.rng(1), 60, params))
    args = args_for(proc, s)
    rec, out = call(proc, corpus.hyps, corpus.refs, args)
    if not out.ok:
        return [failed(proc, "skewed corpus", rec, out, "a 60-segment corpus")]
    located = sentence_scores(proc, s, corpus, rec, out.values)
    mc_sd = max(located[0].evidence["mc_sd_statistics"])
    results = [point_estimate(proc, s, corpus, rec, out.values), *located,
               precision(proc, s, corpus, rec, out.values, mc_sd)]
    results += coverage(proc, s)
    return results


def point_estimate(proc, s, corpus, rec, v) -> CheckResult:
    params, alpha = proc.claims.params, rec["alpha"]
    exact = corpus.score(params)
    name, fam = "point estimate", "ci-point-estimate"
    if abs(v["score"] - exact) > POINT_TOL:
        return CheckResult(proc.name, fam, name, "finding",
                           f"the point estimate {fmt(v['score'])} is not the corpus score from "
                           f"summed statistics {fmt(exact)}", f"|difference| > {POINT_TOL:g}",
                           rec, {"score": exact}, v)
    if not v["low"] - CONTAIN_TOL <= v["score"] <= v["high"] + CONTAIN_TOL:
        # Only a finding if a correct interval contains it with margin on this input.
        scores = sig.bootstrap_scores(corpus.stats, params, resamples=2000, seed=12345)
        q = float(np.mean(scores < exact))
        if not alpha / 2 + 0.05 <= q <= 1 - alpha / 2 - 0.05:
            return CheckResult(proc.name, fam, name, "inconclusive",
                               f"the point estimate sits at bootstrap quantile {q:.3f}: a correct "
                               "interval may exclude it on this input", evidence={"quantile": q})
        return CheckResult(proc.name, fam, name, "finding",
                           f"the interval [{fmt(v['low'])}, {fmt(v['high'])}] does not contain its "
                           f"own point estimate {fmt(v['score'])} (bootstrap quantile of the "
                           f"estimate: {q:.3f})", f"low - {CONTAIN_TOL:g} <= point <= high + {CONTAIN_TOL:g}",
                           rec, {"score": exact}, v, evidence={"quantile": q})
    return CheckResult(proc.name, fam, name, "pass",
                       "the point estimate is the corpus score and lies inside the interval")


def _replicates(proc, s, corpus, rec):
    seeds = [[s.seed, 7, k] for k in range(s.replicates)]
    out = {}
    for over in ("statistics", "sentence"):
        reps = ci_replicates(corpus.stats, corpus.sentence, proc.claims, rec["alpha"],
                             rec["resamples"], seeds, over)
        out[over] = (reps.mean(axis=0), np.maximum(reps.std(axis=0, ddof=1), 1e-12))
    return out


def sentence_scores(proc, s, corpus, rec, v) -> list[CheckResult]:
    models = _replicates(proc, s, corpus, rec)
    got = np.array([v["low"], v["high"]])
    z = {k: float(np.max(np.abs(got - m) / sd)) for k, (m, sd) in models.items()}
    (ms, sds), (mt, sdt) = models["statistics"], models["sentence"]
    separation = float(np.min(np.abs(ms - mt) / np.maximum(sds, sdt)))
    ev = {"z_statistics": z["statistics"], "z_sentence": z["sentence"], "separation_sd": separation,
          "model_statistics": ms.tolist(), "model_sentence": mt.tolist(),
          "mc_sd_statistics": sds.tolist(), "replicates": s.replicates}
    test = (f"|z| > {T.Z:g} against {s.replicates} float64 replicates of each model "
            f"(models {separation:.0f} SD apart; z to statistics {z['statistics']:.1f}, "
            f"to sentence scores {z['sentence']:.1f})")
    expected = {"low": float(ms[0]), "high": float(ms[1])}
    if z["statistics"] <= T.Z:
        return [CheckResult(proc.name, "sentence-scores", "interval over summed statistics", "pass",
                            "the bounds agree with the float64 interval over summed statistics",
                            test, evidence=ev)]
    if z["sentence"] <= T.Z:
        return [CheckResult(proc.name, "sentence-scores", "interval over summed statistics", "finding",
                            f"the interval [{fmt(v['low'])}, {fmt(v['high'])}] is the interval of the "
                            f"mean sentence score (model [{fmt(mt[0])}, {fmt(mt[1])}]), not of corpus "
                            f"chrF from summed statistics ([{fmt(ms[0])}, {fmt(ms[1])}])",
                            test, rec, expected, v, evidence=ev)]
    return [CheckResult(proc.name, "low-precision", "Monte Carlo agreement", "finding",
                        f"the bounds [{fmt(v['low'])}, {fmt(v['high'])}] disagree with the float64 "
                        f"interval over summed statistics [{fmt(ms[0])}, {fmt(ms[1])}] beyond "
                        "Monte Carlo error (and are no sentence-score interval either)",
                        test, rec, expected, v, evidence=ev)]


IDENTIFY_TOL = 1e-3   # a known draw "is" the procedure's if it reproduces two calls this closely


def _identify(proc, corpus, rec, v):
    """The procedure's draw when it claims none: a known draw that reproduces its bounds on two
    seeds to 1e-3 (float32 errors are ~1e-5; an unrelated draw is ~0.1 away: the chance of a
    false match is ~(1e-3 / 0.1)**4)."""
    if rec.get("seed") is None:
        return None
    args = {a: rec[a] for a in ("resamples", "alpha")}
    _, other = call(proc, corpus.hyps, corpus.refs, dict(args, seed=rec["seed"] + 1))
    if not other.ok:
        return None
    for name, draw in DRAWS.items():
        ok = True
        for seed, vals in ((rec["seed"], v), (rec["seed"] + 1, other.values)):
            idx = draw(seed, corpus.n, rec["resamples"])
            lo, hi = ci_model(corpus.stats, corpus.sentence, proc.claims, rec["alpha"], idx, "statistics")
            ok = ok and abs(vals["low"] - lo) <= IDENTIFY_TOL and abs(vals["high"] - hi) <= IDENTIFY_TOL
        if ok:
            return name
    return None


def precision(proc, s, corpus, rec, v, mc_sd: float = float("nan")) -> CheckResult:
    c = proc.claims
    name = "float64 arithmetic"
    draw = c.draw if c.draw in DRAWS else _identify(proc, corpus, rec, v)
    if draw and rec.get("seed") is not None:
        idx = DRAWS[draw](rec["seed"], corpus.n, rec["resamples"])
        lo, hi = ci_model(corpus.stats, corpus.sentence, c, rec["alpha"], idx, "statistics")
        err = max(abs(v["low"] - lo), abs(v["high"] - hi))
        ev = {"replayed": True, "draw": draw, "claimed_draw": c.draw == draw,
              "max_abs_error": err, "float64": [lo, hi]}
        test = (f"same draw ({draw}, seed {rec['seed']}{'' if c.draw == draw else ', identified'}) "
                f"recomputed in float64: |error| > {REPLAY_TOL:g}")
        if err > REPLAY_TOL:
            f32 = all(T.is_float32(x) for x in (v["low"], v["high"]))
            return CheckResult(proc.name, "low-precision", name, "finding",
                               f"on its own resamples the bounds differ from float64 by up to {err:.3g}"
                               + (" (the bounds are float32 numbers)" if f32 else "")
                               + f"; for scale, the Monte Carlo SD of a bound at {rec['resamples']} "
                               f"resamples is {mc_sd:.3g}",
                               test, rec, {"low": lo, "high": hi}, v, evidence=ev)
        return CheckResult(proc.name, "low-precision", name, "pass",
                           f"the bounds equal the float64 recomputation of the same draw (error {err:.2g})",
                           test, evidence=ev)
    values = [v["low"], v["high"]]
    for k in range(3):
        args = dict(rec, seed=None if rec.get("seed") is None else rec["seed"] + 1 + k)
        args = {a: args[a] for a in ("resamples", "alpha", "seed")}
        _, o = call(proc, corpus.hyps, corpus.refs, args)
        if o.ok:
            values += [o.values["low"], o.values["high"]]
    values = [x for x in values if x != round(x)]
    n32 = sum(T.is_float32(x) for x in values)
    test = ("no known draw: all of >= 4 non-integer bounds being float32 numbers is a finding "
            "(chance for float64 arithmetic <= 2**-29 each)")
    ev = {"replayed": False, "values": values, "float32_values": n32}
    if len(values) >= 4 and n32 == len(values):
        return CheckResult(proc.name, "low-precision", name, "finding",
                           f"all {n32} bounds returned are float32 numbers: the interval is computed "
                           "or stored in float32", test, rec, None, v, evidence=ev)
    status = "pass" if len(values) >= 4 else "inconclusive"
    return CheckResult(proc.name, "low-precision", name, status,
                       f"{n32} of {len(values)} bounds are float32 numbers", test, evidence=ev)


def coverage(proc, s: Settings) -> list[CheckResult]:
    c = proc.claims
    params = c.params
    pool = D.cached(("pool", s.seed, s.pool, params), lambda: D.skewed(s.rng(2), s.pool, params))
    truth = pool.score(params)
    alphas = [c.alpha] + ([0.3] if "alpha" in c.accepts and c.alpha != 0.3 else [])
    rng = s.rng(3)
    draws = [rng.integers(0, s.pool, size=s.coverage_segments) for _ in range(s.trials)]
    results = []
    for alpha in alphas:
        covered, widths, n_ok = 0, [], 0
        for t, idx in enumerate(draws):
            sample = D.pool_sample(pool, idx)
            args = args_for(proc, s, resamples=s.coverage_resamples, alpha=alpha, seed=1000 + t)
            rec, out = call(proc, sample.hyps, sample.refs, args)
            if not out.ok:
                results.append(failed(proc, "coverage corpus", rec, out, "a coverage corpus"))
                break
            n_ok += 1
            covered += out.values["low"] <= truth <= out.values["high"]
            widths.append(out.values["high"] - out.values["low"])
        else:
            target = 1 - alpha
            lo_p, hi_p = max(0.0, target - 0.06), min(1.0, target + 0.06)
            low_tail = T.binom_cdf(covered, n_ok, lo_p)
            high_tail = 1.0 - T.binom_cdf(covered - 1, n_ok, hi_p) if hi_p < 1 else 1.0
            bad = min(low_tail, high_tail) <= T.LEVEL / 2
            cov = covered / n_ok
            ev = {"alpha": alpha, "covered": covered, "trials": n_ok, "coverage": cov,
                  "truth": truth, "mean_width": float(np.mean(widths)),
                  "band": [lo_p, hi_p], "tails": [low_tail, high_tail]}
            test = (f"{n_ok} corpora of {s.coverage_segments} segments from a {s.pool}-segment pool "
                    f"(corpus chrF {truth:.3f}); exact binomial tails against {lo_p:.2f} and "
                    f"{hi_p:.2f}, level {T.LEVEL:g}")
            results.append(CheckResult(
                proc.name, "calibration", f"coverage at alpha={alpha:g}", "finding" if bad else "pass",
                f"the {100 * (1 - alpha):g}% interval covers the known corpus score in {covered} of "
                f"{n_ok} corpora ({100 * cov:.1f}%)", test,
                {"generator": "coverage", "trials": n_ok, "segments": s.coverage_segments,
                 "pool": s.pool, "truth": truth, "resamples": args["resamples"], "alpha": alpha,
                 "seed": args["seed"]} if bad else None,
                {"coverage": target}, {"coverage": cov}, evidence=ev))
    return results
