"""A reports directory: the renderers' files of one document written as one set by the one
writer (``audit.files``).  Here, above both, because the writer knows no renderer and the
renderers write nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Optional, Union


def write_reports(doc, out_dir: Union[str, Path], *, accepted: Optional[dict] = None,
                  timestamp: bool = False) -> list[Path]:
    """A reports directory: every file of ``audit.render.render_reports(doc)`` written as one
    set (atomic files, under the directory's lock, stale files of an earlier run removed;
    ``audit.files.report_set``).  The reports an earlier run wrote there for implementations this
    one does not audit stay, and audit.json and junit.xml carry them over
    (``audit.render.carry``).  ``doc``: the document (``audit.render.document(enriched)``),
    or an ``EnrichedResult`` to make it of (``timestamp``: with the volatile field)."""
    from .. import render as report
    from ..files.report_set import report_set
    from ..render import carry, json_report

    if not isinstance(doc, dict):
        doc = report.document(doc, timestamp=timestamp)

    files = report.render_reports(doc, accepted)
    owner = report.owners(doc, files)
    with report_set(Path(out_dir)) as rs:
        earlier = carry.earlier_json(rs.previous_text("audit.json"))
        mine = {p for p, o in owner.items() if o is not None}
        names = carry.carried_names(earlier, {e["implementation"] for e in doc["implementations"]},
                                    rs.previous_owners(), mine)
        rs.keep(names)
        if names:
            files["audit.json"] = json_report.render(carry.merge_json(doc, earlier, names))["audit.json"]
            files["junit.xml"] = carry.merge_junit_bytes(files["junit.xml"], rs.previous_text("junit.xml"), names)
        shared = ("audit.json", "junit.xml")
        paths = [rs.write(rel, data, owner[rel]) for rel, data in files.items() if rel not in shared]
        paths += [rs.write(rel, files[rel]) for rel in shared]
    return paths
