"""Which upstream issue files a document makes: one per fix.

A family's findings (both levels) are one section of an issue; sections that one patch fixes
are one issue (``unit``): the families a patch fixes together (nltk's three definition
differences behind three keywords) and the configurations of one function that show one
family (torchmetrics' chrF and chrF++ adapters, the same diff).  A family not filed (fixed
upstream, negligible, the same root cause as another) makes no file.  The file lives beside
the report of the first implementation that has it: ``issues/<report>/<first family>.md``.
Pure functions of the document.
"""

from __future__ import annotations

from ._doc import anchors, families, findings_of, first


def issue_path(entry: dict, anchor: str) -> str:
    """The file of an issue whose first section is ``anchor`` (a family's id, or id-1, ...
    for a second group of one id) of ``entry``, relative to the reports directory."""
    return f"issues/{entry['report'][:-3]}/{anchor}.md"


def _key(entry: dict, group: list[dict], anchor: str) -> tuple:
    """Sections with one key are one issue: a library's patch (its diff), else the family."""
    issue, patch = first(group, "issue") or {}, first(group, "patch") or {}
    if patch.get("diff") and issue.get("kind"):  # a built-in library's record knows the family
        return "patch", issue.get("library"), patch["diff"]
    return "family", entry["implementation"], anchor


def issue_units(doc: dict) -> list[dict]:
    """``[{"path", "sections": [(entry, findings of one family, anchor)]}]`` in report order."""
    units: dict[tuple, dict] = {}
    for entry in doc["implementations"]:
        groups = families(findings_of(doc, entry["implementation"]))
        for group, anchor in zip(groups, anchors(groups)):
            if (first(group, "issue") or {}).get("filed", True) is False:
                continue  # fixed upstream, negligible, or another family's root cause: the report says so
            key = _key(entry, group, anchor)
            unit = units.setdefault(key, {"path": issue_path(entry, anchor), "sections": []})
            unit["sections"].append((entry, group, anchor))
    return list(units.values())


def issue_paths(doc: dict) -> dict[tuple, str]:
    """(implementation, family anchor) -> the issue file that holds it."""
    return {(entry["implementation"], anchor): unit["path"]
            for unit in issue_units(doc) for entry, _, anchor in unit["sections"]}
