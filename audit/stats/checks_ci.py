"""Checks of a confidence-interval procedure that need chosen inputs: what is resampled
(Monte Carlo location of the bounds against float64 models), coverage, and corpus sizes
from 1 to ``Settings.largest`` segments.  Every answer also goes to the ledger checks
(``checks_answers``: point estimate, exact containment, float64 replay).  Each check is
stated with its test in ``audit.stats.families``."""

from __future__ import annotations

import numpy as np

from . import data as D
from . import stat_tests as T
from .checks import Answer, CheckResult, Evaluation, Session, locate, unusable
from .models import ci_scores
from .procedures import DRAWS, interval_from

_REPLICATES: dict = {}


def check_ci(sess: Session) -> Evaluation:
    """Plan every call (in this order), then evaluate."""
    s, params = sess.settings, sess.proc.claims.params
    corpus = D.cached(("skewed", s.seed, 60, params), lambda: D.skewed(s.rng(1), 60, params))
    ans = sess.ask("skewed corpus", corpus, sess.args())
    later = [coverage(sess), one_segment_corpora(sess), sizes(sess)]

    def evaluate() -> list[CheckResult]:
        first = locate_interval(sess, ans, "interval over summed statistics", ("skewed", s.seed))
        if first.status != "inconclusive" and "mc_sd" in first.evidence:
            sess.mc_sd = (first.evidence["mc_sd"], ans.rec["resamples"])
        return [first] + [r for ev in later for r in ev()]
    return evaluate


def _replicate_scores(key, corpus, params, resamples: int, seeds, over: str) -> list[np.ndarray]:
    """Resampled scores of fresh numpy-choice draws (the bounds of any construction and alpha
    come from these; several procedures share them)."""
    full = (key, resamples, over, params)
    got = _REPLICATES.get(full)
    if got is None:   # (two procedures audited at once may both compute it: same values)
        if len(_REPLICATES) > 64:
            _REPLICATES.clear()
        got = _REPLICATES[full] = [ci_scores(corpus.stats, corpus.sentence, params,
                                             DRAWS["numpy-choice"](sd, corpus.n, resamples), over)
                                   for sd in seeds]
    return got


def locate_interval(sess: Session, ans: Answer, check: str, key) -> CheckResult:
    """Each bound's z-score against ``replicates`` float64 replicates of the claimed
    construction over summed statistics and over sentence scores, on the same corpus."""
    proc, s = sess.proc, sess.settings
    v = ans.values
    if v is None:
        return unusable(proc, "sentence-scores", check, ans)
    c, rec = proc.claims, ans.rec
    seeds = [[s.seed, 7, ans.corpus.n, k] for k in range(s.replicates)]
    models = {}
    for over in ("statistics", "sentence"):
        reps = np.array([interval_from(x, rec["alpha"], c.interval) for x in
                         _replicate_scores(key, ans.corpus, c.params, rec["resamples"], seeds, over)])
        models[over] = (reps.mean(axis=0), np.maximum(reps.std(axis=0, ddof=1), 1e-12))
    got = np.sort([v["low"], v["high"]])
    z = {k: float(np.max(np.abs(got - m) / sd)) for k, (m, sd) in models.items()}
    (ms, sds), (mt, sdt) = models["statistics"], models["sentence"]
    separation = float(np.min(np.abs(ms - mt) / np.maximum(sds, sdt)))
    ev = {"z_statistics": z["statistics"], "z_sentence": z["sentence"], "separation_sd": separation,
          "model_statistics": ms.tolist(), "model_sentence": mt.tolist(), "mc_sd": float(max(sds)),
          "replicates": s.replicates, "segments": ans.corpus.n}
    test = (f"{ans.corpus.n} segments, {rec['resamples']} resamples: |z| > {T.Z:g} against {s.replicates} "
            f"float64 replicates of each model (models {separation:.0f} SD apart; z to statistics "
            f"{z['statistics']:.1f}, to sentence scores {z['sentence']:.1f})")
    return locate(proc, check, z["statistics"], z["sentence"], test, ans,
                  {"low": float(ms[0]), "high": float(ms[1])},
                  f"the interval [{v['low']:.6g}, {v['high']:.6g}] ({ans.corpus.n} segments)",
                  f"model [{mt[0]:.6g}, {mt[1]:.6g}]", ev)


def one_segment_corpora(sess: Session) -> Evaluation:
    """Single segments of the coverage pool: every resample is the corpus itself, so any
    interval must contain its estimate exactly (the containment check reads these)."""
    s, params = sess.settings, sess.proc.claims.params
    pool = D.cached(("pool", s.seed, s.pool, params), lambda: D.skewed(s.rng(2), s.pool, params))
    for i in s.rng(22).choice(s.pool, size=min(s.one_segment_corpora, s.pool), replace=False).tolist():
        sess.ask("one-segment corpus", pool.take([i]), sess.args(resamples=200))
    return lambda: []


def sizes(sess: Session) -> Evaluation:
    """One corpus per size (prefixes of system A of the paired tests' size corpus: ``largest``
    short segments, cheap for any procedure), fewer resamples at large sizes.  Sizes >= 20 are located against the float64
    models (a procedure that switches method above a size shows there); every answer is
    replayed and checked for its estimate and containment by the ledger checks."""
    s, params = sess.settings, sess.proc.claims.params
    big = D.size_corpora(s, params)[0]
    asked = [(n, sess.ask(f"{n} segments", big.take(range(n)), sess.args(resamples=s.resamples_at(n))))
             for n in s.sizes()]
    return lambda: [locate_interval(sess, ans, f"interval at {n} segments", ("sizes", s.seed, n))
                    for n, ans in asked if n >= 20]


def coverage(sess: Session) -> Evaluation:
    proc, s = sess.proc, sess.settings
    c = proc.claims
    params = c.params
    pool = D.cached(("pool", s.seed, s.pool, params), lambda: D.skewed(s.rng(2), s.pool, params))
    alphas = [c.alpha] + ([0.3] if "alpha" in c.accepts and c.alpha != 0.3 else [])
    rng = s.rng(3)
    draws = [rng.integers(0, s.pool, size=s.coverage_segments) for _ in range(s.trials)]
    asked = {alpha: [sess.ask("coverage corpus", pool.take(idx),
                              sess.args(resamples=s.coverage_resamples, alpha=alpha, seed=1000 + t))
                     for t, idx in enumerate(draws)] for alpha in alphas}
    return lambda: [_coverage(sess, pool.score(params), alpha, answers) for alpha, answers in asked.items()]


def _coverage(sess: Session, truth: float, alpha: float, answers: list[Answer]) -> CheckResult:
    proc, s = sess.proc, sess.settings
    got = [a.values for a in answers if a.values is not None]
    check = f"coverage at alpha={alpha:g}"
    if len(got) < len(answers) / 2:
        return CheckResult(proc.name, "calibration", check, "inconclusive",
                           f"only {len(got)} of {len(answers)} coverage corpora got a usable interval "
                           "(see robustness)")
    n_ok = len(got)
    covered = sum(v["low"] <= truth <= v["high"] for v in got)
    target = 1 - alpha
    lo_p, hi_p = max(0.0, target - 0.06), min(1.0, target + 0.06)
    low_tail = T.binom_cdf(covered, n_ok, lo_p)
    high_tail = 1.0 - T.binom_cdf(covered - 1, n_ok, hi_p) if hi_p < 1 else 1.0
    bad = min(low_tail, high_tail) <= T.LEVEL / 2
    cov = covered / n_ok
    last = answers[-1].rec
    ev = {"alpha": alpha, "covered": covered, "trials": n_ok, "coverage": cov, "truth": truth,
          "mean_width": float(np.mean([v["high"] - v["low"] for v in got])), "band": [lo_p, hi_p],
          "tails": [low_tail, high_tail]}
    test = (f"{n_ok} corpora of {s.coverage_segments} segments from a {s.pool}-segment pool "
            f"(corpus chrF {truth:.3f}); exact binomial tails against {lo_p:.2f} and "
            f"{hi_p:.2f}, level {T.LEVEL:g}")
    return CheckResult(
        proc.name, "calibration", check, "finding" if bad else "pass",
        f"the {100 * (1 - alpha):g}% interval covers the known corpus score in {covered} of "
        f"{n_ok} corpora ({100 * cov:.1f}%)", test,
        {"generator": "coverage", "trials": n_ok, "segments": s.coverage_segments, "pool": s.pool,
         "truth": truth, "resamples": last["resamples"], "alpha": alpha, "seed": last["seed"]} if bad else None,
        {"coverage": target}, {"coverage": cov}, evidence=ev)
