"""``chrf-audit stats``: audit the confidence intervals and paired tests of chrF implementations."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..errors import UsageError

HELP = "audit statistical procedures: bootstrap intervals and paired significance tests"

DESCRIPTION = """\
Audit chrF confidence intervals and paired significance tests against float64 computations
over summed segment statistics: point estimate, exact containment of the estimate, resampling
of segment statistics (not sentence scores), precision vs construction (a float64 replay of
the procedure's own draw), pairing, calibration under the null and coverage, corpus sizes
from 1 to 3000 segments, side effects on the caller, robustness.  Families and their tests:
docs/stats.md.

Procedures (default: --sacrebleu --evaluatio):
  --sacrebleu       sacreBLEU's corpus_score(n_bootstrap=) interval, paired AR and paired bootstrap
  --evaluatio       evaluatio's chrf_ci and chrf_permutation_test, run in a private virtual
                    environment (created once under ~/.cache/chrf-audit; numpy < 2.1)
  --reference       chrf-audit's own procedures (audit.impact.significance): the correct baseline
  --ci SPEC         a Python callable fn(hypotheses, references, resamples=, alpha=, seed=)
                    returning (score, low, high); run in its own worker process
  --paired SPEC     a Python callable fn(hyps_a, hyps_b, references, resamples=, seed=)
                    returning a p-value; run in its own worker process
  --external CMD    a program speaking the protocol's stats operations

Exit 0 no finding, 1 findings, 2 usage error.
"""


def register(subparsers) -> None:
    p = subparsers.add_parser("stats", help=HELP, description=DESCRIPTION)
    p.add_argument("--sacrebleu", action="store_true")
    p.add_argument("--evaluatio", action="store_true")
    p.add_argument("--reference", action="store_true")
    p.add_argument("--ci", action="append", default=[], metavar="SPEC")
    p.add_argument("--paired", action="append", default=[], metavar="SPEC")
    p.add_argument("--external", action="append", default=[], metavar="CMD")
    p.add_argument("--accepts", default="resamples,alpha,seed",
                   help="keywords --ci/--paired callables accept (default: resamples,alpha,seed)")
    p.add_argument("--statistic", choices=["permutation", "bootstrap", "bootstrap-t"], default="permutation",
                   help="the test statistic a --paired callable claims: permutation (default), "
                   "bootstrap (sacreBLEU's Moses statistic) or bootstrap-t (studentized, audit.impact.significance)")
    p.add_argument("--draw", choices=["numpy-choice", "numpy-integers-per-position"], default=None,
                   help="the random draw --ci/--paired callables claim (numpy.random.default_rng(seed)"
                   ".choice(n, (R, n)), or one integers(0, n, R) per position): every answer is then "
                   "replayed in float64 on its own resamples (default: identified when possible)")
    p.add_argument("--documented-layout", choices=["segments", "streams"], default="segments",
                   help="reference layout the callables' documentation states (default segments)")
    p.add_argument("--evaluatio-python", metavar="PATH", default=None,
                   help="an interpreter that has evaluatio (skips creating the private venv)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--jobs", type=int, default=2,
                   help="procedures with processes of their own audited at a time (default 2); "
                   "the results do not depend on it")
    p.add_argument("--trials", type=int, default=None,
                   help="calibration datasets / coverage corpora (default 200)")
    p.add_argument("--timeout", type=float, default=120.0,
                   help="per-call timeout for sacreBLEU, --ci/--paired callables and external programs, "
                   "seconds (default 120)")
    p.add_argument("--reports-dir", metavar="DIR", default=None,
                   help="write <library>.md, stats.json and charts/ there")
    p.add_argument("--json", metavar="PATH", default=None)
    p.add_argument("--quiet", action="store_true", help="no table")
    p.set_defaults(func=run)


def procedures(args) -> list:
    """The procedures to audit; on a usage error the workers already started are stopped."""
    procs: list = []
    try:
        _procedures(args, procs)
    except BaseException:
        for p in procs:
            p.close()
        raise
    return procs


def _procedures(args, procs: list) -> None:
    from reference_impl import ChrfParams
    from ..stats import builtin, callables
    params = ChrfParams.make()
    chosen = args.sacrebleu or args.evaluatio or args.reference or args.ci or args.paired or args.external
    if args.reference:
        procs += builtin.reference_procedures(params)
    if args.sacrebleu or not chosen:
        procs += builtin.sacrebleu_procedures(params, timeout=args.timeout)
    kw = dict(accepts=args.accepts, statistic=args.statistic, draw=args.draw,
              documented_layout=args.documented_layout, params=params, timeout=args.timeout)
    for kind, specs in (("ci", args.ci), ("paired", args.paired)):
        for spec in specs:
            procs.append(callables.make(spec, kind, **kw))
    commands = list(args.external)
    if args.evaluatio or not chosen:
        from ..stats import evaluatio_env
        log = (lambda m: print(f"chrf-audit: {m}", file=sys.stderr))
        commands.append(evaluatio_env.command(args.evaluatio_python, log=log))
    from ..stats import external
    for cmd in commands:
        procs += external.start(cmd, params, timeout=args.timeout)


def run(args) -> int:
    from ..stats import markdown, report
    from ..stats.checks import Settings
    from ..stats.runner import run_stats
    if args.trials is not None and args.trials < 20:
        raise UsageError(f"--trials must be at least 20, got {args.trials}")
    if args.jobs < 1:
        raise UsageError(f"--jobs must be at least 1, got {args.jobs}")
    from ..settings.limits import check_timeout
    from ..files.outputs import atomic_write, check_dir, check_file, stdout_last
    check_timeout(args.timeout)
    check_file(args.json, "--json")  # before the audit: a bad path must not cost its results
    check_dir(args.reports_dir, "--reports-dir")
    settings = Settings(seed=args.seed, **({"trials": args.trials} if args.trials else {}))
    procs = procedures(args)
    try:
        progress = None if args.quiet else (lambda name: print(f"auditing {name} ...", file=sys.stderr))
        result = run_stats(procs, settings, progress=progress, jobs=args.jobs)
    finally:
        for p in procs:
            p.close()
    if args.reports_dir:
        out = Path(args.reports_dir)
        markdown.write(result, out)
        atomic_write(out / "stats.json", report.to_json(result))
    if args.json:
        atomic_write(args.json, report.to_json(result))
    if not args.quiet:
        with stdout_last():  # last: a full or closed stdout loses no file
            report.terminal(result)
    return 1 if result.findings else 0
