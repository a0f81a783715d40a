"""``chrf-audit stats``: audit the confidence intervals and paired tests of chrF implementations."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..settings import options
from .progress import say

HELP = "audit statistical procedures: bootstrap intervals and paired significance tests"

DESCRIPTION = """\
Audit chrF confidence intervals and paired significance tests against float64 computations
over summed segment statistics: point estimate, exact containment of the estimate, resampling
of segment statistics (not sentence scores), precision vs construction (a float64 replay of
the procedure's own draw), pairing, calibration under the null and coverage, corpus sizes
from 1 to 3000 segments, side effects on the caller, robustness.  Families and their tests:
docs/stats.md.

Procedures: --sacrebleu, --evaluatio, --reference, --ci, --paired and --external below
(default: --sacrebleu --evaluatio).

Exit 0 no finding, 1 findings, 2 usage error.
"""


def register(subparsers) -> None:
    p = subparsers.add_parser("stats", help=HELP, description=DESCRIPTION)
    options.add_arguments(p, "stats")
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
        log = (lambda m: say(f"chrf-audit: {m}"))
        commands.append(evaluatio_env.command(args.evaluatio_python, log=log))
    from ..stats import external
    for cmd in commands:
        procs += external.start(cmd, params, timeout=args.timeout)


def run(args) -> int:
    from ..stats import markdown, report
    from ..stats.checks import Settings
    from ..stats.runner import run_stats
    from ..collect.parallel import default_jobs
    from ..files.outputs import atomic_write, check_dir, check_file, stdout_last

    options.validate_args(args, "stats")
    check_file(args.json, "--json")  # before the audit: a bad path must not cost its results
    check_dir(args.reports_dir, "--reports-dir")
    settings = Settings(seed=args.seed, **({"trials": args.trials} if args.trials else {}))
    procs = procedures(args)
    try:
        progress = None if args.quiet else (lambda name: say(f"auditing {name} ..."))
        result = run_stats(procs, settings, progress=progress, jobs=args.jobs or default_jobs())
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
