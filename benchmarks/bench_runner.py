"""How fast the differential runner is, measured in-process.

(a) time to the first nltk short-input finding (``requested-order-divisor``) from a cold
    start: a fresh interpreter imports the runner, resolves ``nltk`` (worker start, nltk
    import) and runs a tiny ``run_audit`` (cases/ and budget 1, as the CLI would; or search
    only, budget 2); reported are the moment the runner's checker first classifies an input
    as requested-order-divisor and the end of the tiny audit (search, shrinking, metamorphic
    checks, conformance).  Median of --runs fresh processes.
(b) examples per second of the differential runner (AdapterSummary.examples / elapsed, so
    classification, shrinking and conformance are included) for nltk and sacrebleu-chrf at
    --max-examples, no curated cases.  Median of --runs.
(c) wall time of the default audit: every built-in adapter, the default --max-examples,
    cases/ replayed, seed 0 (``chrf-audit run`` without reports).  One run (--skip-default to
    leave it out).

    python benchmarks/bench_runner.py [--runs 3] [--max-examples 100] [--skip-default]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def cold_probe(mode: str) -> None:
    """Runs in a fresh interpreter: prints the timings of (a) as JSON.

    mode "cases": as ``chrf-audit run --impl nltk`` does, cases/ first (it holds 'c' vs
    ['c']), then a search of budget 1; mode "search": no cases, budget 2 (with budget 1 the
    differential search draws no short input and the metamorphic relations report the bug
    under their own family; see the report).  The moment of the finding is the first
    observation the runner's checker classifies as requested-order-divisor (alone).
    """
    t0 = time.monotonic()
    from audit.adapters import resolve
    from audit.runner import Checker, run_audit

    t_import = time.monotonic() - t0
    first = []
    check = Checker.check

    def timed_check(self, *a, **kw):
        obs = check(self, *a, **kw)
        if not first and obs.key == ("requested-order-divisor",):
            first.append(time.monotonic() - t0)
        return obs

    Checker.check = timed_check
    adapters = resolve("nltk")
    t_resolve = time.monotonic() - t0
    cases = ROOT / "cases" if mode == "cases" else None
    try:
        result = run_audit(adapters, seed=0, max_examples=1 if mode == "cases" else 2, cases_dir=cases,
                           derandomize=True)
    finally:
        for a in adapters:
            a.close()
    families = [f.family for f in result.findings]
    print(json.dumps({"import": t_import, "resolve": t_resolve, "first_family": first[0] if first else None,
                      "audit_done": time.monotonic() - t0, "found": "requested-order-divisor" in families,
                      "families": families}))


def examples_per_second(impl: str, max_examples: int) -> tuple[float, int, float]:
    from audit.adapters import resolve
    from audit.runner import run_audit

    adapters = resolve(impl)
    try:
        s = run_audit(adapters, seed=0, max_examples=max_examples, cases_dir=None, derandomize=True).adapters[0]
    finally:
        for a in adapters:
            a.close()
    return s.examples / s.elapsed, s.examples, s.elapsed


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--max-examples", type=int, default=100)
    ap.add_argument("--skip-default", action="store_true")
    ap.add_argument("--cold-probe", choices=("cases", "search"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.cold_probe:
        cold_probe(args.cold_probe)
        return 0

    rows = []
    # (a)
    for mode, label in (("cases", "cases/ + budget 1 (CLI default)"), ("search", "search only, budget 2")):
        probes = []
        for _ in range(args.runs):
            out = subprocess.run([sys.executable, __file__, "--cold-probe", mode], cwd=ROOT, capture_output=True,
                                 text=True, check=True)
            probes.append(json.loads(out.stdout.strip().splitlines()[-1]))
        if not all(p["found"] for p in probes):
            print(f"warning: a cold run ({mode}) did not report requested-order-divisor:", [p["families"] for p in probes])
        med = lambda key: statistics.median(p[key] for p in probes if p[key] is not None)  # noqa: E731
        if mode == "cases":
            rows.append(("(a) nltk cold start: imports", f"{med('import'):.2f} s", ""))
            rows.append(("(a) nltk cold start: + resolve (worker, nltk import)", f"{med('resolve'):.2f} s", ""))
        rows.append((f"(a) first requested-order-divisor, {label}", f"{med('first_family'):.2f} s",
                     "since interpreter start"))
        rows.append((f"(a) whole audit, {label}", f"{med('audit_done'):.2f} s",
                     "incl. shrink, metamorphic, conformance"))
    # (b)
    for impl in ("nltk", "sacrebleu-chrf"):
        runs = [examples_per_second(impl, args.max_examples) for _ in range(args.runs)]
        rate = statistics.median(r[0] for r in runs)
        rows.append((f"(b) {impl}: examples/s (max_examples {args.max_examples})", f"{rate:.0f} /s",
                     f"{runs[0][1]} examples in {statistics.median(r[2] for r in runs):.1f} s"))
    # (c)
    if not args.skip_default:
        from audit.adapters import resolve
        from audit.commands.run import DEFAULT_MAX_EXAMPLES
        from audit.runner import run_audit

        t0 = time.monotonic()
        adapters = resolve(None)
        try:
            result = run_audit(adapters, seed=0, max_examples=DEFAULT_MAX_EXAMPLES, cases_dir=ROOT / "cases")
        finally:
            for a in adapters:
                a.close()
        wall = time.monotonic() - t0
        per = ", ".join(f"{s.implementation} {s.elapsed:.0f} s" for s in result.adapters)
        rows.append((f"(c) default audit ({len(result.adapters)} built-ins, max_examples {DEFAULT_MAX_EXAMPLES})",
                     f"{wall:.1f} s", per))

    w0, w1 = max(len(r[0]) for r in rows), max(len(r[1]) for r in rows)
    print(f"{'measure':<{w0}}  {'value':>{w1}}  note")
    for name, value, note in rows:
        print(f"{name:<{w0}}  {value:>{w1}}  {note}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
