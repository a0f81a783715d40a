"""Mutation testing of the modules whose rules carry chrf-audit's claims (issue 34, docs/mutation.md).

    nice python benchmarks/mutation.py [--module NAME ...] [--sample 12] [--seed 0] [--workers 2]
                                       [--json mutation-report.json] [--lines FILE:LINE,...]

Tool: pytest-gremlins (the ``mutation`` extra).  Each module of MODULES below is mutated on its
own, with the test files listed for it (the fast ones that state its rules; the whole suite takes
~17 min on 2 cores, and pytest-gremlins runs, per mutant, only the tests whose coverage reaches
the mutated line).  ``--sample N`` keeps N mutants per module, drawn by ``--seed`` from the
module's mutants in source order (benchmarks/mutation_sample.py): the same seed and source give
the same mutants on any machine, and no clock decides.  ``--sample 0`` runs every mutant.

Prints, per module, the mutation score (zapped / (zapped + survived)) and every survivor as
``file:line  operator: description``; timeouts and errors are counted apart (a mutant whose tests
could not finish is neither killed nor survived).  Exit status 0 whatever the score: this is a
measurement, not a gate.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: the judge's tests on hand-made validations (no process, no real patch)
JUDGE = ["tests/test_patch_judge.py::test_verified_only_when_everything_holds",
         "tests/test_patch_judge.py::test_a_partial_fix_is_not_verified",
         "tests/test_patch_judge.py::test_each_reason_not_verified",
         "tests/test_verify_suggested.py::test_judge_classifies_replays_without_processes",
         "tests/test_patch_rules.py"]

#: module name -> (files to mutate, test files (or node ids) that state its rules)
MODULES: dict[str, tuple[list[str], list[str]]] = {
    "reference_impl": (["reference_impl"],
                       ["tests/test_reference_examples.py", "tests/test_reference_matching.py",
                        "tests/test_reference_errors.py", "tests/test_reference_boundaries.py"]),
    # (test_stats_families is about audit/stats, not these score families: it never reaches audit/diagnose)
    "diagnose": (["audit/diagnose"], ["tests/test_classify_names.py", "tests/test_text_model_grams.py",
                                      "tests/test_models_identity.py", "tests/test_deviation_registry.py",
                                      "tests/test_targeted_inputs.py", "tests/test_diagnose_rules.py"]),
    # fitting: whole audits in process (test_classify_names runs run_audit) and its rules on one checker
    "fitting": (["audit/collect/fitting.py"], ["tests/test_classify_names.py", "tests/test_fitting_rules.py"]),
    # verification and patches: the tests that judge hand-made validations, not the ones that
    # verify real patches end to end (~8 min a run on 2 cores: test_patch_judge's nltk patches,
    # test_verify_suggested, test_validate_patch's audits), which would run again for every mutant
    "verification": (["audit/enrich/verification.py", "audit/patches/suggested.py"],
                     [*JUDGE, "tests/test_verify_cache.py", "tests/test_verification_jobs.py",
                      "tests/test_enrich.py::test_verifications_come_from_the_caller_only",
                      "tests/test_enrich.py::test_start_verification_futures_by_patch"]),
    "patches": (["audit/patches"], [
        *JUDGE, "tests/test_hostile_patch.py",
        "tests/test_validate_patch.py::test_fixed_means_the_reference_value_not_another_wrong_one",
        "tests/test_validate_patch.py::test_usage_errors", "tests/test_validate_patch.py::test_bad_diff_is_exit_2",
        "tests/test_validate_patch.py::test_call_option_usage_errors"]),
    "contract_judge": (["audit/contract/judge.py"], ["tests/test_contract_readings.py",
                                                     "tests/test_contract_judge_rules.py"]),
    "baseline": (["audit/gate/baseline.py"], ["tests/test_baseline_dates.py", "tests/test_baseline_load.py",
                                              "tests/test_hostile_baseline.py"]),
}


def run_module(name: str, sample: int, seed: int, workers: int, lines: str, timeout: int,
               tests: list[str] | None = None) -> dict:
    targets, default_tests = MODULES[name]
    tests = tests or default_tests
    tests = [t for t in tests if (ROOT / t.split("::")[0]).exists()]  # files or node ids
    env = dict(os.environ, MUTATION_SAMPLE=str(sample), MUTATION_SEED=str(seed), MUTATION_LINES=lines,
               PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT / "benchmarks"), os.environ.get("PYTHONPATH")])))
    report = ROOT / "coverage" / "gremlins" / "gremlins.json"
    if report.exists():
        report.unlink()
    cmd = [sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "mutation_sample", "--gremlins",
           "--gremlin-targets=" + ",".join(targets), "--gremlin-workers", str(workers),
           "--gremlin-report", "json", "--gremlin-mutant-timeout", str(timeout),
           "--gremlin-coverage-timeout", str(max(timeout, 600)), *tests]
    with tempfile.TemporaryFile("w+") as log:
        proc = subprocess.run(cmd, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
        log.seek(0)
        tail = log.read()[-3000:]
    if not report.exists():
        return {"module": name, "failure": f"pytest exited {proc.returncode} without a report:\n{tail}"}
    doc = json.loads(report.read_text(encoding="utf-8"))
    results = doc.get("results", [])
    count = {s: sum(r["status"] == s for r in results) for s in ("zapped", "survived", "timeout", "error")}
    decided = count["zapped"] + count["survived"]
    return {"module": name, "mutants": len(results), **count,
            "score": round(100 * count["zapped"] / decided, 1) if decided else None,
            "survivors": [{"id": r["gremlin_id"], "where": f"{os.path.relpath(r['file_path'], ROOT)}:{r['line_number']}",
                           "operator": r["operator"], "description": r["description"]}
                          for r in results if r["status"] == "survived"],
            "undecided": [{"where": f"{os.path.relpath(r['file_path'], ROOT)}:{r['line_number']}",
                           "status": r["status"], "description": r["description"]}
                          for r in results if r["status"] in ("timeout", "error")]}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--module", action="append", choices=sorted(MODULES),
                    help="a module group to mutate (repeatable; default: all)")
    ap.add_argument("--sample", type=int, default=12, help="mutants per module, drawn by --seed (0: all)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--timeout", type=int, default=300,
                    help="seconds one mutant's tests may take (hang detection only; generous on a loaded machine)")
    ap.add_argument("--lines", default="", help="only the mutants on these lines (file:line,...), e.g. survivors")
    ap.add_argument("--tests", default="", help="these test files or node ids (comma-separated) instead of the module's own")
    ap.add_argument("--json", type=Path, help="write the per-module results here")
    args = ap.parse_args(argv)
    try:
        import pytest_gremlins  # noqa: F401
    except ImportError:
        print("benchmarks/mutation.py: pytest-gremlins is not installed (pip install -e '.[mutation]')",
              file=sys.stderr)
        return 2
    out = []
    for name in args.module or list(MODULES):
        res = run_module(name, args.sample, args.seed, args.workers, args.lines, args.timeout,
                         [t for t in args.tests.split(",") if t])
        out.append(res)
        if "failure" in res:
            print(f"{name}: {res['failure']}")
            continue
        score = "n/a" if res["score"] is None else f"{res['score']}%"
        print(f"{name}: score {score} ({res['zapped']} zapped, {res['survived']} survived, "
              f"{res['timeout']} timeout, {res['error']} error of {res['mutants']} mutants; "
              f"sample {args.sample}, seed {args.seed})", flush=True)
        for s in res["survivors"]:
            print(f"  SURVIVED {s['where']}  {s['operator']}: {s['description']}  [{s['id']}]", flush=True)
        for s in res["undecided"]:
            print(f"  {s['status'].upper()} {s['where']}  {s['description']}", flush=True)
    if args.json:
        args.json.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
