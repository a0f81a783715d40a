"""Robustness on edge cases of the resampling, identical systems, determinism for a fixed
seed, and the side-effect probe.  Every input here is deterministic and small, so a failure
is reported with the very input that caused it (already minimal).  A failed call is
reported by the ledger's robustness check (``checks_answers``); the checks here judge the
values."""

from __future__ import annotations

from . import data as D
from .checks import Answer, CheckResult, Evaluation, Session, Settings, fmt
from .side_effects import FORMS


def check_edges(proc, s: Settings) -> list[CheckResult]:
    """The edge checks alone, with the robustness of their answers (for tests and tools)."""
    from .checks_answers import robustness
    sess = Session(proc, s)
    try:
        res = edges(sess)()
        res += robustness(sess)
    except BaseException:
        sess.close(wait=False)
        raise
    sess.close()
    return res


def _normal(s: Settings, params) -> D.Corpus:
    return D.cached(("normal", s.seed, params), lambda: D.skewed(s.rng(1), 20, params))


def _reversed(c: D.Corpus, params) -> D.Corpus:
    """System B of a paired edge case: every hypothesis reversed word by word."""
    return D.make_corpus([" ".join(reversed(h.split())) or "x" for h in c.hyps], c.refs, params)


def edges(sess: Session) -> Evaluation:
    proc, s = sess.proc, sess.settings
    params = proc.claims.params
    paired = proc.kind == "paired"
    args, single = sess.args(resamples=200), sess.args(resamples=1)
    normal = _normal(s, params)
    cases = list(D.edge_cases(params).items()) + [(f"{single['resamples']} resample(s)", normal)]
    for name, c in cases:
        sess.ask(name, c, single if c is normal else args, _reversed(c, params) if paired else None)
    later = []
    if paired:
        ident = sess.ask("identical systems", normal, args, normal)
        later.append(lambda: [_identical(sess, ident)])
    if "seed" in proc.claims.accepts:
        # a paired input whose p-value is mid-range (B shuffled inside groups), so that an
        # ignored seed shows as a different p-value
        a, _, shuffled = D.cached(("pairing", s.seed, params), lambda: D.pairing_corpus(s.rng(5), params))
        for seed in (0, 1234):
            c, other = (a, shuffled) if paired else (normal, None)
            name, det = f"determinism (seed {seed})", sess.args(resamples=1000, seed=seed)
            twice = [sess.ask(name, c, det, other, replay=False) for _ in range(2)]
            later.append(lambda name=name, twice=twice: _deterministic(sess, name, *twice))
    later.append(side_effect_probe(sess))
    return lambda: [r for ev in later for r in ev()]


def _identical(sess: Session, ans: Answer) -> CheckResult:
    proc, name = sess.proc, "identical systems"
    v = ans.values
    if v is None:
        return CheckResult(proc.name, "robustness", name, "inconclusive", "no usable p-value for identical systems")
    if v["p_value"] < 1 - 1e-9:
        p = v["p_value"]
        return CheckResult(proc.name, "robustness", name, "finding",
                           f"a system compared with itself gets p = {fmt(p)}"
                           + (" < 0.05: 'significantly different'" if p < 0.05 else ""),
                           "identical systems tie in every relabelling or resample: p must be 1",
                           ans.rec, {"p_value": 1.0}, ans.out.values)
    return CheckResult(proc.name, "robustness", name, "pass", "a system compared with itself gets p = 1")


def _deterministic(sess: Session, name: str, first: Answer, second: Answer) -> list[CheckResult]:
    if first.out.values is None or second.out.values is None:
        return []   # the failure is the ledger's robustness finding
    seed = first.rec["seed"]
    if first.out.values != second.out.values:
        return [CheckResult(sess.proc.name, "robustness", name, "finding",
                            f"two calls with seed {seed} give different results (values in the JSON report)",
                            "a fixed seed must reproduce the result exactly", first.rec,
                            first.out.values, second.out.values)]
    return [CheckResult(sess.proc.name, "robustness", name, "pass", f"seed {seed} reproduces the result")]


def side_effect_probe(sess: Session) -> Evaluation:
    """Call the procedure where it runs, on Python lists and on numpy arrays, and compare the
    arguments and both global random generators before and after (``audit.stats.side_effects``).
    Not for external programs: they get JSON, nothing of the caller's can change."""
    proc, s = sess.proc, sess.settings
    a, b = D.cached(("probe", s.seed, proc.claims.params), lambda: D.probe_corpus(s.rng(26), proc.claims.params))
    other = b if proc.kind == "paired" else None
    asked = [sess.probe(form, a, sess.args(resamples=200), other) for form in FORMS]
    return lambda: [_side_effects(sess, ans) for ans in asked if ans is not None]


def _side_effects(sess: Session, ans: Answer) -> CheckResult:
    proc, out, changes = sess.proc, ans.out, ans.changes
    check = "Python lists" if ans.rec["form"] == "lists" else "numpy arrays"
    test = ("arguments deep-copied before the call and compared after; numpy.random's global state and "
            "Python's random state seeded before and compared after: any change is a finding")
    if changes:
        return CheckResult(proc.name, "side-effects", check, "finding",
                           f"a call on {check} changed its caller: " + "; ".join(changes), test,
                           ans.rec, {"changes": []}, {"changes": changes}, out.kind,
                           evidence={"changes": changes, "form": ans.rec["form"]})
    note = "" if out.kind == "value" else f" (the call itself: {out.kind}: {out.detail[:120]})"
    return CheckResult(proc.name, "side-effects", check, "pass",
                       f"a call on {check} left its arguments and both global generators unchanged{note}",
                       test, evidence={"form": ans.rec["form"], "outcome": out.kind})
