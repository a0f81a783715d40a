"""``chrf-audit check``: the CI gate.

Audits the implementations configured in ``[tool.chrf-audit]`` of ./pyproject.toml (or
--config FILE; see docs/ci.md) with a seeded search and a fixed budget, so that the same
code gives the same findings on every run, and compares the findings with the baseline file
of accepted ones (default chrf-audit-baseline.json beside the configuration).

Exit 0: every finding is accepted by the baseline.  Exit 1: a new finding (or, with --strict,
a stale or expired baseline entry).  Exit 2: a usage, configuration or input error.
--update-baseline accepts the current findings (keeping existing reasons and expiry dates).
Command-line flags override the configuration; --impl/--corpus-impl/--external replace its
implementations.
"""

from __future__ import annotations

import argparse
import datetime as _dt
from pathlib import Path

from ..gate import config as _config
from ..settings import options
from ..errors import UsageError
from ..files.outputs import check_file, check_report_outputs, to_stdout
from .progress import Phases
from .run import (check_output_names, close_all, enrich_result, execute, implementation_given, resolve_adapters,
                  validate_search_args, write_outputs)


def register(sub) -> None:
    p = sub.add_parser("check", help="CI gate: audit the configured implementations, fail on findings not in the baseline",
                       description=__doc__)
    options.add_arguments(p, "check")
    # None = "not given on the command line": the configuration, then the default, applies.
    p.set_defaults(func=check, **{o.attr: None for o in options.on(options.CONFIG)})


def _merge(args, cfg: _config.Config) -> None:
    """Fill every flag not given on the command line from the configuration or the default;
    the replayed cases' default is worked out beside the configuration (``cases_base``)."""
    args.cases_base = cfg.path.parent if cfg.path is not None else Path(".")
    for o in options.on(options.CONFIG):
        if getattr(args, o.attr, None) is None:
            value = getattr(cfg, o.name)
            setattr(args, o.attr, o.default if value is None else value)  # max_examples None: the profile's
    if args.baseline is None:
        args.baseline = args.cases_base / _config.DEFAULT_BASELINE
    args.derandomize = True


def _plans(args, cfg: _config.Config) -> list[argparse.Namespace]:
    """One namespace per implementation entry, in the shape resolve_adapters reads: what the
    command line gives wins over the entry (a timeout only when given there: the
    configuration's own fills it otherwise)."""
    if implementation_given(args) or not cfg.implementations:
        return [args]
    plans = []
    for entry in cfg.implementations:
        ns = argparse.Namespace(**vars(args))
        for o in options.on(options.ENTRY):
            value = entry.claims.get(o.name) if o.name in options.CLAIMS else getattr(entry, o.name)
            given = args.timeout_given if o.name == "timeout" else getattr(args, o.attr, None) is not None
            if value is not None and not given:
                setattr(ns, o.attr, value)
        plans.append(ns)
    return plans


def _resolve_all(args, cfg) -> list:
    adapters: list = []
    try:
        for ns in _plans(args, cfg):
            adapters.extend(resolve_adapters(ns))
    except BaseException:
        for a in adapters:
            a.close()
        raise
    names = [a.name for a in adapters]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        for a in adapters:
            a.close()
        raise UsageError(f"implementation {dup[0]!r} is configured twice: baseline entries could not tell them apart")
    return adapters


def _today(args) -> _dt.date:
    return _dt.date.fromisoformat(args.today) if args.today else _dt.date.today()  # checked by the table


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _report_lines(cmp, baseline, args) -> list[str]:
    name = args.baseline
    lines = []
    if not baseline.exists:
        lines.append(f"no baseline file {name}: every finding is new (accept them with --update-baseline)")
    lines.append(f"baseline {name}: {len(cmp.accepted)} accepted, {len(cmp.new)} new, "
                 f"{len(cmp.stale)} stale, {len(cmp.expired)} expired")
    for f in cmp.new:
        lines.append(f"  NEW      {f.implementation}  {f.family}  ({f.level} level)")
    for entry, f in cmp.expired:
        lines.append(f"  EXPIRED  {entry.implementation}  {entry.family}: accepted until {entry.expires.isoformat()}"
                     + (f" ({entry.reason})" if entry.reason else ""))
    for entry, why in cmp.stale:
        lines.append(f"  STALE    {entry.implementation}  {entry.family}: {why}"
                     + (f" ({entry.reason})" if entry.reason else "") + "; remove it with --update-baseline")
    return lines


def _verdict(cmp, strict: bool) -> str:
    if cmp.new:
        return f"check failed: {_plural(len(cmp.new), 'new finding')} not in the baseline"
    if strict and (cmp.stale or cmp.expired):
        parts = [_plural(len(x), w) for x, w in ((cmp.stale, "stale entry"), (cmp.expired, "expired entry")) if x]
        return f"check failed (--strict): {' and '.join(parts).replace('entrys', 'entries')}"
    return f"check passed: no new finding ({len(cmp.accepted)} accepted)"


def _accepted(args, cmp, result, today) -> dict:
    """The findings this gate does not fail on, {(implementation, family): reason}, for the
    JUnit report: the baseline's (an expired entry only without --strict), or, with
    --update-baseline, every finding (the baseline accepts them now)."""
    if args.update_baseline:
        return {(f.implementation, f.family): f"accepted {today.isoformat()} (--update-baseline)"
                for f in result.findings}
    return {(f.implementation, f.family): entry.reason for f, entry in cmp.accepted
            if not (args.strict and entry.expired(today))}


def check(args) -> int:
    from ..gate import baseline as B
    from ..render import document
    from .writing import run_time

    cfg = _config.load(args.config)
    args.timeout_given = args.timeout is not None
    args.cases_explicit = args.cases is not None or cfg.cases is not None
    _merge(args, cfg)
    validate_search_args(args)
    check_report_outputs(args)
    if args.update_baseline:
        check_file(args.baseline, "--baseline")
    today = _today(args)
    baseline = B.load(args.baseline)  # before the audit: a broken file fails fast
    adapters = _resolve_all(args, cfg)
    check_output_names(args, adapters)
    try:
        result = execute(args, adapters)  # collect
        audited = [a.implementation for a in result.adapters]
        cmp = B.compare(result.findings, baseline, today=today, audited=audited)
        with Phases(not args.quiet) as phases:
            enriched = enrich_result(args, result, adapters, phases=phases)  # enrich
    finally:
        close_all(adapters)
    doc = document(enriched, generated_at=run_time(getattr(args, "timestamp", False)))  # render ...
    accepted = _accepted(args, cmp, result, today)
    if args.update_baseline:
        with Phases(not args.quiet) as phases:  # ... and write
            table = write_outputs(args, doc, phases=phases, accepted=accepted)
        # only the audited implementations' entries change; the file is re-read under a lock
        n, added, removed = B.update_file(args.baseline, result.findings, audited=audited, today=today)
        lines = [f"baseline {args.baseline} updated: {n} accepted "
                 f"({len(added)} added, {len(removed)} removed)"]
        lines += [f"  ADDED    {e.implementation}  {e.family}" for e in added]
        lines += [f"  REMOVED  {e.implementation}  {e.family}" for e in removed]
        to_stdout(table + ("\n".join(lines) + "\n").encode("utf-8", "backslashreplace"))  # last: a full or closed stdout loses no file
        return 0
    lines = _report_lines(cmp, baseline, args) + [_verdict(cmp, args.strict)]
    with Phases(not args.quiet) as phases:  # ... and write (the verdict goes to the job summary too)
        table = write_outputs(args, doc, phases=phases, accepted=accepted, check_lines=lines)
    to_stdout(table + ("\n".join(lines) + "\n").encode("utf-8", "backslashreplace"))
    return 1 if cmp.failed(args.strict) else 0
