"""Time corpus significance over segment statistics (not a test: prints timings).

    python benchmarks/bench_significance.py [--data DIR] [--resamples 1000] [--runs 7]

Uses two WMT17 en-de systems (3,004 segments; ../shared/data/wmt17-en-de by default) when
present, else a synthetic corpus of the same size.  Prints the median wall time of several
runs of bootstrap_ci, paired_bootstrap and paired_permutation.  Statistics extraction (the
exact reference, once per system) is timed separately and is not part of the resampling.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from reference_impl import ChrfParams, corpus_score  # noqa: E402

from audit.impact import significance as sig


def _lines(path: Path) -> list[str]:
    lines = path.read_text(encoding="utf-8").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def _synthetic(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    out = np.zeros((n, 6, 3), dtype=np.int64)
    length = rng.integers(10, 300, n)
    q = rng.beta(4, 3, n)
    for k in range(6):
        r = np.maximum(0, length - k)
        h = np.maximum(0, (r * rng.normal(1, 0.1, n)).astype(np.int64))
        out[:, k] = np.stack([h, r, rng.binomial(np.minimum(h, r), q ** (k + 1))], axis=1)
    return out


def _median_time(fn, runs: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(runs):
        t = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), result


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data" / "wmt17-en-de")
    ap.add_argument("--resamples", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args(argv)
    params = ChrfParams.make()

    if (args.data / "reference.txt").is_file():
        refs = [[r] for r in _lines(args.data / "reference.txt")]
        t = time.perf_counter()
        a = sig.stats_array(corpus_score(_lines(args.data / "online-B.0.txt"), refs).segment_stats)
        b = sig.stats_array(corpus_score(_lines(args.data / "uedin-nmt.4722.txt"), refs).segment_stats)
        print(f"data: WMT17 en-de online-B vs uedin-nmt, {len(refs)} segments "
              f"(exact statistics of both: {time.perf_counter() - t:.2f} s)")
    else:
        a, b = _synthetic(3004, 1), _synthetic(3004, 2)
        print(f"data: synthetic, {len(a)} segments ({args.data} not found)")

    n = args.resamples
    print(f"{n} resamples / trials, median of {args.runs} runs, numpy {np.__version__}")
    for label, fn in (
        ("bootstrap_ci", lambda: sig.bootstrap_ci(a, params, resamples=n, seed=0)),
        ("paired_bootstrap", lambda: sig.paired_bootstrap(a, b, params, resamples=n, seed=0)),
        ("paired_permutation", lambda: sig.paired_permutation(a, b, params, trials=n, seed=0)),
    ):
        med, res = _median_time(fn, args.runs)
        extra = (f"score {res.score:.4f} [{res.low:.4f}, {res.high:.4f}]" if label == "bootstrap_ci"
                 else f"diff {res.difference:+.4f} p {res.p_value:.4f}")
        print(f"  {label:<20} {med * 1000:8.1f} ms   {extra}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
