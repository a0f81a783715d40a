"""Checks of a paired significance test that need chosen inputs: what it resamples, pairing,
calibration under the null, and corpus sizes from 1 to ``Settings.largest`` segments.  Every
answer also goes to the ledger checks (``checks_answers``: robustness, float64 replay).
Each check is stated with its test in ``audit.stats.families``."""

from __future__ import annotations

import numpy as np

from . import data as D
from . import stat_tests as T
from .checks import (VARIES, Answer, CheckResult, Evaluation, Session, fmt, locate, shown_values, side, unseeded,
                     unusable, z_side)
from .models import paired_model

MODEL_TRIALS = 4000    # trials of the float64 models a p-value is located against
LARGE_MODEL_TRIALS = 1000


def check_paired(sess: Session) -> Evaluation:
    """Plan every call (in this order), then evaluate."""
    s, params = sess.settings, sess.proc.claims.params
    a, b = D.cached(("opposed", s.seed, params), lambda: D.opposed_pair(s.rng(4), params))
    ans = sess.ask("opposed systems", a, sess.args(), b)
    later = [pairing(sess), calibration(sess), sizes(sess)]
    return lambda: ([locate_p(sess, ans, "test over summed statistics", [s.seed, 8], MODEL_TRIALS)]
                    + [r for ev in later for r in ev()])


def locate_p(sess: Session, ans: Answer, check: str, seed, trials: int) -> CheckResult:
    """Binomial z of the p-value against float64 models over summed statistics and over
    sentence scores, each with ``trials`` trials."""
    proc = sess.proc
    v = ans.values
    if v is None:
        return unusable(proc, "sentence-scores", check, ans)
    a, b, c = ans.corpus, ans.other, proc.claims
    p, n = v["p_value"], ans.rec["resamples"]
    models = {over: paired_model(a.stats, b.stats, a.sentence, b.sentence, c, trials, seed, over)
              for over in ("statistics", "sentence")}
    z = {k: T.z_score(p, m, np.hypot(T.proportion_sd(m, n), T.proportion_sd(m, trials))) for k, m in models.items()}
    ev = {"p_value": p, "model_statistics": models["statistics"], "model_sentence": models["sentence"],
          "z_statistics": z["statistics"], "z_sentence": z["sentence"], "trials": n, "segments": a.n,
          "corpus_difference": a.score(c.params) - b.score(c.params),
          "sentence_mean_difference": float(a.sentence.mean() - b.sentence.mean())}
    zs = (f"{z['statistics']:.1f}, {z['sentence']:.1f}" if not unseeded(proc) else
          f"summed statistics {z_side(z['statistics'])}, sentence scores {z_side(z['sentence'])}")
    test = (f"{a.n} segments: binomial z of the p-value against float64 models ({trials} trials) over "
            f"summed statistics (p={models['statistics']:.4f}) and over sentence scores "
            f"(p={models['sentence']:.4f}); |z| > {T.Z:g} (z: {zs})")
    what = f"the p-value {fmt(p)} ({a.n} segments)"
    if unseeded(proc):  # where it lies, not its digits (they change every run)
        what = f"the p-value ({a.n} segments; unseeded: located, not reported)"
        ev = {k: v for k, v in ev.items() if k not in ("p_value", "z_statistics", "z_sentence")}
    return locate(proc, check, z["statistics"], z["sentence"], test, ans, {"p_value": models["statistics"]},
                  what, f"model p = {fmt(models['sentence'])}", ev,
                  f": corpus chrF differs by {ev['corpus_difference']:.2f} points, the mean sentence score by "
                  f"{ev['sentence_mean_difference']:.2f}")


def pairing(sess: Session) -> Evaluation:
    proc, s = sess.proc, sess.settings
    c = proc.claims
    a, b, shuffled = D.cached(("pairing", s.seed, c.params), lambda: D.pairing_corpus(s.rng(5), c.params))
    args = sess.args()
    ab = sess.ask("pairing corpus", a, args, b)
    as_ = sess.ask("pairing corpus", a, args, shuffled)
    sa = sess.ask("pairing corpus", shuffled, args, a)
    doc = (sess.ask("documented argument layout", a, args, b, layout="documented")
           if c.documented_layout != "segments" else None)
    return lambda: _pairing(sess, (a, b, shuffled), ab, as_, sa, doc)


def _pairing(sess: Session, corpora, ab: Answer, as_: Answer, sa: Answer, doc) -> list[CheckResult]:
    proc, s, c = sess.proc, sess.settings, sess.proc.claims
    a, b, shuffled = corpora
    args = ab.rec
    n = args["resamples"]
    m_ab = paired_model(a.stats, b.stats, a.sentence, b.sentence, c, MODEL_TRIALS, [s.seed, 9], "statistics")
    m_as = paired_model(a.stats, shuffled.stats, a.sentence, shuffled.sentence, c, MODEL_TRIALS, [s.seed, 9], "statistics")
    p = {k: (x.values or {}).get("p_value") for k, x in (("ab", ab), ("as", as_), ("sa", sa))}
    ev = {"p_paired": p["ab"], "p_shuffled": p["as"], "p_swapped": p["sa"], "model_paired": m_ab,
          "model_shuffled": m_as, "trials": n}
    varies = unseeded(proc)
    if varies:  # its p-values change every run: each is shown by the side of 0.05 its check decided on
        ev = {k: v for k, v in ev.items() if not k.startswith("p_")}
    show = (lambda x: f"p {side(x)}") if varies else (lambda x: f"p = {fmt(x)}")  # noqa: E731
    if not (m_ab <= 0.01 and m_as >= 0.15):
        return [CheckResult(proc.name, "pairing", "pairing corpus", "inconclusive",
                            f"the pairing corpus lacks its design (model p {m_ab:.3f} / {m_as:.3f})", evidence=ev)]
    res = []
    if p["as"] is None or p["sa"] is None:
        res.append(unusable(proc, "pairing", "systems swapped", as_ if p["as"] is None else sa))
    else:
        sd = np.hypot(T.proportion_sd(p["as"], n), T.proportion_sd(p["sa"], n))
        z_swap = T.z_score(p["as"], p["sa"], sd)
        swap_test = (f"p(A, B) = {fmt(p['as'])} vs p(B, A) = {fmt(p['sa'])}: two-proportion |z| > {T.Z:g} "
                     f"(z = {z_swap:.1f})") if not varies else \
            f"p(A, B) vs p(B, A): two-proportion |z| > {T.Z:g} ({z_side(z_swap)})"
        res.append(CheckResult(proc.name, "pairing", "systems swapped", "finding", f"swapping the two systems "
                               f"changes the p-value from {fmt(p['as'])} to {fmt(p['sa'])}" if not varies else
                               "swapping the two systems changes the p-value beyond Monte Carlo error",
                               swap_test, sa.rec, {"p_value": p["as"]} if not varies else None,
                               sa.out.values if not varies else None, evidence=ev) if z_swap > T.Z else
                   CheckResult(proc.name, "pairing", "systems swapped", "pass",
                               "the p-value does not depend on the order of the systems", swap_test, evidence=ev))
    test = (f"B is A with one character changed per segment (paired model p = {m_ab:.4f}); B "
            f"shuffled inside groups of identical references keeps its scores but breaks the "
            f"pairing (model p = {m_as:.3f}): the procedure's p must be <= 0.05 before and > 0.05 after")
    if p["ab"] is None or p["as"] is None:
        res.append(unusable(proc, "pairing", "paired segments", ab if p["ab"] is None else as_))
    elif p["ab"] > 0.05:
        res.append(CheckResult(proc.name, "pairing", "paired segments", "finding",
                               f"a degradation of every segment gets {show(p['ab'])}: segment i of one system "
                               "is not compared with segment i of the other", test, ab.rec,
                               {"p_value": m_ab}, shown_values(ab, varies), evidence=ev))
    elif p["as"] <= 0.05:
        res.append(CheckResult(proc.name, "pairing", "paired segments", "finding",
                               f"after shuffling one system inside groups of identical references (scores "
                               f"unchanged, pairing broken) the test still gives {show(p['as'])}: it "
                               "ignores the pairing", test, as_.rec, {"p_value": m_as}, shown_values(as_, varies), evidence=ev))
    else:
        res.append(CheckResult(proc.name, "pairing", "paired segments", "pass",
                               f"{show(p['ab'])} paired, {show(p['as'])} with the pairing broken", test, evidence=ev))
    if doc is not None:
        got = doc.values
        if got is None or got["p_value"] > 0.05:
            res.append(CheckResult(
                proc.name, "pairing", "documented argument layout", "finding",
                f"with references laid out as documented ({c.documented_layout}: one list per "
                f"reference set) the test gives " + (show(got["p_value"]) if got else
                f"{doc.out.kind}: {doc.out.detail}") + " where the segment-major call gives "
                + (show(p["ab"]) if p["ab"] is not None else "no p-value"),
                test, doc.rec, {"p_value": m_ab}, shown_values(doc, varies), doc.out.kind, evidence=ev))
        else:
            res.append(CheckResult(proc.name, "pairing", "documented argument layout", "pass",
                                   f"the documented layout gives {show(got['p_value'])}", test))
    return res


def _nulls(s, params):
    """The calibration datasets, concatenated: dataset t is segments t*m..(t+1)*m."""
    return D.cached(("null", s.seed, s.trials, s.null_segments, params),
                    lambda: D.null_pairs(s.rng(6), s.trials, s.null_segments, params))


def calibration(sess: Session) -> Evaluation:
    """T datasets with exchangeable systems: p-values uniform, #{p <= alpha} ~ Bin(T, alpha)."""
    s = sess.settings
    a_all, b_all = _nulls(s, sess.proc.claims.params)
    m = s.null_segments
    asked = [sess.ask("dataset under the null", a_all.take(range(t * m, (t + 1) * m)),
                      sess.args(resamples=s.calibration_resamples, seed=2000 + t),
                      b_all.take(range(t * m, (t + 1) * m))) for t in range(s.trials)]
    return lambda: _calibration(sess, asked)


def _calibration(sess: Session, asked: list[Answer]) -> list[CheckResult]:
    proc, s = sess.proc, sess.settings
    m = s.null_segments
    ps = [a.values["p_value"] for a in asked if a.values is not None]
    args = asked[-1].rec
    check = "p-values under the null"
    if len(ps) < s.trials / 2:
        return [CheckResult(proc.name, "calibration", check, "inconclusive",
                            f"only {len(ps)} of {s.trials} null datasets got a usable p-value (see robustness)")]
    n = args["resamples"]
    ps_arr = np.array(ps)
    d = T.ks_uniform(ps_arr)
    crit = T.ks_critical(len(ps)) + 1.0 / (n + 1)
    alpha = 0.05
    k = int(np.sum(ps_arr <= alpha))
    lo, hi = T.binom_interval(len(ps), alpha)
    ev = {"p_values": ps, "ks": d, "ks_critical": crit, "rejections": k, "trials": len(ps),
          "binomial_interval": [lo, hi], "alpha": alpha, "resamples": n,
          "histogram": np.histogram(np.clip(ps_arr, 0, 1), bins=10, range=(0, 1))[0].tolist()}
    bad = d > crit or not lo <= k <= hi
    test = (f"{len(ps)} datasets of {m} segments, systems exchangeable by construction, {n} resamples "
            f"each: KS distance {d:.3f} (critical {crit:.3f} at {T.LEVEL:g}); type-I errors at "
            f"alpha={alpha:g}: {k} (binomial acceptance {lo}..{hi})")
    summary = (f"under the null the type-I error rate at alpha={alpha:g} is {k / len(ps):.3f} "
               f"and the p-values' KS distance from uniform is {d:.3f}")
    actual = {"rejection_rate": k / len(ps)}
    if unseeded(proc):  # the p-values change every run: each statistic by the side of its bound (no histogram)
        ks = "within" if d <= crit else "beyond"
        ks_what = f"the p-values' KS distance from uniform is {ks} its critical value {crit:.3f}"
        rate = "inside" if lo <= k <= hi else "outside"
        rate_what = f"the type-I errors at alpha={alpha:g} are {rate} the binomial acceptance {lo}..{hi}"
        test = (f"{len(ps)} datasets of {m} segments, systems exchangeable by construction, {n} resamples "
                f"each: {ks_what} (at {T.LEVEL:g}); {rate_what}")
        summary = f"under the null {rate_what} and {ks_what}"
        ev = {k_: v for k_, v in ev.items() if k_ not in ("p_values", "ks", "rejections", "histogram")}
        actual = {"rejection_rate": VARIES}
    snippet_call = {"generator": "null", "trials": len(ps), "segments": m, "resamples": n, "seed": args["seed"]}
    return [CheckResult(proc.name, "calibration", check, "finding" if bad else "pass", summary, test,
                        snippet_call if bad else None, {"rejection_rate": alpha}, actual, evidence=ev)]


def sizes(sess: Session) -> Evaluation:
    """Per size, two calls: systems exchangeable by construction (a correct p-value is
    anywhere in (0, 1]; a too-small standard error gives p ~ 0) and B = A with one character
    changed per segment (significant at any size >= ~10; a too-large one gives p ~ 1).
    Sizes >= 20 are located against the float64 model; every answer is replayed."""
    proc, s = sess.proc, sess.settings
    params = proc.claims.params
    a, b, worse = D.size_corpora(s, params)
    asked = [(n, label, sess.ask(f"{n} segments, {label}", a.take(range(n)), sess.args(resamples=s.resamples_at(n)),
                                 other.take(range(n))))
             for n in s.sizes() for label, other in (("exchangeable systems", b), ("B degraded", worse))]
    return lambda: [locate_p(sess, ans, f"p at {n} segments, {label}", [s.seed, 25, n],
                             MODEL_TRIALS if n < s.large else LARGE_MODEL_TRIALS)
                    for n, label, ans in asked if n >= 20]
