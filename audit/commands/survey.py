"""``chrf-audit survey [NAME ...]``: every chrF implementation of the registry (or those named),
each in its own cached environment, audited at the same seed and budget and checked by a second
route (sacreBLEU's own CHRF on seeded inputs of every input class), in one table.

The registry (audit/survey/registry.json) says how each implementation installs (its
interpreters, what is installed beside it) and how it is called.  The implementations run on
Dask distributed: an embedded cluster of --jobs worker processes, or an existing one
(--scheduler tcp://HOST:PORT; its workers need chrf-audit and the package index).  A finished
implementation is kept in the cache (CHRF_AUDIT_CACHE or ~/.cache/chrf-audit: survey/units/)
and not redone while nothing that changes its result changed.

Prints the table; --json writes it as JSON (docs/survey.md), --reports-dir DIR writes
survey.md, survey.json and issues/<library>/ (the issue files of run).  Exit 1 when an audited
implementation has a finding, 0 when none has, 2 on a usage error or when nothing was audited.
"""

from __future__ import annotations

import sys
from pathlib import Path

from ..errors import UsageError
from ..settings import options


def register(sub) -> None:
    p = sub.add_parser("survey", help="every chrF implementation of the registry audited in one table (on Dask)",
                       description=__doc__)
    p.add_argument("names", metavar="NAME", nargs="*", help="implementations of the registry (default: all)")
    options.add_arguments(p, "survey", titles={"search": "search (the same for every implementation)"})
    p.set_defaults(func=survey)


def _request(args):
    from ..settings import limits
    from ..settings.hypothesis_profiles import resolve as resolve_profile
    from ..survey.plan import Request
    from ..survey.registry import RegistryError, load, select
    from ..versions import envs
    from ..versions.index import IndexOptions

    options.validate_args(args, "survey")
    profile = resolve_profile(args.hypothesis_profile)
    max_examples = args.max_examples if args.max_examples is not None else profile.max_examples
    limits.check_examples(max_examples, "--max-examples")
    if args.scheduler is not None and args.jobs is not None:
        raise UsageError("--jobs sizes the embedded cluster; with --scheduler the cluster's own workers run")
    try:
        registry = load(Path(args.registry)) if args.registry else load()
    except RegistryError as exc:
        raise UsageError(f"--registry {args.registry}: {exc}" if args.registry else f"the survey's registry: {exc}") from None
    select(tuple(args.names), registry)  # an unknown name is an error now
    envs.check_given(tuple(args.python))
    if args.scheduler is not None:  # a wrong address is told before anything is installed
        from ..versions import scheduler

        scheduler.check(args.scheduler.strip())
    cases = options.replayed(options.OPTIONS["cases"].validate(args.cases))
    return Request(names=tuple(args.names), seed=args.seed, max_examples=max_examples, tolerance=args.tolerance,
                   timeout=args.timeout, cases=str(Path(cases).resolve()) if cases else None,
                   hypothesis_profile=args.hypothesis_profile, differential=args.differential,
                   pythons=tuple(args.python), index=IndexOptions(args.index_url, tuple(args.find_links)),
                   scheduler=args.scheduler.strip() if args.scheduler else None,
                   worker_wait=args.worker_wait, jobs=args.jobs, quiet=args.quiet,
                   registry=registry, registry_path=str(Path(args.registry).resolve()) if args.registry else None)


def files(doc: dict, issues: dict) -> dict[str, bytes]:
    """Every file of the survey's reports directory: survey.md, survey.json, the issue files and
    the static page, index.html (``render_survey_page``)."""
    from ..render import survey as render
    from ..render.survey_page import render_survey_page

    out = dict(issues)
    out.update(render.render(doc))
    out["index.html"] = render_survey_page(render.page_document(doc))
    return out


def write_reports(directory: Path, out: dict[str, bytes]) -> None:
    """The reports directory as the survey leaves it: its files written and the issue files of
    an earlier survey that this one does not have removed (``issues/*/*.md``), strictly inside
    it (``files.inside``: a link planted in it is one line, exit 2, before anything is written)."""
    from ..files import inside

    for rel in sorted(out):
        why = inside.problem(directory, rel)
        if why:
            raise UsageError(f"--reports-dir {directory}: {why}")
    issues = directory / "issues"
    stale = [] if issues.is_symlink() or not issues.is_dir() else sorted(
        p.relative_to(directory).as_posix() for p in issues.glob("*/*.md"))
    for rel in stale:
        if rel not in out:
            inside.unlink(directory, rel)
    for rel, data in sorted(out.items()):
        inside.write(directory, rel, data)


def print_table(doc: dict) -> None:
    from rich.console import Console

    from ..render.survey import table

    console = Console(highlight=False, width=max(Console().width, 240))
    for line in table(doc):
        console.print(line, markup=False, soft_wrap=True)
    for r in doc["implementations"]:
        if r["status"] == "skipped" and r["configuration"] in (None, "chrF"):
            console.print(f"skipped {r['name']}: {r['reason']}", markup=False)


def survey(args) -> int:
    from ..files import outputs
    from ..files.jsontext import dumps
    from ..survey.document import exit_code
    from ..survey.runner import run_survey

    outputs.check_file(args.json, "--json")
    outputs.check_dir(args.reports_dir, "--reports-dir")
    doc, issues = run_survey(_request(args))
    print_table(doc)
    reused = doc["volatile"].get("reused_from_cache") or []
    if reused and not args.quiet:
        print(f"chrf-audit: reused {len(reused)} finished implementations from the cache: {', '.join(reused)}",
              file=sys.stderr)
    try:
        if args.json:
            outputs.atomic_write(args.json, dumps(doc))
        if args.reports_dir:
            write_reports(Path(args.reports_dir), files(doc, issues))
    except OSError as exc:
        raise UsageError(f"cannot write the reports: {exc.filename or ''}: {exc.strerror or exc}") from None
    return exit_code(doc)
