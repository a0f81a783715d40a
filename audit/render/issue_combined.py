"""The combined patch as one pasteable issue (``issues/<report>/all-families.md``): one diff
fixing every family a maintainer would fix together (``audit.upstream.combined_patch``), each
family linked to its own issue.  A view of the document."""

from __future__ import annotations

from ._doc import anchors, families, findings_of, first, version_of
from . import issue_text as T
from ._text import md_cell, md_fence, visible
from .issue_units import issue_paths


def render_combined(doc: dict, entry: dict) -> str:
    impl, c = entry["implementation"], entry["combined_patch"]
    version = version_of(doc, entry)
    groups = families(findings_of(doc, impl))
    issues = [first(g, "issue") or {} for g in groups]
    lib = next((i["library"] for i in issues if i.get("library")), impl)
    fams = c.get("families", [])
    kinds = [i.get("kind") for g, i in zip(groups, issues) if g[0]["family"] in fams]
    what = f"{len(fams)} chrF findings"
    if all(kinds):
        n_def, n_bug = sum(k == "definition difference" for k in kinds), sum(k == "bug" for k in kinds)
        parts = ([f"{n_def} definition difference{'s' if n_def != 1 else ''} behind keywords"] if n_def else []) + \
                ([f"{n_bug} bug{'s' if n_bug != 1 else ''}"] if n_bug else [])
        what += f" ({', '.join(parts)})" if parts else ""
    lines = [f"# {lib}{' ' + version if version else ''}: one patch for the {what}", ""]
    lines += ["It covers, each described with its repro in its own issue:", ""]
    paths = issue_paths(doc)
    here = f"issues/{entry['report'][:-3]}/"
    for group, anchor in zip(groups, anchors(groups)):
        if group[0]["family"] in fams:
            i = first(group, "issue") or {}
            name = f"{i['kind']}: {i['title']}" if i.get("title") else md_cell(group[0]["title"])
            path = paths.get((impl, anchor))
            if i.get("filed") is False or path is None:  # no issue of its own: say why instead of linking
                lines.append(f"- {name} (`{group[0]['family']}`: not filed on its own, {i.get('not_filed')})")
            else:
                link = path[len(here):] if path.startswith(here) else f"../../{path}"
                lines.append(f"- [{name}]({link})")
    ver = c.get("verification")
    status = (T.checked(ver, lib, version, fams) if ver is not None else
              {True: "Checked: on a patched copy of the released package every one of these repros agrees with the "
                     "definition.", False: "**Not verified.**", None: ""}[c.get("verified")])
    lines += [""] + ([status, ""] if status else []) + md_fence(c["diff"], "diff") + [""]
    lines += [f"<sub>Found by a differential audit against an exact chrF reference (chrf-audit "
              f"{doc['environment']['chrf_audit']}).</sub>", ""]
    return visible("\n".join(lines))
