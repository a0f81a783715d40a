"""How fast the default audit is, before and after a change, measured in one run.

For each of ``--runs`` rounds, in fresh interpreters and in turn (so that both sides see the
same machine load):

* *before*: the runner of ``--before`` (a git revision, default c994a20, the last one
  before the two-phase search), exported with ``git archive`` into a temporary directory and
  run from there;
* *after*: this checkout, with ``--jobs`` processes (default: the number of cores) and with
  one.

Each probe is the default audit as ``chrf-audit run`` does it without reports: every
built-in adapter, the default ``--max-examples``, ``cases/`` replayed, seed 0.  Printed:
median wall time of the whole audit, and per implementation the inputs scored per second
(``AdapterSummary.examples / elapsed``, where elapsed is the time spent auditing that
implementation, summed over its levels: classification, shrinking and conformance
included) and the number of findings.

    python benchmarks/bench_runner.py [--runs 3] [--before c994a20] [--jobs N]
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def probe(jobs: int) -> None:
    """Runs in a fresh interpreter whose ``audit`` is the tree under test: prints JSON."""
    t0 = time.monotonic()
    from audit.adapters import resolve
    from audit.settings.options import BUDGET as DEFAULT_MAX_EXAMPLES
    from audit.collect.runner import run_audit

    adapters = resolve(None)
    kw = {"jobs": jobs} if "jobs" in inspect.signature(run_audit).parameters else {}
    try:
        result = run_audit(adapters, seed=0, max_examples=DEFAULT_MAX_EXAMPLES, cases_dir=Path("cases"), **kw)
    finally:
        for a in adapters:
            a.close()
    print(json.dumps({
        "wall": time.monotonic() - t0,
        "max_examples": DEFAULT_MAX_EXAMPLES,
        "impls": {s.implementation: {"examples": s.examples, "elapsed": s.elapsed, "findings": len(s.findings)}
                  for s in result.adapters},
    }))


def _export(rev: str, into: Path) -> Path:
    tree = into / f"before-{rev}"
    tree.mkdir()
    archive = subprocess.run(["git", "archive", rev, "audit", "reference_impl", "cases"], cwd=ROOT,
                             capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
    return tree


def _run(tree: Path, jobs: int) -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree))
    out = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--probe", str(jobs)], cwd=tree, env=env,
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    from audit.collect.parallel import default_jobs

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--before", default="c994a20", help="git revision to compare with (default c994a20)")
    ap.add_argument("--jobs", type=int, default=default_jobs(), help="--jobs of the 'after' run (default: cores)")
    ap.add_argument("--probe", type=int, metavar="JOBS", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.probe is not None:
        probe(args.probe)
        return 0

    with tempfile.TemporaryDirectory(prefix="bench-runner-") as tmp:
        before = _export(args.before, Path(tmp))
        sides = [(f"before ({args.before})", before, 1), (f"after, --jobs {args.jobs}", ROOT, args.jobs)]
        if args.jobs != 1:
            sides.append(("after, --jobs 1", ROOT, 1))
        runs: dict[str, list] = {name: [] for name, _, _ in sides}
        for i in range(args.runs):
            for name, tree, jobs in sides:
                runs[name].append(_run(tree, jobs))
                print(f"run {i + 1}/{args.runs} {name}: {runs[name][-1]['wall']:.1f} s", file=sys.stderr)

    print(f"default audit (5 built-ins, max_examples {runs[sides[0][0]][0]['max_examples']}, cases/), "
          f"median of {args.runs} run(s), cores available {default_jobs()}")
    impls = list(runs[sides[0][0]][0]["impls"])
    header = ["side", "wall s"] + [f"{i} in/s (found)" for i in impls]
    rows = []
    for name, _, _ in sides:
        rs = runs[name]
        row = [name, f"{statistics.median(r['wall'] for r in rs):.1f}"]
        for impl in impls:
            rate = statistics.median(r["impls"][impl]["examples"] / r["impls"][impl]["elapsed"] for r in rs)
            n = statistics.median(r["impls"][impl]["examples"] for r in rs)
            row.append(f"{rate:.0f} ({n:.0f} in, {rs[0]['impls'][impl]['findings']} f)")
        rows.append(row)
    widths = [max(len(str(r[k])) for r in rows + [header]) for k in range(len(header))]
    for r in [header] + rows:
        print("  ".join(str(c).ljust(w) for c, w in zip(r, widths)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
