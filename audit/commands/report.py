"""``chrf-audit report --from audit.json``: re-render every report from a saved audit.json,
without auditing again.

Every renderer reads the document audit.json holds (``audit.render``), so the markdown
reports, the upstream issues, the charts, junit.xml and audit.json itself come out byte for
byte as the run that wrote the file made them (with the renderers of this version: a newer
chrf-audit lays the same facts out its own way).  Default reports directory: the one
audit.json is in.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import UsageError


def register(sub) -> None:
    p = sub.add_parser("report", help="re-render the reports from a saved audit.json (no audit)", description=__doc__)
    p.add_argument("--from", dest="source", type=Path, required=True, metavar="FILE",
                   help="an audit.json written by chrf-audit run or check")
    p.add_argument("--reports-dir", type=Path, metavar="DIR",
                   help="where to write the reports (default: the directory of FILE)")
    p.add_argument("--quiet", action="store_true", help="do not print the findings table")
    p.set_defaults(func=report)


def load_document(path: Path) -> dict:
    """A saved audit.json, checked against the schema (one line on an error)."""
    import json

    import jsonschema

    from ..render import SCHEMA_PATH
    from ..files.textfiles import read_json

    doc = read_json(path, "audit.json")
    if not isinstance(doc, dict) or not str(doc.get("schema_version", "")).startswith("1."):
        raise UsageError(f"{path}: not an audit.json of chrf-audit (schema 1.x)")
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    error = jsonschema.exceptions.best_match(jsonschema.Draft202012Validator(schema).iter_errors(doc))
    if error is not None:
        where = "/".join(str(p) for p in error.absolute_path) or "(top level)"
        raise UsageError(f"{path}: does not follow the audit.json schema at {where}: {error.message[:200]}")
    from ..render.json_report import upgrade

    return upgrade(doc)


def report(args) -> int:
    from ..files import outputs
    from . import writing
    from ..render import terminal

    doc = load_document(args.source)
    target = args.reports_dir or args.source.parent
    outputs.check_dir(target, "--reports-dir")
    if not args.quiet:
        width, color = outputs.terminal_facts()
        outputs.print_bytes(terminal.render(doc, width=width, color=color)["terminal.txt"])
    try:
        writing.write_reports(doc, target)
    except OSError as exc:
        raise UsageError(f"cannot write the reports: {exc.filename or ''}: {exc.strerror or exc}") from None
    return 0
