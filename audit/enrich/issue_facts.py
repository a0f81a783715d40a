"""What an upstream issue says beyond the audit: the family's standing against what the library
documents (bug or definition difference), the issue title in the library's words, the
environment that matters, related upstream discussion, the release that introduced it (a
versions result), and whether it is filed at all (the severity line comes from the finding's
impact study in the document: ``audit.render.issue_text.severity``).

``issue_facts(...)`` returns the plain dict the document keeps as a finding's ``issue``;
the issue renderer (``audit.render.issues``) reads nothing else of the upstream.
"""

from __future__ import annotations

from typing import Optional

#: a difference below this on the library's 0..1 scale (1e-4 on the 0..100 scale) is noted
#: in the report, not filed
NEGLIGIBLE = 1e-6


def _largest_difference(findings) -> Optional[float]:
    """The largest |difference| (0..100) among a family's minimal repros and its sentence-level
    largest differences (a corpus input's largest difference may hold other families too)."""
    diffs = [abs(f.minimal.difference) for f in findings if f.minimal.difference is not None]
    diffs += [abs(f.largest.difference) for f in findings
              if f.level == "sentence" and f.largest is not None and f.largest.difference is not None]
    return max(diffs) if diffs else None


def regression(versions: Optional[dict], family: str, version: Optional[str]) -> Optional[dict]:
    """``{"introduced", "last_good", "releases"}`` from a versions result (``--versions-from``
    or the project's file) when the audited ``version`` is among its audited releases and has the
    family, and an earlier audited release did not; None otherwise."""
    if not versions:
        return None
    releases = [r for r in versions.get("releases") or [] if r.get("status") == "audited"]
    fam = (versions.get("families") or {}).get(family) or {}
    introduced = fam.get("introduced")
    order = [r["version"] for r in releases]
    if introduced not in order or version not in order:
        return None
    mine = releases[order.index(version)]
    if family not in (mine.get("families") or []) or order.index(introduced) > order.index(version):
        return None
    passed = set(fam.get("narrowed") or ())  # audited narrowed for it: no evidence either way
    before = [r for r in releases[:order.index(introduced)]
              if family not in (r.get("families") or []) and r["version"] not in passed]
    if not before:
        return None
    return {"introduced": introduced, "last_good": before[-1]["version"], "fixed": fam.get("fixed"),
            "source": versions.get("_source")}


def _script_facts(out: dict, script, family: str, findings: list, others) -> None:
    """A script's repro through its own command line; a family sharing another's root cause
    (``Script.root_of``: by name, or by evidence on its own finding) is described in that
    family's issue ("also"), not filed on its own."""
    root = script.root_of(family, findings[0].to_dict())
    if root is not None:
        out["filed"], out["not_filed"] = False, (f"the same root cause as {root[0]}, described in that issue (one "
                                                 "issue per root cause" + (f": {root[1]}" if root[1] else "") + ")")
        return
    if script.repro is not None:
        out["snippet"] = script.repro(findings[0].to_dict())
    also = []
    for f in others:
        if f.family == family or any(a["family"] == f.family for a in also):
            continue
        mine = script.root_of(f.family, f.to_dict())
        if mine is not None and mine[0] == family:
            also.append({"family": f.family, "title": f.title, "level": f.level, "evidence": mine[1],
                         "snippet": script.repro(f.to_dict()) if script.repro else None})
    out["also"] = also


def issue_facts(implementation: str, family: str, findings: list, *, version: Optional[str],
                versions: Optional[dict] = None, related: Optional[list] = None,
                others: tuple = ()) -> dict:
    """The ``issue`` of a family's findings (``findings``: its ``Finding`` records, both levels;
    ``others``: every finding of the implementation, for a script's families that share one
    root cause: one issue per root cause)."""
    from ..upstream.library import installed_version
    from ..upstream.records import related_for
    from ..upstream.registry import library_of

    from ..upstream.scripts import script_of

    lib = library_of(implementation)
    script = script_of(implementation) if lib is None else None
    know = lib.knowledge if lib is not None else script.knowledge if script is not None else None
    note = know.notes.get(family) if know is not None else None
    out: dict = {"library": lib.distribution if lib is not None else implementation, "kind": None,
                 "function": None, "title": None, "lead": None, "consequence": None, "default_change": None,
                 "option": None, "documented": None, "parameters": None, "dependencies": {}, "related": [],
                 "fixed_upstream": None, "filed": True, "not_filed": None, "regression": None}
    if know is not None:
        out["documented"] = know.documented.to_dict() if know.documented else None
        out["parameters"] = dict(know.parameters) or None
        out["dependencies"] = {d: installed_version(d) for d in know.dependencies}
        out["related"] = related_for(know, family)
    if note is not None:
        out.update(kind=note.kind, function=note.function, title=note.title, lead=note.lead,
                   consequence=note.consequence, default_change=note.default_change or None,
                   option=list(note.option) if note.option else None)
        if note.fixed_upstream:
            repo, number = note.fixed_upstream
            rec = next((r for r in out["related"] if (r["repository"], r["number"]) == (repo, number)), None)
            out["fixed_upstream"] = rec or {"repository": repo, "number": number}
            out["filed"], out["not_filed"] = False, "fixed upstream after the audited release"
    if script is not None:
        _script_facts(out, script, family, findings, others)
    if related:
        out["related"] += [r for r in related if not r.get("families") or family in r["families"]]
    largest = _largest_difference(findings)
    scale = 100
    if out["filed"] and largest is not None and largest / scale < NEGLIGIBLE and all(f.minimal.actual is not None
                                                                                       for f in findings):
        out["filed"] = False
        out["not_filed"] = (f"every difference is below {NEGLIGIBLE:g} on the 0..1 scale (at most {largest / scale:.2g}): "
                            "noted in the report, not filed")
    out["regression"] = regression(versions, family, version)
    return out
