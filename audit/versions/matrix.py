"""From the units' results to the versions document: the family x release matrix, each family's
introduction and fix, and the root-cause diff between the releases around each transition.

The document is what ``--json`` writes and what the renderers read (``audit.render.versions``).
Its stable core (docs/versions.md, "The JSON")::

    {"package", "releases": [{"version", "status": "audited"|"skipped", "reason", "families": [...]}],
     "families": {FAMILY: {"introduced": VERSION|null, "fixed": VERSION|null}}}

Transitions are read from the audited releases only, oldest first: ``introduced`` is the first
audited release of the family's last run of releases showing it (null when the oldest audited
release shows it already: it is older than the range), ``fixed`` the first audited release after
that run (null when the newest audited release still shows it).  A family that came and went
more than once has all its runs in ``intervals``.  A release that audited an implementation
showing the family narrowed or not at all (its ``limits`` / ``unsupported``, sacreBLEU 1.x) and
does not show it says nothing about it: it is passed over for that family (``knows``).

The diff: the registry's root-cause pattern of the family for a built-in upstream
(``audit.diagnose.deviations.root_causes``) locates the function in the release that shows the
family; that function is diffed between the last release without and the first with it (and
between the last with and the fixing one).  Without a pattern, or when it is not found, the
audited functions themselves (the adapter's entry points) are diffed where they differ.
"""

from __future__ import annotations

import ast
import difflib
import re
from typing import Optional

#: the most lines of one root-cause diff kept in the document
MAX_DIFF_LINES = 200


def knows(result: dict, family: str, showing: set) -> bool:
    """Whether an audited release says something about ``family``: it shows it, or it audited
    every implementation that shows it elsewhere (``showing``) fully.  A release that could
    not compute one of them (``unsupported``) or audited it narrowed (``limits``: sacreBLEU
    1.x takes one reference, fewer claims) is no evidence that the family is absent."""
    if family in result["families"]:
        return True
    narrowed = {u["implementation"] for u in result.get("unsupported") or []} | set(result.get("limits") or {})
    return not (narrowed & showing)


def showing(results: dict, family: str) -> set:
    """The implementations that show ``family`` in some release."""
    return {f["implementation"] for r in results.values() for f in r.get("findings") or [] if f["family"] == family}


def runs(versions: list, results: dict, family: str) -> list[list]:
    """[[introduced|None, fixed|None], ...]: the runs of audited releases showing ``family``
    (of those that say something about it: ``knows``)."""
    impls = showing(results, family)
    audited = [v for v in versions if results.get(v, {}).get("status") == "audited"
               and knows(results[v], family, impls)]
    out, start, prev_has = [], None, False
    for i, v in enumerate(audited):
        has = family in results[v]["families"]
        if has and not prev_has:
            start = None if i == 0 else v
        if prev_has and not has:
            out.append([start, v])
        prev_has = has
    if prev_has:
        out.append([start, None])
    return out


def function_source(text: str, qualname: str) -> Optional[str]:
    """The source of function ``qualname`` (``Class.method``, decorators included) in ``text``."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    lines = text.splitlines(keepends=True)

    def find(node, parts):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and child.name == parts[0]:
                if len(parts) == 1:
                    if isinstance(child, ast.ClassDef):
                        return None
                    first = min([d.lineno for d in child.decorator_list] + [child.lineno])
                    return "".join(lines[first - 1:child.end_lineno])
                found = find(child, parts[1:])
                if found is not None:
                    return found
        return None

    return find(tree, qualname.split("."))


def _located(sources: dict, pattern: str) -> Optional[tuple]:
    """(file, function) of the first line matching ``pattern`` in a release's sources."""
    from ..upstream._base import enclosing_function

    rx = re.compile(pattern)
    for file in sorted(sources):
        for n, line in enumerate(sources[file].splitlines(), start=1):
            if rx.search(line):
                function = enclosing_function(sources[file], n)
                return (file, function) if function else None
    return None


def _diff(file: str, function: str, old: dict, new: dict, old_v: str, new_v: str) -> Optional[str]:
    a = function_source(old.get(file, ""), function) or ""
    b = function_source(new.get(file, ""), function) or ""
    if a == b:
        return None
    lines = list(difflib.unified_diff(a.splitlines(keepends=True), b.splitlines(keepends=True),
                                      fromfile=f"a/{file} ({old_v})", tofile=f"b/{file} ({new_v})", n=3))
    if len(lines) > MAX_DIFF_LINES:
        lines = lines[:MAX_DIFF_LINES] + [f"... ({len(lines) - MAX_DIFF_LINES} more lines)\n"]
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def root_cause_diff(family: str, library: Optional[str], old: dict, new: dict, old_v: str, new_v: str,
                    bad: dict) -> dict:
    """The diff of the family's root-cause function between two releases (``old`` -> ``new``),
    located in ``bad`` (the release showing it): ``{"from", "to", "file", "function", "diff"}``;
    ``diff`` None with ``note`` when the releases' files show no change there."""
    places = []
    if library is not None:
        from ..diagnose.deviations import root_causes

        entry = root_causes(library).get(family)
        if entry is not None:
            found = _located(bad.get("sources") or {}, entry[0])
            if found is not None:
                places.append(found)
    if not places:  # the audited entry points, in the files that hold them
        functions = sorted(set((bad.get("functions") or {}).values()))
        for file in sorted(bad.get("sources") or {}):
            places += [(file, f) for f in functions if function_source(bad["sources"][file], f) is not None]
    out = {"from": old_v, "to": new_v, "file": None, "function": None, "diff": None}
    for file, function in places:
        text = _diff(file, function, old.get("sources") or {}, new.get("sources") or {}, old_v, new_v)
        out.update(file=file, function=function)
        if text is not None:
            out["diff"] = text
            return out
    out["note"] = ("no root-cause function found in the package's files" if not places else
                   f"{out['function']} is the same in both releases: the change lies elsewhere")
    return out


def document(package: str, versions: list, results: dict, *, implementations: list, settings: dict,
             library: Optional[str], inferred: Optional[dict] = None, untried: Optional[dict] = None) -> dict:
    """The versions document (see the module's docstring).  A release without a result is
    skipped: ``inferred`` by --bisect (version -> the audited releases around it), else with
    the reason in ``untried``."""
    inferred, untried = inferred or {}, untried or {}
    releases = []
    for v in versions:
        r = results.get(v)
        if r is None:
            lo, hi = inferred.get(v, (None, None))
            reason = (f"not audited (--bisect): between {lo} and {hi}, which show the same families"
                      if lo else untried.get(v, "not audited (--bisect)"))
            r = {"status": "skipped", "reason": reason, "families": [], "findings": [], "python": None}
        releases.append({"version": v, "status": r["status"], "reason": r.get("reason"),
                         "families": list(r.get("families") or []), "python": r.get("python"),
                         "findings": list(r.get("findings") or []),
                         **{k: r[k] for k in ("unsupported", "limits") if r.get(k)}})
    names = sorted({f for r in results.values() if r.get("status") == "audited" for f in r["families"]})
    families, diffs = {}, {}
    audited = [v for v in versions if results.get(v, {}).get("status") == "audited"]
    for fam in names:
        spans = runs(versions, results, fam)
        introduced, fixed = spans[-1]
        families[fam] = {"introduced": introduced, "fixed": fixed}
        passed = [v for v in audited if not knows(results[v], fam, showing(results, fam))]
        if passed:  # audited, but narrowed for it: no evidence either way
            families[fam]["narrowed"] = passed
        if len(spans) > 1:
            families[fam]["intervals"] = [{"introduced": a, "fixed": b} for a, b in spans]
        entry = {}
        known = [v for v in audited if knows(results[v], fam, showing(results, fam))]
        if introduced is not None:
            before = known[known.index(introduced) - 1]
            entry["introduced"] = root_cause_diff(fam, library, results[before], results[introduced], before,
                                                  introduced, bad=results[introduced])
        if fixed is not None:
            last_bad = known[known.index(fixed) - 1]
            entry["fixed"] = root_cause_diff(fam, library, results[last_bad], results[fixed], last_bad, fixed,
                                             bad=results[last_bad])
        if entry:
            diffs[fam] = entry
    newest = audited[-1] if audited else None
    return {
        "package": package,
        "releases": releases,
        "families": families,
        "schema": "chrf-audit-versions/1",
        "implementations": implementations,
        "settings": settings,
        "newest_audited": newest,
        "newest_has_findings": bool(newest and results[newest]["families"]),
        "audited": len(audited),
        "diffs": diffs,
    }
