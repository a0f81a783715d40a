"""Type-I error of paired tests under the null, measured on the stats audit's null datasets.

Each dataset: two systems that are independent corruptions of each reference at the same
(per-segment random) rate (``audit.stats.data.null_pair``), so every rejection is a false
one.  Compares, on the same datasets and draws, audit.impact.significance.paired_bootstrap (the
bootstrap-t), the plain shift method, sacreBLEU's Moses statistic (as modelled by the audit)
and audit.impact.significance.paired_permutation.  Prints the rejection rate at alpha 0.01, 0.05,
0.1 with its binomial standard error, and the KS distance of the p-values from uniform.

    python benchmarks/bench_paired_type1.py [--datasets 2000] [--segments 30] [--resamples 199]
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from audit.impact import significance as sig
from audit.stats import data as D
from audit.stats import stat_tests as T
from audit.stats.models import paired_model
from audit.stats.procedures import StatsClaims
from reference_impl import ChrfParams


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--datasets", type=int, default=2000)
    ap.add_argument("--segments", type=int, default=30)
    ap.add_argument("--resamples", type=int, default=199)
    ap.add_argument("--seed", type=int, default=99)
    args = ap.parse_args()
    p = ChrfParams.make()
    rng = np.random.default_rng(args.seed)
    moses = StatsClaims(params=p, statistic="bootstrap", strict=True)
    R = args.resamples
    ps: dict[str, list] = {"bootstrap-t (ours)": [], "shift (plain)": [], "moses (sacreBLEU)": [],
                           "permutation (ours)": []}
    t0 = time.time()
    for t in range(args.datasets):
        a, b = D.null_pair(rng, args.segments, p)
        ps["bootstrap-t (ours)"].append(sig.paired_bootstrap(a.stats, b.stats, p, resamples=R, seed=t).p_value)
        idx = np.random.default_rng(t).choice(a.n, size=(R, a.n))
        d = sig.bootstrap_scores(a.stats, p, indices=idx) - sig.bootstrap_scores(b.stats, p, indices=idx)
        obs = a.score(p) - b.score(p)
        ps["shift (plain)"].append(sig.p_value(int(np.sum(np.abs(d - d.mean()) >= abs(obs) - 1e-9)), R))
        ps["moses (sacreBLEU)"].append(paired_model(a.stats, b.stats, None, None, moses, R, t, "statistics"))
        ps["permutation (ours)"].append(sig.paired_permutation(a.stats, b.stats, p, trials=R, seed=t).p_value)
    n = args.datasets
    print(f"{n} null datasets of {args.segments} segments, {R} resamples ({time.time() - t0:.0f} s)")
    for name, v in ps.items():
        v = np.array(v)
        rates = "  ".join(f"alpha {al:g}: {np.mean(v <= al):.3f} (se {math.sqrt(al * (1 - al) / n):.3f})"
                          for al in (0.01, 0.05, 0.1))
        print(f"{name:20s} {rates}  KS {T.ks_uniform(v):.3f}")


if __name__ == "__main__":
    main()
