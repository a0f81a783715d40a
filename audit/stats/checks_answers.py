"""Checks that hold for every answer a procedure gave (the session's ledger), whatever the
input: each answer is a finite, valid result (``robustness``); an interval's point estimate
is corpus chrF from summed statistics (``ci-point-estimate``) and lies in its own interval,
exactly (``ci-contains-estimate``); and, when the procedure's random draw is known, its
answer is the float64 replay of its claimed construction on that very draw.  A difference
from the replay is ``low-precision`` only when it is rounding-sized on every answer (the
float64 replay removes it); a larger one is a ``construction`` error, or ``sentence-scores``
when the replay over sentence scores reproduces it.
"""

from __future__ import annotations

import numpy as np

from reference_impl.conventions import FOLLOWED
from reference_impl.conventions import HYPOTHESIS_NGRAMS_WHERE_REFERENCE_HAS_NONE as CONVENTION

from ..impact import significance as sig
from . import stat_tests as T
from .checks import VARIES, Answer, CheckResult, Session, fmt, unseeded
from .models import Null, ci_replay, paired_replay
from .procedures import DRAWS, VALUE

EXACT = 1e-9           # float64 noise of the same arithmetic done in another order
IDENTIFY_TOL = 1e-3    # a known draw "is" the procedure's if it reproduces its bounds this closely
VERIFY = 20            # exclusions verified against a correct interval (2000 resamples each)


def check_answers(sess: Session) -> list[CheckResult]:
    sess.draw = draw_of(sess)
    res = robustness(sess)
    if sess.proc.kind == "ci":
        res += point_estimate(sess) + containment(sess)
    return res + replay(sess)


# --------------------------------------------------------------------------- robustness


def robustness(sess: Session) -> list[CheckResult]:
    """One finding per site where a call crashed, raised, hung or answered invalid values,
    the site with the smallest failing input first (it is the family's repro)."""
    name = sess.proc.name
    sites: dict[str, list[Answer]] = {}
    calls: dict[str, int] = {}
    for a in sess.answers:
        if a.robust:
            calls[a.site] = calls.get(a.site, 0) + 1
            if a.out.kind != VALUE:
                sites.setdefault(a.site, []).append(a)
    out = []
    for site, bad in sorted(sites.items(), key=lambda kv: kv[1][0].corpus.n):
        a = bad[0]
        many = f" ({len(bad)} of {calls[site]} calls)" if calls[site] > 1 else ""
        out.append(CheckResult(name, "robustness", site, "finding", f"{a.out.kind} on {site}{many}: {a.out.detail}",
                               "every call must return finite, ordered values in range", a.rec,
                               actual=a.out.values, outcome=a.out.kind,
                               evidence={"failed": len(bad), "calls": calls[site]}))
    if not out:
        out.append(CheckResult(name, "robustness", "every answer", "pass",
                               f"all {sum(calls.values())} calls returned finite, valid values",
                               evidence={"calls": sum(calls.values())}))
    return out


# --------------------------------------------------------------------------- the point estimate


def _exact(sess: Session, a: Answer) -> float:
    return a.corpus.score(sess.proc.claims.params)


def point_estimate(sess: Session) -> list[CheckResult]:
    name = sess.proc.name
    wrong, rounded, m = [], [], 0
    for a in sess.answers:
        v = a.values
        if v is None:
            continue
        m += 1
        err = abs(v["score"] - _exact(sess, a))
        if err > EXACT:
            (rounded if T.rounding(err, v["score"]) else wrong).append((a, err))
    reading = FOLLOWED[sess.proc.claims.params.definition]
    test = (f"|estimate - corpus chrF from summed statistics| > {EXACT:g} on any answer ({CONVENTION.note(reading)}: "
            f"the claimed definition's reading of {CONVENTION.id}); a difference within float32 rounding "
            f"({T.ROUNDING_ULPS} ulps) is low-precision")
    if wrong:
        a, err = _repro(wrong)
        other = _other_reading(sess, wrong, reading)
        why = (f": it is the corpus score with {CONVENTION.note(other)} ({CONVENTION.id}), where the claimed "
               f"definition's reading is {CONVENTION.words(reading)}") if other else ""
        res = [CheckResult(name, "ci-point-estimate", "point estimate", "finding",
                           f"the point estimate {fmt(a.values['score'])} is not the corpus score from summed "
                           f"statistics {fmt(_exact(sess, a))} (on {a.site}; {len(wrong)} of {m} answers){why}",
                           test, a.rec, {"score": _exact(sess, a)}, a.out.values,
                           evidence={"wrong": len(wrong), "answers": m, "max_error": max(e for _, e in wrong),
                                     "rounding_sized": len(rounded), "sites": _sites(wrong),
                                     **({"convention": CONVENTION.id, "reading": other} if other else {})})]
    else:
        res = [CheckResult(name, "ci-point-estimate", "point estimate", "pass",
                           f"the point estimate is the corpus score on all {m} answers", test)]
    if rounded and not wrong:
        a, _ = _repro(rounded)
        err = max(e for _, e in rounded)
        res.append(CheckResult(name, "low-precision", "point estimate in float64", "finding",
                               f"the point estimate differs from the float64 corpus score by up to {err:.3g} "
                               f"({err / T.ulp32(a.values['score']):.2g} float32 ulps) on {len(rounded)} of {m} "
                               "answers: rounding, which float64 arithmetic removes", test, a.rec,
                               {"score": _exact(sess, a)}, a.out.values,
                               evidence={"answers": m, "rounded": len(rounded), "max_error": err}))
    return res


def _other_reading(sess: Session, wrong: list, reading: str):
    """The other reading of the hypothesis-n-grams convention when every wrong estimate is
    the corpus score under it (None: not so)."""
    from reference_impl import TextProfile
    from reference_impl.conventions import hypothesis_count

    params = sess.proc.claims.params
    other = next(r for r, _ in CONVENTION.readings if r != reading)
    for a, _ in wrong:
        st = a.corpus.stats.copy()
        for i, h in enumerate(a.corpus.hyps):
            for o, total in enumerate(TextProfile(h, params).totals):
                st[i, o, 0] = hypothesis_count(total, int(st[i, o, 1]), other)
        if abs(a.values["score"] - sig.corpus_score(st, params)) > EXACT:
            return None
    return other


def _repro(rows):
    """The row whose input is the smallest corpus (the largest error among those): a repro
    that fits in a report, for a finding that may also come from 3000 segments."""
    return min(rows, key=lambda r: (r[0].corpus.n, -r[1]))


def _sites(rows) -> dict:
    out: dict[str, int] = {}
    for a, *_ in rows:
        out[a.site] = out.get(a.site, 0) + 1
    return out


# --------------------------------------------------------------------------- containment


def _miss_chance(scores: np.ndarray, x: float, resamples: int, alpha: float) -> float:
    """An upper bound on the chance that a correct percentile interval of ``resamples``
    resamples excludes ``x``: its lower bound is <= x once at least j + 2 resamples score
    <= x (j = floor((R - 1) alpha / 2), numpy's linear interpolation), and symmetrically
    above.  The chances of <= x and >= x come from float64 resamples, lowered by three
    standard errors."""
    j = int(np.floor((resamples - 1) * alpha / 2))
    miss = 0.0
    for frac in (float(np.mean(scores <= x)), float(np.mean(scores >= x))):
        if frac < 1.0:
            frac = max(0.0, frac - 3 * np.sqrt(frac * (1 - frac) / scores.size) - 1.0 / scores.size)
        miss += T.binom_cdf(j + 1, resamples, frac)
    return min(1.0, miss)


def containment(sess: Session) -> list[CheckResult]:
    """low <= estimate <= high, exactly (no tolerance).  An exclusion is a finding where a
    correct interval of the call's resamples contains the estimate but with a chance below
    1e-6 (every resample is the corpus itself, as on one segment; or the estimate well inside
    the float64 bootstrap distribution); elsewhere it is inconclusive."""
    name, params = sess.proc.name, sess.proc.claims.params
    found, unsure, m, excluded = [], [], 0, 0
    for a in sess.answers:
        v = a.values
        if v is None:
            continue
        m += 1
        if v["low"] <= v["score"] <= v["high"]:
            continue
        excluded += 1
        if len(found) + len(unsure) >= VERIFY:
            continue
        scores = sig.bootstrap_scores(a.corpus.stats, params, resamples=2000, seed=12345)
        degenerate = bool(np.all(scores == v["score"]))
        miss = 0.0 if degenerate else _miss_chance(scores, v["score"], a.rec["resamples"], a.rec["alpha"])
        gap = max(v["low"] - v["score"], v["score"] - v["high"])
        (found if miss < 1e-6 else unsure).append((a, gap, degenerate, miss))
    test = ("low <= point estimate <= high, exact comparison; an exclusion counts where a correct interval of "
            "the call's resamples excludes the estimate with a chance below 1e-6 (every resample is the corpus, "
            "or the estimate well inside the float64 bootstrap distribution)")
    if not found:
        also = (f", except {excluded} where a correct interval of as many resamples may exclude it too (by up to "
                f"{max(g for _, g, *_ in unsure):.3g}; chance {unsure[0][3]:.2g} on {unsure[0][0].site}, "
                f"{unsure[0][0].rec['resamples']} resamples)") if unsure else ""
        return [CheckResult(name, "ci-contains-estimate", "estimate inside its interval", "pass",
                            f"all {m - excluded} of {m} intervals contain their point estimate (exact comparison)"
                            + also, test, evidence={"excluded": excluded, "answers": m})]
    a, gap, degenerate, miss = found[0]
    v = a.values
    side = f"below low by {gap:.3g}" if v["score"] < v["low"] else f"above high by {gap:.3g}"
    why = ("every resample is the corpus itself" if degenerate else
           f"a correct interval excludes it with a chance below {max(miss, 1e-300):.1g}")
    cause = ""
    if sess.draw and a.rec.get("seed") is not None and a.replay:
        lo, hi = ci_replay(a.corpus, sess.proc.claims, sess.draw, a.rec)
        if lo <= v["score"] <= hi:
            cause = (f"; the float64 replay of the same resamples gives [{fmt(lo)}, {fmt(hi)}], which contains it: "
                     "the exclusion is rounding (see low-precision)")
        else:
            cause = (f"; the claimed construction replayed in float64 on the same resamples, [{fmt(lo)}, {fmt(hi)}], "
                     "excludes it too")
    return [CheckResult(
        name, "ci-contains-estimate", "estimate inside its interval", "finding",
        f"the interval [{fmt(v['low'])}, {fmt(v['high'])}] excludes its own point estimate {fmt(v['score'])}: "
        f"{side} on {a.site} ({why}); {len(found)} of {m} intervals" + cause, test, a.rec,
        {"gap": 0.0}, dict(a.out.values, gap=gap),
        evidence={"gap": gap, "excluded": excluded, "verified": len(found), "answers": m,
                  "max_gap": max(g for _, g, *_ in found), "sites": _sites(found)})]


# --------------------------------------------------------------------------- the replay


def draw_of(sess: Session):
    """The procedure's draw: claimed, else identified (a known draw whose float64 replay
    reproduces the first answers closely), else None."""
    c = sess.proc.claims
    if c.draw in DRAWS:
        return c.draw
    usable = [a for a in sess.answers if a.replay and a.values is not None and a.rec.get("seed") is not None
              and a.corpus.n >= 20]
    if sess.proc.kind == "ci":
        usable = usable[:4]
        for name in DRAWS:
            if len(usable) >= 2 and all(_bounds_error(a.values, ci_replay(a.corpus, c, name, a.rec)) <= IDENTIFY_TOL
                                        for a in usable):
                return name
        return None
    # paired: p-values in the middle of their range (a chance match is ~1/sqrt(2 pi N p q) each)
    usable = [a for a in usable if 0.1 <= a.values["p_value"] <= 0.9][:5]
    if len(usable) >= 3 and all(_paired_kind(paired_replay(a, c), a.values["p_value"]) in ("exact", "rounding")
                                for a in usable):
        return "numpy-choice"
    return None


def _bounds_error(v: dict, replayed) -> float:
    """How far the bounds (in either order: their order is robustness's business) are from
    the replayed (low, high)."""
    got = sorted((v["low"], v["high"]))
    return max(abs(got[0] - replayed[0]), abs(got[1] - replayed[1]))


def _paired_kind(null: Null, p: float) -> str:
    """exact, rounding (the float32 rounding of the p-value, or counts that differ only where
    a resample ties the observed value to rounding) or other."""
    p64 = null.p
    err = abs(p - p64)
    if err <= 1e-12:
        return "exact"
    if T.rounding(err, p64) and err < 1 / (2 * (null.stat.size + 1)):
        return "rounding"
    trials = null.stat.size
    k = round(p * (trials + 1)) - 1
    on_grid = T.rounding(abs(p - (k + 1) / (trials + 1)), p)
    tol = T.ROUNDING_ULPS * T.ulp32(100.0) * max(1.0, abs(null.observed))
    if on_grid and abs(k - null.count()) <= null.near(tol):
        return "rounding"     # counts flipped only where a resample ties the observed value to rounding
    return "other"


def _classify(sess: Session, a: Answer):
    """(kind, error, replayed values) of one answer: exact, rounding, sentence, construction."""
    c, v = sess.proc.claims, a.values
    if sess.proc.kind == "ci":
        lo, hi = ci_replay(a.corpus, c, sess.draw, a.rec)
        err = _bounds_error(v, (lo, hi))
        ref = {"low": lo, "high": hi}
        if err <= EXACT:
            return "exact", err, ref
        if T.rounding(err, max(abs(lo), abs(hi))):
            return "rounding", err, ref
        slo, shi = ci_replay(a.corpus, c, sess.draw, a.rec, "sentence")
        serr = _bounds_error(v, (slo, shi))
        return ("sentence" if T.rounding(serr, max(abs(slo), abs(shi))) else "construction"), err, ref
    null = paired_replay(a, c)
    kind = _paired_kind(null, v["p_value"])
    ref = {"p_value": null.p}
    if kind != "other":
        return kind, abs(v["p_value"] - null.p), ref
    sp = paired_replay(a, c, "sentence").p
    return ("sentence" if abs(v["p_value"] - sp) <= 1e-12 else "construction"), abs(v["p_value"] - null.p), ref


def replay(sess: Session) -> list[CheckResult]:
    proc = sess.proc
    if sess.draw is None:
        return [fingerprint(sess)]
    rows = {"exact": [], "rounding": [], "sentence": [], "construction": []}
    for a in sess.answers:
        if a.replay and a.values is not None and a.rec.get("seed") is not None:
            kind, err, ref = _classify(sess, a)
            rows[kind].append((a, err, ref))
    m = sum(len(r) for r in rows.values())
    what = "bounds" if proc.kind == "ci" else "p-value"
    how = proc.claims.interval if proc.kind == "ci" else proc.claims.statistic
    claimed = proc.claims.draw == sess.draw
    test = (f"the same draw ({sess.draw}{'' if claimed else ', identified'}, the call's seed and resamples) "
            f"replayed in float64 with the claimed construction ({how}) over summed statistics: any difference "
            f"> {EXACT:g}; rounding-sized (<= {T.ROUNDING_ULPS} float32 ulps) on every answer: low-precision; "
            "larger: construction (sentence-scores when the replay over sentence scores gives it)")
    ev = {k: len(r) for k, r in rows.items()} | {"answers": m, "draw": sess.draw, "claimed_draw": claimed}
    out = []
    for kind, fam, text in (("construction", "construction",
                             f"the {what} are not the claimed construction ({how}) over summed statistics"),
                            ("sentence", "sentence-scores",
                             f"the {what} are exactly the claimed construction over sentence scores, not summed statistics")):
        if rows[kind]:
            a, err, ref = _repro(rows[kind])
            out.append(CheckResult(
                proc.name, fam, "float64 replay of its own draw", "finding",
                f"on its own resamples ({a.rec['resamples']}, seed {a.rec['seed']}) on {a.site}, {text}: "
                f"the procedure answers {_vals(a.out.values, ref)}, the float64 replay gives {_vals(ref, ref)} "
                f"(off by {err:.3g}); {len(rows[kind])} of {m} replayed answers",
                test, a.rec, ref, a.out.values, evidence=dict(ev, max_error=max(e for _, e, _ in rows[kind]),
                                                                sites=_sites(rows[kind]))))
    if rows["rounding"] and not rows["construction"]:
        a, _, ref = _repro(rows["rounding"])
        err = max(e for _, e, _ in rows["rounding"])
        ulps = max(e / T.ulp32(max(abs(x) for x in r.values())) for _, e, r in rows["rounding"])
        f32 = all(T.is_float32(x) for x in a.out.values.values())
        mc = sess.mc_sd
        out.append(CheckResult(
            proc.name, "low-precision", "float64 arithmetic", "finding",
            f"on its own resamples the {what} differ from the float64 replay by up to {err:.3g} "
            f"(at most {ulps:.2g} float32 ulps), on {len(rows['rounding'])} of {m} answers; the float64 "
            f"replay ({_vals(ref, ref)} on {a.site}) removes the difference: rounding"
            + (" (the values are float32 numbers)" if f32 else "")
            + (f"; for scale, the Monte Carlo SD of a bound at {mc[1]} resamples is {mc[0]:.3g}" if mc else ""),
            test, a.rec, ref, a.out.values, evidence=dict(ev, max_error=err, max_ulps=ulps, float64=ref, sites=_sites(rows["rounding"]))))
    if not out:
        out.append(CheckResult(proc.name, "low-precision", "float64 arithmetic", "pass",
                               f"all {m} replayed answers equal the float64 replay of their own draw", test, evidence=ev))
    return out


def _vals(d: dict, keys: dict) -> str:
    return ", ".join(f"{k} {fmt(d.get(k))}" for k in keys)


def fingerprint(sess: Session) -> CheckResult:
    """No known draw, so no replay: float32 *storage* still shows, as values that are all
    float32 numbers (a float64 result is one with probability ~2**-29), or p-values that are
    the float32 rounding of (k+1)/(N+1), which the float64 division removes."""
    proc = sess.proc
    answers = [a for a in sess.answers if a.values is not None]
    if proc.kind == "ci":
        values = [x for a in answers for x in (a.values["low"], a.values["high"]) if x != round(x)]
        n32 = sum(T.is_float32(x) for x in values)
        test = ("no known draw: all of >= 4 non-integer bounds being float32 numbers is a finding "
                "(chance for float64 arithmetic <= 2**-29 each)")
        ev = {"replayed": False, "values": len(values), "float32_values": n32}
        if len(values) >= 4 and n32 == len(values):
            a = answers[0]
            return CheckResult(proc.name, "low-precision", "float64 arithmetic", "finding",
                               f"all {n32} bounds returned are float32 numbers: the interval is computed or "
                               "stored in float32 (no float64 replay: the procedure's draw is unknown)",
                               test, a.rec, None, a.out.values, evidence=ev)
        return CheckResult(proc.name, "low-precision", "float64 arithmetic",
                           "pass" if len(values) >= 4 else "inconclusive",
                           f"{n32} of {len(values)} bounds are float32 numbers", test, evidence=ev)
    test = "no known draw: a p-value equal to float32(k/(N+1)) but not to the float64 k/(N+1) is a finding"
    for a in answers:
        p, n = a.values["p_value"], a.rec["resamples"]
        k = round(p * (n + 1))
        grid = k / (n + 1)
        if p != grid and T.is_float32(p) and not T.is_float32(grid) and float(np.float32(grid)) == p:
            return CheckResult(proc.name, "low-precision", "float64 arithmetic", "finding",
                               (f"p = {fmt(p)} is the float32 rounding of {k}/{n + 1}" if not unseeded(proc) else
                                "a p-value is the float32 rounding of k/(N+1)") + f" (on {a.site}); the float64 "
                               "division gives it exactly", test, a.rec, {"p_value": grid} if not unseeded(proc) else None,
                               a.out.values if not unseeded(proc) else {"p_value": VARIES}, evidence={"replayed": False})
    return CheckResult(proc.name, "low-precision", "float64 arithmetic", "pass",
                       "no known draw; no p-value is a float32 rounding of k/(N+1)", test,
                       evidence={"replayed": False})
