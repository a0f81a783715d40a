"""Run time of `chrf-audit stats` (default: `--sacrebleu`), this tree against another.

Runs the same command from each source tree in turn (alternating, so that the load of a
shared machine falls on both alike), ``--runs`` times each, and prints every wall-clock
time and CPU time (chrf-audit and its workers: user + system), the medians and their
ratios.  On a loaded machine the CPU time is the steadier measure of the work done.  The other tree is any checkout of chrf-audit, e.g. the commit
before a change: ``git archive <commit> | tar -x -C /tmp/before``.

    python benchmarks/bench_stats_runtime.py --other /tmp/before [--runs 3] [-- --reference]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def once(root: Path, extra: list[str]) -> tuple[float, float]:
    """(wall-clock seconds, CPU seconds) of one run."""
    env = dict(os.environ, PYTHONPATH=str(root))
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [sys.executable, "-m", "audit.cli", "stats", *(extra or ["--sacrebleu"]), "--quiet",
               "--json", os.path.join(tmp, "stats.json")]
        t0, c0 = time.perf_counter(), _cpu()
        r = subprocess.run(cmd, cwd=tmp, env=env, capture_output=True, text=True)
        took, cpu = time.perf_counter() - t0, _cpu() - c0
    if r.returncode not in (0, 1):
        raise SystemExit(f"{root}: exit {r.returncode}: {r.stderr[-500:]}")
    return took, cpu


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--other", type=Path, default=None, help="another source tree to compare with")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("extra", nargs="*", help="stats arguments (default: --sacrebleu)")
    args = ap.parse_args()
    trees = [("this tree", HERE)] + ([("other tree", args.other.resolve())] if args.other else [])
    times: dict[str, list[tuple[float, float]]] = {name: [] for name, _ in trees}
    for i in range(args.runs):
        for name, root in (trees if i % 2 == 0 else trees[::-1]):
            times[name].append(once(root, args.extra))
            wall, cpu = times[name][-1]
            print(f"run {i + 1}: {name}: {wall:.1f} s wall, {cpu:.1f} s CPU", flush=True)
    med = {name: (statistics.median(w for w, _ in t), statistics.median(c for _, c in t)) for name, t in times.items()}
    for name, (wall, cpu) in med.items():
        print(f"{name}: median {wall:.1f} s wall, {cpu:.1f} s CPU over {args.runs} runs")
    if args.other:
        (w1, c1), (w2, c2) = med["this tree"], med["other tree"]
        print(f"ratio this / other: wall {w1 / w2:.2f}, CPU {c1 / c2:.2f}")


if __name__ == "__main__":
    main()
