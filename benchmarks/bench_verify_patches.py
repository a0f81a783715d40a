"""Wall time of verifying the report's suggested nltk patches: the old path (a
``chrf-audit run`` re-audit of a patched copy, family absent = verified; from git ref
--old-ref) vs the new one (``audit.patches.verify_suggested``: one after process
that audits AND replays the before repros, plus a before-side replay of any new family).

Both are given the same before findings (one derandomized audit of the installed nltk,
packaged cases + 20 examples, not timed) and run one patch at a time.  The old path runs in
a subprocess in the old tree (``git archive --old-ref``: audit/, reference_impl/, cases/),
from its root as ``chrf-audit run`` in a checkout would; its per-patch time is measured
inside that subprocess.
Prints, per path, the median over --runs of the total for the four patches (wall time, and
the CPU time of all child processes, which a loaded machine disturbs less), and the ratios.

    python benchmarks/bench_verify_patches.py [--runs 3] [--old-ref 4fe290b]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FAMILIES = ["requested-order-divisor", "f-score-averaged", "corpus-macro-average", "whitespace-set-white-space"]

OLD = """
import json, sys, time
from audit import upstream
before = set(json.loads(sys.argv[1]))
out = {}
for fam in json.loads(sys.argv[2]):
    t = time.perf_counter()
    rep = upstream.verify_report("nltk", fam, upstream.patch("nltk", fam), before=before)
    out[fam] = [time.perf_counter() - t, rep["verified"]]
print(json.dumps(out))
"""


def before_findings() -> list[dict]:
    from audit.adapters import resolve
    from audit.settings.options import packaged_cases
    from audit.collect.runner import run_audit

    adapters = resolve("nltk")
    try:
        res = run_audit(adapters, seed=0, max_examples=20, cases_dir=packaged_cases(), derandomize=True)
    finally:
        for a in adapters:
            a.close()
    return [f.to_dict() for f in res.findings]


def new_run(findings: list[dict]) -> dict:
    from audit import upstream
    from audit.patches import verify_suggested

    out = {}
    for fam in FAMILIES:
        t = time.perf_counter()
        v = verify_suggested("nltk", upstream.patch("nltk", fam), findings)
        out[fam] = [time.perf_counter() - t, v.fixes(fam)]
    return out


def old_run(tree: Path, families: set) -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree))
    proc = subprocess.run([sys.executable, "-c", OLD, json.dumps(sorted(families)), json.dumps(FAMILIES)],
                          cwd=tree, env=env, capture_output=True, text=True, check=True)
    return json.loads(proc.stdout)


def child_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--old-ref", default="4fe290b")
    args = ap.parse_args()
    findings = before_findings()
    families = {f["family"] for f in findings}
    print(f"before findings: {sorted(families)}")
    with tempfile.TemporaryDirectory() as tmp:
        archive = Path(tmp) / "old.tar"
        subprocess.run(["git", "-C", str(ROOT), "archive", "-o", str(archive), args.old_ref, "audit", "reference_impl",
                        "cases"],
                       check=True)
        with tarfile.open(archive) as t:
            t.extractall(Path(tmp) / "old")
        totals = {"old": [], "new": []}
        cpu = {"old": [], "new": []}
        for i in range(args.runs):
            for name, fn in (("old", lambda: old_run(Path(tmp) / "old", families)), ("new", lambda: new_run(findings))):
                c0 = child_cpu()
                res = fn()
                cpu[name].append(child_cpu() - c0)
                totals[name].append(sum(t for t, _ in res.values()))
                print(f"run {i + 1} {name}: " + ", ".join(f"{f} {t:.1f}s {'verified' if ok else 'NOT verified'}"
                                                         for f, (t, ok) in res.items()), flush=True)
    med = {k: statistics.median(v) for k, v in totals.items()}
    mcpu = {k: statistics.median(v) for k, v in cpu.items()}
    print(f"median total for {len(FAMILIES)} patches over {args.runs} runs: wall old {med['old']:.1f} s, "
          f"new {med['new']:.1f} s, new/old {med['new'] / med['old']:.2f}; child CPU old {mcpu['old']:.1f} s, "
          f"new {mcpu['new']:.1f} s, new/old {mcpu['new'] / mcpu['old']:.2f}")


if __name__ == "__main__":
    main()
