"""A reports directory: the renderers' files of one document written as one set by the one
writer (``audit.files``).  Here, above both, because the writer knows no renderer and the
renderers write nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Optional, Union

from ..errors import UsageError


def run_time(asked: bool) -> Optional[str]:
    """The time of the run for ``--timestamp`` (UTC, to the second), None when not asked: the
    one clock read of a report, made here and passed to ``audit.render.document``."""
    if not asked:
        return None
    from datetime import datetime, timezone

    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def write_reports(doc, out_dir: Union[str, Path], *, accepted: Optional[dict] = None,
                  generated_at: Optional[str] = None) -> list[Path]:
    """A reports directory: every file of ``audit.render.render_reports(doc)`` written as one
    set (atomic files, under the directory's lock, stale files of an earlier run removed;
    ``audit.files.report_set``).  The reports an earlier run wrote there for implementations this
    one does not audit stay, and audit.json and junit.xml carry them over
    (``audit.render.carry``).  ``doc``: the document (``audit.render.document(enriched)``),
    or an ``EnrichedResult`` to make it of (``generated_at``: the volatile field's time).

    Nothing is written before every path is checked: the document's file names
    (``audit.render.paths``), then every file of the set against the directory (report names
    only, none through a symbolic link: ``ReportSet.check``); ``UsageError`` otherwise.  An
    earlier audit.json that breaks the schema, or entries of it whose file names are not
    report names, are not carried."""
    from .. import render as report
    from ..files.report_set import report_set
    from ..render import carry, json_report, paths

    if not isinstance(doc, dict):
        doc = report.document(doc, generated_at=generated_at)
    found = paths.problem(doc)
    if found:
        raise UsageError(f"cannot write the reports: {found}")

    files = report.render_reports(doc, accepted)
    owner = report.owners(doc, files)
    with report_set(Path(out_dir)) as rs:
        earlier = carry.earlier_json(rs.previous_text("audit.json"))
        if earlier is not None and schema_problem(earlier):
            earlier = None  # what a carried entry holds must re-render (``report --from``)
        mine = {p for p, o in owner.items() if o is not None}
        names = carry.carried_names(earlier, {e["implementation"] for e in doc["implementations"]},
                                    {rel: o for rel, (o, _) in rs.previous.items()}, mine)
        merged = carry.merge_json(doc, earlier, names) if names else doc
        if names and paths.problems(merged):
            names, merged = [], doc  # carried entries that would clash with each other: none carried
        if names:
            try:
                carried = {"audit.json": json_report.render(merged)["audit.json"],
                           "junit.xml": carry.merge_junit_bytes(files["junit.xml"], rs.previous_text("junit.xml"), names)}
            except (RecursionError, ValueError, TypeError):  # nested too deeply to write again: no run wrote that
                names, carried = [], {}
            files.update(carried)
        rs.keep(names)
        rs.check(files)  # every path, before the first write
        shared = ("audit.json", "junit.xml")
        paths_written = [rs.write(rel, data, owner[rel]) for rel, data in files.items() if rel not in shared]
        paths_written += [rs.write(rel, files[rel]) for rel in shared]
    return paths_written


def schema_problem(doc: dict) -> Optional[str]:
    """Where ``doc`` breaks the audit.json schema (``audit/render/schema.json``), one line, or
    None."""
    import json

    import jsonschema

    from ..render import SCHEMA_PATH

    global _validator
    if _validator is None:
        from referencing import Registry  # its references are into itself: nothing is fetched

        _validator = jsonschema.Draft202012Validator(json.loads(SCHEMA_PATH.read_text(encoding="utf-8")),
                                                     registry=Registry())
    error = jsonschema.exceptions.best_match(_validator.iter_errors(doc))
    if error is None:
        return None
    where = "/".join(str(p) for p in error.absolute_path) or "(top level)"
    return f"does not follow the audit.json schema at {where}: {error.message[:200]}"


_validator = None
