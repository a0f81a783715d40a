"""Checks of a paired significance test: what it resamples, precision, pairing, calibration
under the null.  Each is stated with its test in ``audit.stats.families``."""

from __future__ import annotations

import numpy as np

from . import data as D
from . import stat_tests as T
from .checks import CheckResult, Settings, args_for, call, failed, fmt
from .models import paired_model
from .procedures import DRAWS

MODEL_TRIALS = 4000    # trials of the float64 models a p-value is located against


def check_paired(proc, s: Settings) -> list[CheckResult]:
    results = sentence_scores(proc, s)
    results += pairing(proc, s)
    results += calibration(proc, s)
    return results


def _locate(p: float, model: float, n_proc: int) -> float:
    sd = np.hypot(T.proportion_sd(model, n_proc), T.proportion_sd(model, MODEL_TRIALS))
    return T.z_score(p, model, sd)


def sentence_scores(proc, s: Settings) -> list[CheckResult]:
    """On systems whose corpus chrF differs widely but whose mean sentence chrF is equal, the
    p-value of a test over summed statistics is tiny and that of a sentence-score test large."""
    c = proc.claims
    a, b = D.cached(("opposed", s.seed, c.params), lambda: D.opposed_pair(s.rng(4), c.params))
    args = args_for(proc, s)
    rec, out = call(proc, a.hyps, a.refs, args, hyps_b=b.hyps)
    if not out.ok:
        return [failed(proc, "opposed systems", rec, out, "two systems")]
    p = out.values["p_value"]
    n = args["resamples"]
    models = {over: paired_model(a.stats, b.stats, a.sentence, b.sentence, c, MODEL_TRIALS,
                                 [s.seed, 8], over) for over in ("statistics", "sentence")}
    z = {k: _locate(p, m, n) for k, m in models.items()}
    ev = {"p_value": p, "model_statistics": models["statistics"], "model_sentence": models["sentence"],
          "z_statistics": z["statistics"], "z_sentence": z["sentence"], "trials": n,
          "corpus_difference": a.score(c.params) - b.score(c.params),
          "sentence_mean_difference": float(a.sentence.mean() - b.sentence.mean())}
    test = (f"binomial z of the p-value against float64 models ({MODEL_TRIALS} trials) over "
            f"summed statistics (p={models['statistics']:.4f}) and over sentence scores "
            f"(p={models['sentence']:.4f}); |z| > {T.Z:g} (z: {z['statistics']:.1f}, {z['sentence']:.1f})")
    results = []
    if z["statistics"] <= T.Z:
        results.append(CheckResult(proc.name, "sentence-scores", "test over summed statistics", "pass",
                                   f"p = {fmt(p)} agrees with the test over summed statistics", test, evidence=ev))
    elif z["sentence"] <= T.Z:
        results.append(CheckResult(
            proc.name, "sentence-scores", "test over summed statistics", "finding",
            f"p = {fmt(p)} is the p-value of the mean sentence score (model {fmt(models['sentence'])}), "
            f"not of corpus chrF (model {fmt(models['statistics'])}): corpus chrF differs by "
            f"{ev['corpus_difference']:.2f} points, the mean sentence score by "
            f"{ev['sentence_mean_difference']:.2f}", test, rec,
            {"p_value": models["statistics"]}, out.values, evidence=ev))
    else:
        results.append(CheckResult(
            proc.name, "low-precision", "Monte Carlo agreement of p", "finding",
            f"p = {fmt(p)} disagrees with the float64 test over summed statistics "
            f"(p = {fmt(models['statistics'])}) beyond Monte Carlo error", test, rec,
            {"p_value": models["statistics"]}, out.values, evidence=ev))
    results.append(_precision(proc, a, b, rec, p))
    return results


def _precision(proc, a, b, rec, p) -> CheckResult:
    c = proc.claims
    n = rec["resamples"]
    if c.draw in DRAWS and rec.get("seed") is not None:
        ref = paired_model(a.stats, b.stats, a.sentence, b.sentence, c, n, rec["seed"], "statistics")
        ok = abs(ref - p) <= 1e-12
        return CheckResult(
            proc.name, "low-precision", "float64 arithmetic of p", "pass" if ok else "finding",
            f"p = {fmt(p)}; the same draw recomputed in float64 gives {fmt(ref)}",
            f"same draw ({c.draw}, seed {rec['seed']}) recomputed in float64: any difference",
            None if ok else rec, {"p_value": ref}, {"p_value": p}, evidence={"replayed": True})
    k = round(p * (n + 1))
    on_grid = abs(p - k / (n + 1)) <= 1e-12
    f32 = (not on_grid and T.is_float32(p) and not T.is_float32(k / (n + 1))
           and abs(p - k / (n + 1)) < 1e-6)
    return CheckResult(
        proc.name, "low-precision", "float64 arithmetic of p", "finding" if f32 else "pass",
        f"p = {fmt(p)} is " + ("the float32 rounding of" if f32 else "consistent with") +
        f" {k}/{n + 1}", "no known draw: a p-value equal to float32(k/(N+1)) but not to the "
        "float64 k/(N+1) is a finding", rec if f32 else None, {"p_value": k / (n + 1)}, {"p_value": p},
        evidence={"replayed": False})


def pairing(proc, s: Settings) -> list[CheckResult]:
    c = proc.claims
    a, b, shuffled = D.cached(("pairing", s.seed, c.params), lambda: D.pairing_corpus(s.rng(5), c.params))
    args = args_for(proc, s)
    n = args["resamples"]
    res = []
    rec_ab, ab = call(proc, a.hyps, a.refs, args, hyps_b=b.hyps)
    rec_as, as_ = call(proc, a.hyps, a.refs, args, hyps_b=shuffled.hyps)
    rec_sa, sa = call(proc, shuffled.hyps, a.refs, args, hyps_b=a.hyps)
    for rec, out in ((rec_ab, ab), (rec_as, as_), (rec_sa, sa)):
        if not out.ok:
            return [failed(proc, "pairing corpus", rec, out, "the pairing corpus")]
    p_ab, p_as, p_sa = ab.values["p_value"], as_.values["p_value"], sa.values["p_value"]
    m_ab = paired_model(a.stats, b.stats, a.sentence, b.sentence, c, MODEL_TRIALS, [s.seed, 9], "statistics")
    m_as = paired_model(a.stats, shuffled.stats, a.sentence, shuffled.sentence, c, MODEL_TRIALS, [s.seed, 9], "statistics")
    ev = {"p_paired": p_ab, "p_shuffled": p_as, "p_swapped": p_sa, "model_paired": m_ab,
          "model_shuffled": m_as, "trials": n}
    if not (m_ab <= 0.01 and m_as >= 0.15):
        return [CheckResult(proc.name, "pairing", "pairing corpus", "inconclusive",
                            f"the pairing corpus lacks its design (model p {m_ab:.3f} / {m_as:.3f})",
                            evidence=ev)]
    sd = np.hypot(T.proportion_sd(p_as, n), T.proportion_sd(p_sa, n))
    z_swap = T.z_score(p_as, p_sa, sd)
    swap_test = f"p(A, B) = {fmt(p_as)} vs p(B, A) = {fmt(p_sa)}: two-proportion |z| > {T.Z:g} (z = {z_swap:.1f})"
    if z_swap > T.Z:
        res.append(CheckResult(proc.name, "pairing", "systems swapped", "finding",
                               f"swapping the two systems changes the p-value from {fmt(p_as)} to {fmt(p_sa)}",
                               swap_test, rec_sa, {"p_value": p_as}, sa.values, evidence=ev))
    else:
        res.append(CheckResult(proc.name, "pairing", "systems swapped", "pass",
                               "the p-value does not depend on the order of the systems", swap_test, evidence=ev))
    test = (f"B is A with one character changed per segment (paired model p = {m_ab:.4f}); B "
            f"shuffled inside groups of identical references keeps its scores but breaks the "
            f"pairing (model p = {m_as:.3f}): the procedure's p must be <= 0.05 before and > 0.05 after")
    if p_ab > 0.05:
        res.append(CheckResult(proc.name, "pairing", "paired segments", "finding",
                               f"a degradation of every segment gets p = {fmt(p_ab)}: segment i of one system "
                               "is not compared with segment i of the other", test, rec_ab,
                               {"p_value": m_ab}, ab.values, evidence=ev))
    elif p_as <= 0.05:
        res.append(CheckResult(proc.name, "pairing", "paired segments", "finding",
                               f"after shuffling one system inside groups of identical references (scores "
                               f"unchanged, pairing broken) the test still gives p = {fmt(p_as)}: it "
                               "ignores the pairing", test, rec_as, {"p_value": m_as}, as_.values, evidence=ev))
    else:
        res.append(CheckResult(proc.name, "pairing", "paired segments", "pass",
                               f"p = {fmt(p_ab)} paired, {fmt(p_as)} with the pairing broken", test, evidence=ev))
    if c.documented_layout != "segments":
        rec, out = call(proc, a.hyps, a.refs, args, hyps_b=b.hyps, layout="documented")
        if not out.ok or out.values["p_value"] > 0.05:
            res.append(CheckResult(
                proc.name, "pairing", "documented argument layout", "finding",
                f"with references laid out as documented ({c.documented_layout}: one list per "
                f"reference set) the test gives " + (f"p = {fmt(out.values['p_value'])}" if out.ok else
                f"{out.kind}: {out.detail}") + f" where the segment-major call gives {fmt(p_ab)}",
                test, rec, {"p_value": m_ab}, out.values, out.kind, evidence=ev))
        else:
            res.append(CheckResult(proc.name, "pairing", "documented argument layout", "pass",
                                   f"the documented layout gives p = {fmt(out.values['p_value'])}", test))
    return res


def calibration(proc, s: Settings) -> list[CheckResult]:
    """T datasets with exchangeable systems: p-values uniform, #{p <= alpha} ~ Bin(T, alpha)."""
    c = proc.claims
    rng = s.rng(6)
    nulls = D.cached(("null", s.seed, s.trials, s.null_segments, c.params),
                     lambda: [D.null_pair(rng, s.null_segments, c.params) for _ in range(s.trials)])
    ps = []
    args = None
    for t, (a, b) in enumerate(nulls):
        args = args_for(proc, s, resamples=s.calibration_resamples, seed=2000 + t)
        rec, out = call(proc, a.hyps, a.refs, args, hyps_b=b.hyps)
        if not out.ok:
            return [failed(proc, "null dataset", rec, out, "a dataset under the null")]
        ps.append(out.values["p_value"])
    n = args["resamples"]
    ps_arr = np.array(ps)
    d = T.ks_uniform(ps_arr)
    crit = T.ks_critical(len(ps)) + 1.0 / (n + 1)
    alpha = 0.05
    k = int(np.sum(ps_arr <= alpha))
    lo, hi = T.binom_interval(len(ps), alpha)
    ev = {"p_values": ps, "ks": d, "ks_critical": crit, "rejections": k, "trials": len(ps),
          "binomial_interval": [lo, hi], "alpha": alpha, "resamples": n,
          "histogram": np.histogram(ps_arr, bins=10, range=(0, 1))[0].tolist()}
    bad_ks, bad_rate = d > crit, not lo <= k <= hi
    test = (f"{len(ps)} datasets of {s.null_segments} segments, systems exchangeable by "
            f"construction, {n} resamples each: KS distance {d:.3f} (critical {crit:.3f} at "
            f"{T.LEVEL:g}); type-I errors at alpha={alpha:g}: {k} (binomial acceptance {lo}..{hi})")
    summary = (f"under the null the type-I error rate at alpha={alpha:g} is {k / len(ps):.3f} "
               f"and the p-values' KS distance from uniform is {d:.3f}")
    snippet_call = {"generator": "null", "trials": len(ps), "segments": s.null_segments,
                    "resamples": n, "seed": args["seed"]}
    return [CheckResult(proc.name, "calibration", "p-values under the null",
                        "finding" if (bad_ks or bad_rate) else "pass", summary, test,
                        snippet_call if (bad_ks or bad_rate) else None,
                        {"rejection_rate": alpha}, {"rejection_rate": k / len(ps)}, evidence=ev)]
