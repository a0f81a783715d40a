"""The report's suggested patches, verified, and THE one judge of a patch (``verdict``).

``verify_suggested(implementation, diff, before_findings, families=..., options=...,
candidates=...)`` runs on the path of ``validate-patch`` (``validate._judge``): the audit that
suggested the patch is the before side; the patched copy of the released package is audited
(called with the patch's opt-in keywords, ``options``) and the before repros are replayed on
it, in one process.  Then, each in its own process:

* each family's **issue repro** is replayed on the patched copy: the family's minimal repro,
  or else the first of ``candidates`` (the library record's inputs for that family) that
  diverges as the family before the patch; it *holds* when it scores the reference's value
  after the patch (the other families inert on it before and after);
* an opt-in patch (``options``) is replayed WITHOUT its keywords: every before repro of its
  opt-in families must score exactly as before (the default is unchanged);
* the library's own tests (``library_tests``): the patched module's doctests and chrF test
  files on the released package and on the copy, and the doctest examples the patch adds
  run against the released module (its regression test);
* the library's gates (``gates``): the formatter and linters its repository configures, on
  the patched file (and the released one);
* an opt-in patch whose keywords together give a named definition: the record's check of
  that claim (``equivalence``), run on the patched copy.

``verdict(validation, families)`` says "verified" only when every one of ``families`` is
fixed, none is introduced, each one's repro holds, the default is unchanged where the patch is
opt-in, none of the library's own tests breaks, every gate passes and the check (if any)
holds; otherwise the first reason it is not ("not checked: ..." when a gate could not run).
"""

from __future__ import annotations

import tempfile
from dataclasses import asdict
from pathlib import Path
from typing import Optional

from ..errors import UsageError
from .diffs import prepare_after
from .jobs import Job, run_all
from .library_tests import module_of
from .summary_shape import Expected
from .validate import FIXED, INTRODUCED, Target, Validation, _by_key, _judge, _repros

#: the report's verification budget: the regression cases, then this many examples per level
VERIFY_EXAMPLES = 20
#: two scores are the same (the default unchanged) within this, on the 0..100 scale
SAME = 1e-9


def _check(job) -> dict:
    rc, data, msg = job
    if rc != 0:
        raise UsageError(msg or f"a replay failed (exit {rc})")
    return data


def _issue_repros(before: dict, candidates: dict, families) -> dict:
    """family -> its candidate repros, the minimal repros first (sentence level first)."""
    out: dict = {}
    for fam in families:
        mine = [f for (impl, fam2), f in before.items() if fam2 == fam]
        reps = [{"implementation": f["implementation"], "family": fam, "level": f["level"], "inputs": f["repro"],
                 "claims": f["claims"], "minimal": True, "before": f["actual"],
                 "before_raw": (f.get("minimal") or {}).get("actual_raw")}
                for f in mine]
        impl, claims = (mine[0]["implementation"], mine[0]["claims"]) if mine else (None, None)
        for level, inputs in candidates.get(fam, ()):
            if impl is not None:
                reps.append({"implementation": impl, "family": fam, "level": level, "inputs": inputs,
                             "claims": claims, "minimal": False})
        out[fam] = reps
    return out


def expected_summary(implementation: str, families, before_findings: list[dict], options: Optional[dict],
                     candidates: Optional[dict], gates: bool = False, check: bool = False) -> Expected:
    """What the summary of ``verify_suggested(implementation, diff, before_findings,
    families=families, options=options, candidates=candidates)`` must say of itself
    (``summary_shape.valid``: what the verification cache may give back)."""
    before = _by_key([f for f in before_findings if f.get("implementation") == implementation])
    tried = _issue_repros(before, candidates or {}, list(families))
    return Expected(list(families), dict(options or {}),
                    {fam: [(r["level"], r["inputs"], r["minimal"]) for r in reps] for fam, reps in tried.items()},
                    gates, check)


def verify_suggested(implementation: str, diff: str, before_findings: list[dict], *, families=None,
                     options: Optional[dict] = None, default_kept=None, candidates: Optional[dict] = None,
                     seed: int = 0,
                     max_examples: int = VERIFY_EXAMPLES, timeout: float = 600.0,
                     library_tests: bool = True, gates=None, check: Optional[tuple] = None) -> Validation:
    """Judge a patch the report suggests for ``implementation`` (see the module doc).
    ``before_findings``: ``Finding.to_dict()`` records of the audit that suggested it;
    ``families``: those the patch is meant to fix (default: every family it has a finding of);
    ``options``: the opt-in keywords the patched copy is called with; ``default_kept``: the
    families whose patch is opt-in (their repros must score as before without the keywords;
    default: all of ``families`` when there are ``options``); ``candidates``: family ->
    [(level, inputs)] further issue repros to try.  Never raises for a bad patch: the reason
    is ``error``."""
    from ..settings.options import packaged_cases

    cases = packaged_cases()  # chrf-audit's curated cases, from any directory
    target = Target(impl=implementation, seed=seed, max_examples=max_examples,
                    cases=str(cases.resolve()) if cases is not None else None)
    before = _by_key([f for f in before_findings if f.get("implementation") == implementation])
    families = list(dict.fromkeys(families or [fam for (_, fam) in before]))
    options = dict(options or {})
    result = Validation(implementation=implementation, patch="suggested patch", source=None, files=[],
                        before_versions={}, after_versions={}, options=options, gates_wanted=gates is not None)
    request = {"mode": "audit", **asdict(target)}
    job_kw = {"with_cwd": False, "timeout": timeout}
    tried = _issue_repros(before, candidates or {}, families)
    checks = [r for reps in tried.values() for r in reps]
    try:
        with tempfile.TemporaryDirectory(prefix="chrf-audit-verify-") as tmp:
            work = Path(tmp)
            after_root, tops, result.files = prepare_after(target, diff=diff, diff_name="the suggested patch",
                                                           source=None, dest=work / "site", with_cwd=False)
            after_req = dict(request, expect_root=str(after_root), tops=tops, backend_options=options)
            job = Job(dict(after_req, mode="audit+replay", repros=_repros(before.values()), checks=checks),
                      work, "after", after_root, **job_kw)
            try:
                rc, data, msg = job.wait()
            finally:
                job.kill()
            if rc != 0:
                result.error = msg or f"the audit after the patch failed (exit {rc})"
                return result
            result.after_versions = {a["implementation"]: a["version"] for a in data["adapters"]}
            replays = {"after": {(r["implementation"], r["family"]): r for r in data["replays"]},
                       "after_side": (after_req, after_root)}
            result.families = _judge(before, _by_key(data["findings"]), replays, before_side=(request, None),
                                     work=work, job_kw=job_kw)
            extra = [r for r in checks if not r["minimal"]]
            jobs, names = [], []
            if extra:
                jobs.append((dict(request, mode="replay", repros=[], checks=extra), work, "issue-before", None))
                names.append("before")
            kept = set(families if default_kept is None else default_kept) if options else set()
            opt_in = [f for f in before.values() if f["family"] in kept]
            if opt_in:
                plain = dict(after_req, backend_options={}, mode="replay", repros=[], checks=_repros(opt_in))
                jobs.append((plain, work, "default-after", after_root))
                names.append("default")
            ran = dict(zip(names, (_check(j) for j in run_all(jobs, **job_kw)))) if jobs else {}
            result.repro_checks = _choose(tried, data.get("checks") or [], (ran.get("before") or {}).get("checks") or [])
            if "default" in ran:
                changed = sorted({f["family"] for f, r in zip(opt_in, ran["default"]["checks"])
                                  if r["outcome"] != f["outcome"] or (r["actual"] is not None and f["actual"] is not None
                                                                      and abs(r["actual"] - f["actual"]) > SAME)})
                result.default_check = {"unchanged": not changed, "changed": changed}
            if library_tests:
                from .library_tests import TIMEOUT as LIBRARY_TESTS_TIMEOUT, library_tests as run_library_tests, site_of

                site = site_of(tops[0]) if tops else None
                if site is not None:
                    result.library_tests = run_library_tests(site, after_root, result.files,
                                                             module_of(result.files[0]) if result.files else None,
                                                             timeout=min(timeout, LIBRARY_TESTS_TIMEOUT))
            _gates_and_check(result, tops, after_root, gates, check)
    except UsageError as exc:  # a diff that does not apply, a replay that failed ...
        result.error = str(exc)
    except OSError as exc:  # the copy could not be made (disk full, unreadable file ...)
        result.error = f"the patched copy could not be made: {exc}"
    return result


def _gates_and_check(result: Validation, tops: list, after_root: Path, gates, check: Optional[tuple]) -> None:
    """The library's gates on the patched files, and the record's check of the keywords."""
    if gates is not None:
        from .gates import run_gates
        from .library_tests import site_of

        site = site_of(tops[0]) if tops else None
        result.gates = run_gates(gates, site, after_root, result.files) if site is not None else None
    if check is not None:
        from .equivalence import run_check

        result.check = run_check(check[0], after_root, check[1])


#: output-stage families a repro may still show after a patch and hold: float rounding alone,
#: the score within ``ROUNDING`` points of the reference's (1e-6 on the 0..1 scale)
ROUNDING_FAMILIES, ROUNDING = {"float32-arithmetic", "precision-loss"}, 1e-4


def _agrees(a: dict) -> bool:
    if a["outcome"] != "value":
        return False
    if not a["key"]:
        return True
    return (set(a["key"]) <= ROUNDING_FAMILIES and a.get("actual") is not None and a.get("expected") is not None
            and abs(a["actual"] - a["expected"]) < ROUNDING)


def _choose(tried: dict, after: list, before: list) -> dict:
    """family -> the first issue repro that diverges as the family before and scores the
    reference's value after (or, when none does, the first one tried, with holds False)."""
    after_it, before_it = iter(after), iter(before)
    out = {}
    for fam, reps in tried.items():
        chosen = None
        for r in reps:
            a = next(after_it, None)
            b = r if r["minimal"] else next(before_it, None)
            diverged = bool(r["minimal"] or (b is not None and b.get("reproduces")))
            holds = bool(a is not None and diverged and _agrees(a))
            rec = {"level": r["level"], "inputs": r["inputs"], "minimal": r["minimal"], "holds": holds,
                   "expected": a.get("expected") if a else None,
                   "expected_fraction": a.get("expected_fraction") if a else None,
                   "before": r.get("before") if r["minimal"] else (b or {}).get("actual"),
                   "before_raw": r.get("before_raw") if r["minimal"] else (b or {}).get("raw"),
                   "after": a.get("actual") if a else None, "after_raw": a.get("raw") if a else None,
                   "after_key": a.get("key") if a else None}
            if chosen is None or (holds and not chosen["holds"]):
                chosen = rec
        if chosen is not None:
            out[fam] = chosen
    return out


def verdict(v: Validation, families) -> dict:
    """THE judge of a patch meant to fix ``families``: ``{"verified": bool, "status": str}``
    (the status says the first reason it is not verified)."""
    def no(status):
        return {"verified": False, "status": status}

    if v.error:
        return no(f"not verified: {v.error}")
    fixed = {s.family for s in v.of(FIXED)}
    introduced = sorted({s.family for s in v.of(INTRODUCED)})
    if introduced:
        return no("not verified: it introduces " + ", ".join(introduced))
    missing = [f for f in families if f not in fixed]
    if missing:
        return no(f"not verified: it fixes {len(families) - len(missing)} of {len(families)} families "
                  f"({', '.join(missing)} still present)")
    for fam in families:
        chk = v.repro_checks.get(fam)
        if chk is None:
            return no(f"not verified: no repro of {fam} was replayed after the patch")
        if not chk["holds"]:
            return no(f"not verified: after the patch the repro of {fam} scores {chk['after_raw'] or chk['after']}, "
                      f"not the expected {chk['expected']}")
    if v.default_check is not None and not v.default_check["unchanged"]:
        return no("not verified: without its keywords the patched copy scores "
                  + ", ".join(v.default_check["changed"]) + " repros differently (the default changed)")
    lt = v.library_tests
    if lt is None:
        return no("not verified: the library's own tests were not run")
    if lt["broken"] is None:
        err = lt["after"]["error"] or lt["before"]["error"]
        return no(f"not verified: the library's own tests could not run ({err})")
    if lt["broken"]:
        return no(f"breaks {lt['broken']} of the library's own tests")
    return _gates_verdict(v)


def _gates_verdict(v: Validation) -> dict:
    from . import equivalence, gates

    if v.gates_wanted:
        why = gates.verdict_problem(v.gates)
        if why:
            return {"verified": False, "status": why if why.startswith("not checked: ") else f"not verified: {why}"}
    why = equivalence.problem(v.check)
    if why:
        return {"verified": False, "status": f"not verified: {why}"}
    return {"verified": True, "status": "verified"}


def summary(v: Validation, families) -> dict:
    """What the reports keep of a verification (plain data): the verdict (its status with no
    path of this machine: ``audit.files.machine``), and what was checked."""
    from ..files.machine import hide

    out = verdict(v, families)
    out["status"] = hide(out["status"])
    lt = v.library_tests
    out.update(families=list(families), options=dict(v.options), repros=v.repro_checks, gates=v.gates, check=v.check,
               default_unchanged=None if v.default_check is None else v.default_check["unchanged"],
               library_tests=None if lt is None else {
                   "files": lt["files"], "before": {k: lt["before"][k] for k in ("passed", "failed")},
                   "after": {k: lt["after"][k] for k in ("passed", "failed")}, "broken": lt["broken"],
                   "regression": lt.get("regression")})
    return out
