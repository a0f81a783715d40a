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



def add_claim_flags(p: argparse.ArgumentParser) -> None:
    """Flags stating what an implementation claims to compute (shared by run/check/...)."""
    g = p.add_argument_group("claims (override the implementation's own)")
    for name in options.CLAIMS:
        options.add_argument(g, name)


def claim_overrides(args) -> dict:
    out = {}
    for name in options.CLAIMS:
        value = getattr(args, name, None)
        if value is not None:
            out[name] = int(value) if name == "beta" and float(value).is_integer() else value
    return out


def add_impl_flags(p: argparse.ArgumentParser, timeout: float = options.default("timeout"),
                   title: str = "implementation under audit") -> None:
    """The implementation options, the same for run, check and impact."""
    g = p.add_argument_group(title)
    for name in ("impl", "corpus_impl", "external", "http", "contract", "mcp", "tool", "max_requests",
                 "http_concurrency", "http_retries", "max_refs", "name", "accepts"):
        options.add_argument(g, name)
    options.add_argument(g, "timeout", default=timeout, help=f"per-call timeout in seconds (default {timeout:g})")


def add_search_flags(p: argparse.ArgumentParser) -> None:
    """The search flags (audit.settings.options): the budget, when not given, is the Hypothesis
    profile's."""
    g = p.add_argument_group("search")
    for name in ("seed", "max_examples", "hypothesis_profile", "tolerance", "cases"):
        options.add_argument(g, name)
    g.add_argument("--save-cases", action="store_true", help="save each finding's minimal repro into the cases dir")
    g.add_argument("--jobs", type=int, default=None, metavar="N",
                   help="processes auditing (implementation, level) units side by side (default: the number of "
                        "cores); the findings are the same for any N")


def add_output_flags(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("output")
    for name in ("json", "markdown", "junit", "reports_dir"):
        options.add_argument(g, name)
    g.add_argument("--quiet", action="store_true", help="no progress on stderr (search, patch verification, report writing)")
    g.add_argument("--timestamp", action="store_true",
                   help="record the time of the run (in one separate 'volatile' field of the JSON report)")
    for name in ("versions_from", "related"):
        options.add_argument(g, name)
    g.add_argument("--no-verify", action="store_true",
                   help="do not verify suggested patches (each is applied to a temporary copy of the upstream package, which is audited and the finding's repro replayed on it)")


def add_impact_flags(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("impact on a real corpus (implementations with findings only)")
    g.add_argument("--impact-data", type=Path, metavar="DIR",
                   help="DIR/reference.txt and system outputs DIR/*.txt (one segment per line): add to each "
                        "report what the findings do to those systems' corpus scores, ranks and significance calls")
    g.add_argument("--impact-systems", type=int, metavar="N",
                   help="study only the N systems whose reference scores lie closest together (default all)")
    g.add_argument("--impact-resamples", type=int, default=1000, metavar="N",
                   help="bootstrap resamples and permutation trials (default 1000; seed: --seed)")
    g.add_argument("--impact-alpha", type=float, default=0.05, metavar="A", help="significance level (default 0.05)")
    g.add_argument("--impact-timeout", type=float, default=600.0, metavar="SECONDS",
                   help="per-call timeout of the implementation's corpus calls (default 600)")


def register(sub) -> None:
    p = sub.add_parser("run", help="audit implementations against the reference (default: installed nltk and sacreBLEU)",
                       description=__doc__)
    add_impl_flags(p)
    add_claim_flags(p)
    add_search_flags(p)
    add_output_flags(p)
    add_impact_flags(p)
    p.set_defaults(func=run)


def validate_search_args(args) -> None:
    """Every option value the table knows, checked as the table says (audit.settings.options); then the
    Hypothesis profile's budget when none is given."""
    from ..settings import limits
    from ..collect.cases_arg import check_cases_arg
    from ..settings.hypothesis_profiles import resolve as resolve_profile

    options.validate({name: getattr(args, name) for name in options.OPTIONS
                      if name != "cases" and hasattr(args, name)})
    profile = resolve_profile(args.hypothesis_profile)
    if args.max_examples is None:
        args.max_examples = profile.max_examples
        limits.check_examples(args.max_examples, f"max_examples of the Hypothesis profile {profile.name!r}")
    check_cases_arg(args)
    if getattr(args, "jobs", None) is not None and args.jobs < 1:
        raise UsageError("--jobs must be >= 1")
    if getattr(args, "impact_data", None) is not None:
        if args.impact_systems is not None and args.impact_systems < 2:
            raise UsageError("--impact-systems must be >= 2")
        limits.check_resamples(args.impact_resamples, "--impact-resamples")
        if not 0 < args.impact_alpha < 1:
            raise UsageError("--impact-alpha must be between 0 and 1")
        limits.check_timeout(args.impact_timeout, "--impact-timeout")


def custom_flags(args) -> dict:
    """``--max-refs``, ``--name``, ``--accepts`` and the ``--http`` options as resolve() keywords
    (absent in older namespaces); values checked by the option table."""
    out = {"max_refs": getattr(args, "max_refs", None), "name": getattr(args, "name", None),
           "accepts": getattr(args, "accepts", None)}
    if getattr(args, "http", None) is not None or getattr(args, "contract", None) is not None or \
            getattr(args, "mcp", None) is not None or getattr(args, "tool", None) is not None:
        http = options.validate({k: getattr(args, k, None) if getattr(args, k, None) is not None else options.default(k)
                                 for k in ("http", "contract", "mcp", "tool", "max_requests", "http_concurrency",
                                           "http_retries")})
        out.update({k: v for k, v in http.items() if v is not None or k in ("http", "contract")})
    elif getattr(args, "max_requests", None) is not None:
        raise UsageError("--max-requests limits the requests to an --http service")
    return out


def implementation_given(args) -> bool:
    """Whether the command line (or a configuration entry) names implementations."""
    return bool(args.impl or args.corpus_impl or args.external or getattr(args, "http", None)
                or getattr(args, "mcp", None))


def resolve_adapters(args):
    from ..adapters import resolve

    from ..settings import limits

    overrides = claim_overrides(args)
    limits.check_timeout(args.timeout)  # a configuration entry's own timeout too
    limits.check_claims(overrides)
    try:
        return resolve(args.impl, corpus_impl=args.corpus_impl, external=args.external,
                       overrides=overrides or None, timeout=args.timeout, **custom_flags(args))
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
    """The versions results (``--versions-from`` or the cache) of the audited libraries and the
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
    doc = report.document(enriched, timestamp=args.timestamp)  # render ...
    with Phases(not args.quiet) as phases:
        table = write_outputs(args, doc, default_dir, phases=phases)  # ... and write
    from ..files.outputs import to_stdout

    to_stdout(table)  # last: a full or closed stdout loses no file
    return 1 if result.findings else 0
