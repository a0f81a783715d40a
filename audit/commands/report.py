"""``chrf-audit report --from audit.json``: re-render every report from a saved audit.json,
without auditing again.

Every renderer reads the document audit.json holds (``audit.render``), so the markdown
reports, the upstream issues, the charts, junit.xml and audit.json itself come out byte for
byte as the run that wrote the file made them (with the renderers of this version: a newer
chrf-audit lays the same facts out its own way).  Default reports directory: the one
audit.json is in.

The file is untrusted (anyone can write one, and a shared reports directory is written by
others): its file names must be report names (``audit.render.paths``), it must follow the
schema, every report is rendered before the first byte is written, every path is checked
against the directory (no symbolic link followed: ``audit.files.inside``), and the findings
table goes to standard output last, once the files are written.  Whatever is wrong is one
line on stderr and exit 2, with nothing written.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import UsageError
from ..settings import options


def register(sub) -> None:
    p = sub.add_parser("report", help="re-render the reports from a saved audit.json (no audit)", description=__doc__)
    options.add_arguments(p, "report")
    p.set_defaults(func=report)


def load_document(path: Path) -> dict:
    """A saved audit.json, its file names checked (``audit.render.paths``) and the whole of it
    against the schema (one line on an error)."""
    from ..files.textfiles import read_json
    from ..render import paths
    from .writing import schema_problem

    doc = read_json(path, "audit.json")
    if not isinstance(doc, dict) or not str(doc.get("schema_version", "")).startswith("1."):
        raise UsageError(f"{path}: not an audit.json of chrf-audit (schema 1.x)")
    found = paths.problem(doc) or schema_problem(doc)
    if found:
        raise UsageError(f"{path}: {found}")
    from ..render.json_report import upgrade

    return upgrade(doc)


#: what a renderer raises on a document the schema lets through but that no run wrote (a
#: field it needs missing, a number out of every range): the file's fault, one line
_UNRENDERABLE = (KeyError, TypeError, ValueError, IndexError, AttributeError, OverflowError, RecursionError)


def rendered(path: Path, doc: dict, render):
    """``render(doc)``, or one ``UsageError`` line naming the file when it cannot be rendered."""
    try:
        return render(doc)
    except _UNRENDERABLE as exc:
        what = f"missing field {exc}" if isinstance(exc, KeyError) else f"{type(exc).__name__}: {exc}"
        raise UsageError(f"{path}: cannot be re-rendered ({what[:200]}); is it an audit.json chrf-audit wrote?") from None


def report(args) -> int:
    from ..files import outputs
    from . import writing
    from ..render import render_reports, terminal

    doc = load_document(args.source)
    target = args.reports_dir or args.source.parent
    outputs.check_dir(target, "--reports-dir")
    rendered(args.source, doc, render_reports)  # a file no renderer can read fails here, before any write
    table = None
    if not args.quiet:
        width, color = outputs.terminal_facts()
        table = rendered(args.source, doc, lambda d: terminal.render(d, width=width, color=color))["terminal.txt"]
    try:
        writing.write_reports(doc, target)
    except OSError as exc:
        raise UsageError(f"cannot write the reports: {exc.filename or ''}: {exc.strerror or exc}") from None
    if table is not None:
        outputs.to_stdout(table)  # last: a full or closed stdout loses no file
    return 0
