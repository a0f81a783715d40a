"""``chrf-audit run``: the main job.

With no implementation given it audits the installed nltk and sacreBLEU against the
reference and writes the reports to ``reports/``; with ``--impl``/``--corpus-impl``/
``--external`` it audits those and writes only the outputs asked for.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..settings import options
from ..errors import UsageError



def claim_overrides(args) -> dict:
    out = {}
    for name in options.CLAIMS:
        value = getattr(args, name, None)
        if value is not None:
            out[name] = int(value) if name == "beta" and float(value).is_integer() else value
    return out


def register(sub) -> None:
    p = sub.add_parser("run", help="audit implementations against the reference (default: installed nltk and sacreBLEU)",
                       description=__doc__)
    options.add_arguments(p, "run")
    p.set_defaults(func=run)


def validate_search_args(args, command: str = None) -> None:
    """Every option of the command, checked as the table says (audit.settings.options); then
    the Hypothesis profile's budget when none is given, and the replayed cases."""
    from ..settings import limits
    from .cases_arg import check_cases_arg
    from ..settings.hypothesis_profiles import resolve as resolve_profile

    options.validate_args(args, command or getattr(args, "command", None) or "run")
    profile = resolve_profile(args.hypothesis_profile)
    if args.max_examples is None:
        args.max_examples = profile.max_examples
        limits.check_examples(args.max_examples, f"max_examples of the Hypothesis profile {profile.name!r}")
    check_cases_arg(args, getattr(args, "cases_base", Path(".")))


def implementation_options(args) -> dict:
    """The implementation options given (``resolve``'s keywords, ``options.IMPLEMENTATION``)."""
    return {k: getattr(args, k) for k in options.IMPLEMENTATION if getattr(args, k, None) is not None}


def implementation_given(args) -> bool:
    """Whether the command line (or a configuration entry) names implementations."""
    from ..adapters.kinds import named

    return named(implementation_options(args))


def resolve_adapters(args):
    from ..adapters import resolve

    overrides = claim_overrides(args)
    try:
        return resolve(overrides=overrides or None, **implementation_options(args))
    except (TypeError, ValueError) as exc:
        if isinstance(exc, UsageError):
            raise
        raise UsageError(f"invalid claims: {exc}") from None


def check_output_names(args, adapters, default_dir=None) -> None:
    """The files named after the implementations (reports, charts, saved cases) must be
    possible before the audit starts (audit.commands.output_names); on an error the adapters are closed."""
    from .output_names import check

    try:
        check([a.name for a in adapters], [args.reports_dir or default_dir, args.markdown],
              Path(getattr(args, "save_cases_to", args.cases)) if getattr(args, "save_cases", False) else None)
    except BaseException:
        for a in adapters:
            a.close()
        raise


class ProgressLine:
    """A live one-line status on stderr (only when stderr is a terminal)."""

    def __init__(self, enabled: bool):
        self.live = None
        if enabled and sys.stderr.isatty():
            from rich.console import Console
            from rich.live import Live

            self.live = Live(console=Console(stderr=True), transient=True, refresh_per_second=8)

    def __enter__(self):
        if self.live:
            self.live.__enter__()
        return self

    def __exit__(self, *exc):
        if self.live:
            self.live.__exit__(*exc)

    def __call__(self, p) -> None:
        if self.live:
            self.live.update(
                f"[bold]{p.implementation}[/] · {p.phase} · {p.examples} examples · "
                f"{p.families} families · {p.elapsed:.1f} s"
            )


def execute(args, adapters, on_summary=None):
    """Run the audit for parsed args (shared by run and check).  The adapters stay open: the
    enrich stage's impact study scores with them; the caller closes them."""
    from ..collect.parallel import default_jobs
    from ..collect.runner import run_audit

    jobs = getattr(args, "jobs", None) or default_jobs()
    with ProgressLine(not getattr(args, "quiet", False)) as progress:
        return run_audit(adapters, seed=args.seed, max_examples=args.max_examples, tolerance=args.tolerance,
                         cases_dir=args.cases, save_cases=args.save_cases and Path(getattr(args, "save_cases_to", args.cases)),
                         derandomize=getattr(args, "derandomize", False), progress=progress,
                         on_summary=on_summary, jobs=jobs, hypothesis_profile=getattr(args, "hypothesis_profile", None))


def close_all(adapters) -> None:
    for a in adapters:
        a.close()


def report_targets(args, default_dir=None) -> list:
    """The report directories asked for (--reports-dir or the default, --markdown)."""
    return [d for d in (args.reports_dir or default_dir, args.markdown) if d]


def enrich_result(args, result, adapters, *, default_dir=None, verified=None, phases=None):
    """The enrich stage of run and check: snippets, and when reports are written root causes,
    scope sweeps and patch verifications (those in ``verified``, the others here unless
    --no-verify); the impact study of --impact-data with the audit's ``adapters``."""
    from ..enrich import ImpactRequest, enrich
    from .progress import impact_progress as progress
    from .progress import Phases

    targets = report_targets(args, default_dir)
    versions, related = getattr(args, "upstream_records", None) or upstream_records(
        args, [a.implementation for a in result.adapters])
    request = None
    if getattr(args, "impact_data", None) is not None:
        request = ImpactRequest(data=args.impact_data, systems=args.impact_systems, resamples=args.impact_resamples,
                                alpha=args.impact_alpha, timeout=args.impact_timeout, seed=args.seed)
    # the impact study draws its own progress bars: no phase display around it
    phases = phases if phases is not None and request is None else Phases(False)
    with phases.phase("enriching the findings (snippets, root causes, scope sweeps)", total=1) as task:
        enriched = enrich(result, verified=verified, verify=bool(targets) and not getattr(args, "no_verify", False),
                          with_upstream=bool(targets or args.json),
                          timeout=getattr(args, "timeout", None) or options.default("timeout"),
                          impact_request=request, adapters=adapters,
                          impact_steps=lambda: progress(quiet=getattr(args, "quiet", False)),
                          say=lambda line: print(line, file=sys.stderr), versions=versions, related=related)
        task.advance()
    return enriched


def upstream_records(args, implementations) -> tuple:
    """The versions results (``--versions-from`` or the project's ``reports/versions/``) of the audited libraries and the
    records of ``--related`` (``audit.enrich.versions``, ``audit.upstream.records``)."""
    from ..enrich.versions import results_for
    from ..upstream.records import load_related
    from ..upstream.registry import library_of

    packages = [lib.distribution for lib in (library_of(name) for name in implementations) if lib]
    versions = results_for(packages, getattr(args, "versions_from", None),
                           say=lambda line: print(line, file=sys.stderr))
    related = load_related(args.related) if getattr(args, "related", None) is not None else None
    return versions, related


def write_outputs(args, doc, default_dir=None, phases=None, accepted=None, check_lines=None) -> bytes:
    """Render the document and write every file output asked for: each reports directory,
    --json, --junit, the GitHub job summary; return the findings table, which the caller
    prints last (``outputs.to_stdout``), so that a full or closed standard output loses no
    file.  One output that cannot be written does not keep the others from being written:
    its error (one line) is raised after them.  ``accepted``: the findings ``check`` accepts,
    {(implementation, family): reason} (skipped in JUnit); ``check_lines``: the gate's
    verdict, for the job summary."""
    from ..files import outputs
    from . import writing
    from ..render import github, json_report, junit, terminal
    from .progress import Phases

    width, color = outputs.terminal_facts()
    table = terminal.render(doc, width=width, color=color)["terminal.txt"]
    phases = phases or Phases(False)
    targets = report_targets(args, default_dir)
    writes = [lambda t=t: writing.write_reports(doc, t, accepted=accepted) for t in targets]
    if args.json:
        writes.append(lambda: outputs.atomic_write(args.json, json_report.render(doc)["audit.json"]))
    if args.junit:
        writes.append(lambda: outputs.atomic_write(args.junit, junit.render(doc, accepted)["junit.xml"]))
    failed = None
    with phases.phase("writing reports", total=len(writes)) as task:
        for write in writes:  # the paths were checked before the audit (audit.files.outputs): a late failure
            try:
                write()
            except OSError as exc:
                failed = failed or UsageError(f"cannot write the reports: {exc.filename or ''}: {exc.strerror or exc}")
            except UsageError as exc:
                failed = failed or exc
            task.advance()
    summary = outputs.step_summary_path()
    if summary:
        try:
            outputs.append_file(summary, github.render(doc, check_lines)["step-summary.md"])
        except OSError as exc:
            failed = failed or UsageError(f"cannot write the reports: {exc.filename or ''}: {exc.strerror or exc}")
    if failed is not None:
        raise failed
    return table


def run(args) -> int:
    from ..files.outputs import check_report_outputs

    validate_search_args(args)
    check_report_outputs(args, Path("reports") if not implementation_given(args) else None)
    if getattr(args, "impact_data", None) is not None and (getattr(args, "http", None) or getattr(args, "mcp", None)):
        raise UsageError("--impact-data needs corpus scores; an --http service's are contract checks (docs/http.md)")
    if getattr(args, "impact_data", None) is not None:
        from ..impact import load_impact_data

        load_impact_data(args.impact_data)  # a bad directory fails before the audit, not after
    adapters = resolve_adapters(args)
    default_dir = Path("reports") if not implementation_given(args) else None
    check_output_names(args, adapters, default_dir)
    try:  # a bad --versions-from or --related fails before the audit, not after
        args.upstream_records = upstream_records(args, [a.name for a in adapters])
    except BaseException:
        close_all(adapters)
        raise
    verify = bool(args.reports_dir or default_dir or args.markdown) and not args.no_verify
    from .. import render as report
    from ..enrich import start_verification
    from ..enrich.verification import results
    from ..processes.owner import owned_pool

    from .progress import Phases, wait_with_progress
    from .writing import run_time

    # Patch verification (per patch: its copy audited and the repros replayed, in separate processes) starts as soon as an
    # implementation is done, while the next one is audited; the results go to the enrich stage.
    pending: dict = {}
    try:
        with owned_pool(2) as pool:
            result = execute(args, adapters,  # collect
                             on_summary=(lambda s: pending.update(start_verification(s, pool))) if verify else None)
            with Phases(not args.quiet) as phases:
                wait_with_progress(phases, list(pending.values()), "verifying suggested patches (each copy audited, repros replayed)")
        with Phases(not args.quiet) as phases:
            enriched = enrich_result(args, result, adapters, default_dir=default_dir, verified=results(pending),
                                     phases=phases)  # enrich
    finally:
        close_all(adapters)
    doc = report.document(enriched, generated_at=run_time(args.timestamp))  # render ...
    with Phases(not args.quiet) as phases:
        table = write_outputs(args, doc, default_dir, phases=phases)  # ... and write
    from ..files.outputs import to_stdout

    to_stdout(table)  # last: a full or closed stdout loses no file
    return 1 if result.findings else 0
