"""``chrf-audit versions PACKAGE SPEC``: which release introduced, and which fixed, each chrF bug.

SPEC is a range of releases (3.5..3.10.4: every release the package index offers between the
bounds, inclusive), a list (3.10.3,3.10.4) or all.  Each release is installed into its own
cached virtual environment (the index your pip is configured for; --index-url and
--find-links are passed through; uv when it is on the PATH, pip otherwise) with an
interpreter it supports (--python to add others), and audited there through the
external-program protocol at the same seed and budget.  A release that cannot be installed or
imported is listed as skipped, with the reason.

Built-in upstreams (nltk, sacrebleu, torchmetrics) bring their adapters and claims; for any
other package say what to call with --impl package.module:function (and the claim flags, as
in run).  The releases run on Dask distributed: an embedded cluster of --jobs worker
processes, or an existing one (--scheduler tcp://HOST:PORT; its workers need chrf-audit
installed and the package index reachable).  --bisect audits O(log n) releases per
transition instead of all of them (docs/versions.md says what it assumes).

Prints the family x release table; --json writes the matrix (docs/versions.md), --markdown DIR
the report with its heat map and root-cause diffs.  `run` reads a project's result from
reports/versions/PACKAGE.json (write it there with --json) or --versions-from FILE.
Exit 1 when the newest audited release has a finding, 0 otherwise, 2 on a usage error.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import UsageError
from ..settings import options
from .run import claim_overrides


def register(sub) -> None:
    p = sub.add_parser("versions", help="which release introduced and which fixed each bug (a family x release "
                       "matrix, run on Dask)", description=__doc__)
    p.add_argument("package", metavar="PACKAGE", help="a distribution on the package index (nltk, sacrebleu, "
                   "torchmetrics, or any other with --impl)")
    p.add_argument("spec", metavar="SPEC", help="releases: A..B (inclusive), A,B,C, or all")
    options.add_arguments(p, "versions", titles={"implementation": "implementation in each release",
                                                  "search": "search (the same in every release)"})
    p.set_defaults(func=versions)


def _request(args):
    from ..collect.parallel import default_jobs
    from ..settings import limits
    from ..settings.hypothesis_profiles import resolve as resolve_profile
    from ..versions.index import IndexOptions
    from ..versions.runner import Request

    options.validate_args(args, "versions")
    profile = resolve_profile(args.hypothesis_profile)
    max_examples = args.max_examples if args.max_examples is not None else profile.max_examples
    limits.check_examples(max_examples, "--max-examples")
    overrides = claim_overrides(args)
    if args.scheduler is not None and args.jobs is not None:
        raise UsageError("--jobs sizes the embedded cluster; with --scheduler the cluster's own workers run")
    cases = options.replayed(options.OPTIONS["cases"].validate(args.cases))
    return Request(
        package=args.package, spec=args.spec, impl=args.impl, corpus_impl=args.corpus_impl, overrides=overrides,
        max_refs=args.max_refs, name=args.name, accepts=args.accepts, seed=args.seed, max_examples=max_examples,
        tolerance=args.tolerance, timeout=args.timeout, cases=str(Path(cases).resolve()) if cases else None,
        hypothesis_profile=args.hypothesis_profile, pythons=tuple(args.python),
        index=IndexOptions(args.index_url, tuple(args.find_links)), bisect=args.bisect,
        scheduler=args.scheduler.strip() if args.scheduler else None, jobs=args.jobs or default_jobs(),
        worker_wait=args.worker_wait, quiet=args.quiet)


def print_table(doc: dict) -> None:
    """The family x release matrix on stdout (rich)."""
    from rich.console import Console
    from rich.table import Table

    needed = max([len("family")] + [len(f) for f in doc["families"]]) + 34 + sum(
        len(r["version"]) + 3 for r in doc["releases"])
    width = Console().width
    console = Console(highlight=False, width=max(width, needed))  # every release a column of its own
    table = Table(title=f"{doc['package']}: chrF families by release", show_lines=False)
    table.add_column("family", no_wrap=True)
    for r in doc["releases"]:
        table.add_column(r["version"], justify="center", no_wrap=True, min_width=len(r["version"]))
    table.add_column("introduced", no_wrap=True)
    table.add_column("fixed", no_wrap=True)
    for fam in sorted(doc["families"]):
        cells = []
        for r in doc["releases"]:
            if r["status"] != "audited":
                cells.append("[dim]-[/dim]")
            elif r["version"] in doc["families"][fam].get("narrowed", ()):
                cells.append("[yellow]n/c[/yellow]")  # narrowed for it there: not comparable
            else:
                cells.append("[bold red]x[/bold red]" if fam in r["families"] else "[green].[/green]")
        t = doc["families"][fam]
        table.add_row(fam, *cells, t["introduced"] or "(before)", t["fixed"] or "-")
    console.print(table)
    for r in doc["releases"]:
        for u in r.get("unsupported") or []:
            console.print(f"{r['version']}: {u['implementation']} not audited: {u['reason']}", markup=False)
        if r["status"] == "skipped" and not (r.get("reason") or "").startswith("not audited"):
            console.print(f"skipped {r['version']}: {r['reason']}", markup=False)
    if not doc["families"]:
        console.print(f"no audited release of {doc['package']} shows a finding", markup=False)


def versions(args) -> int:
    from ..files import outputs
    from ..files.jsontext import dumps
    from ..render import versions as render
    from ..versions.runner import run_versions

    outputs.check_file(args.json, "--json")
    outputs.check_dir(args.markdown, "--markdown")
    doc = run_versions(_request(args))
    print_table(doc)
    text = dumps(doc)
    try:
        if args.json:
            outputs.atomic_write(args.json, text)
        if args.markdown:
            for rel, data in render.render(doc, {}).items():
                outputs.atomic_write(Path(args.markdown) / rel, data)
    except OSError as exc:
        raise UsageError(f"cannot write the reports: {exc.filename or ''}: {exc.strerror or exc}") from None
    return 1 if doc["newest_has_findings"] else 0

