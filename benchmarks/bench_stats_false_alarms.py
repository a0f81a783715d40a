"""False-alarm rate of `chrf-audit stats` on correct procedures, measured over seeds.

Runs every check at the default settings with seeds 0..N-1 on chrf-audit's own interval,
permutation test and paired bootstrap-t (audit.impact.significance: correct by construction), and on sacreBLEU's three
procedures (whose real findings recur at every seed; anything that does not recur is a false
alarm candidate).  Prints per-seed findings and the totals, per family too (a check is one
CheckResult: a located answer, a family's verdict over all answers, a calibration test...).

    python benchmarks/bench_stats_false_alarms.py [--seeds 20] [--first 0] [--no-sacrebleu]
"""

from __future__ import annotations

import argparse
import collections
import time

from audit.stats import builtin
from audit.stats.checks import Settings
from audit.stats.runner import audit_procedure


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--first", type=int, default=0, help="first seed (seeds first..first+seeds-1)")
    ap.add_argument("--no-sacrebleu", action="store_true")
    args = ap.parse_args()
    correct = builtin.reference_procedures()
    others = [] if args.no_sacrebleu else builtin.sacrebleu_procedures()
    checks_run = collections.Counter()
    answers = collections.Counter()
    by_family = collections.Counter()
    alarms = collections.Counter()
    seen = collections.defaultdict(collections.Counter)
    t0 = time.time()
    for seed in range(args.first, args.first + args.seeds):
        s = Settings(seed=seed)
        for proc in correct + others:
            results = audit_procedure(proc, s)
            for r in results:
                if r.status == "inconclusive":
                    seen[proc.name][("inconclusive", r.family, r.check)] += 1
                if proc in correct:
                    checks_run[proc.name] += 1
                    by_family[r.family] += 1
                    answers[proc.name] += r.evidence.get("calls", 0) if r.check == "every answer" else 0
                if r.is_finding:
                    seen[proc.name][(r.family, r.check)] += 1
                    if proc in correct:
                        alarms[proc.name] += 1
                        print(f"seed {seed}: FALSE ALARM {proc.name} {r.family}/{r.check}: {r.summary}")
        print(f"seed {seed} done ({time.time() - t0:.0f} s)", flush=True)
    print()
    for proc in correct:
        print(f"{proc.name}: {alarms[proc.name]} false alarm(s) in {checks_run[proc.name]} checks "
              f"over {args.seeds} seeds ({answers[proc.name]} answers, each checked by the ledger's checks)")
        for key, n in sorted(seen[proc.name].items()):
            print(f"    {key}: {n}/{args.seeds}")
    print(f"total: {sum(alarms.values())} false alarm(s) in {sum(checks_run.values())} checks over "
          f"{args.seeds} seeds; checks by family: {dict(sorted(by_family.items()))}")
    for proc in others:
        print(f"{proc.name}: findings by (family, check) -> seeds with it")
        for key, n in sorted(seen[proc.name].items()):
            print(f"    {key}: {n}/{args.seeds}")
        proc.close()  # its sacreBLEU worker


if __name__ == "__main__":
    main()
