"""One pasteable upstream issue per (implementation, family): ``issues/<report>/<family>.md``.

Written for a maintainer who has never heard of chrf-audit: a title, the versions, a minimal
repro that imports only their library, expected against actual with the definition cited,
the root-cause line and the suggested patch, in about 80 lines.  A view of the document
(audit.json) like every other renderer: its numbers are the document's.
"""

from __future__ import annotations

from ._doc import anchors, claims_text, families, findings_of, first, marked_line, source_where, version_of
from . import issue_text as T
from ._text import md_cell, md_code, md_fence, num, repro_text, visible
from .markdown import combined_path, issue_path


def _removed_by(patch, code: str) -> bool:
    """Whether ``code`` (a root-cause line) is a line the patch's diff removes."""
    return bool(patch) and any(line.startswith("-") and not line.startswith("---") and line[1:].strip() == code
                               for line in patch["diff"].splitlines())

#: What "expected" means, per definition the implementation claims, with the source to cite.
CITATIONS = {
    "sacrebleu": "chrF (Popović 2015, \"chrF: character n-gram F-score for automatic MT evaluation\", WMT) as "
                 "sacreBLEU >= 2.0 computes it (`CHRF()`): character n-grams of the text with whitespace removed, "
                 "precision and recall averaged over the effective orders (those with n-grams on both sides), "
                 "score = 100 * F-beta of the two averages; a corpus score is computed from the statistics summed "
                 "over its segments",
    "sacrebleu-eps": "chrF as sacreBLEU computes it with `CHRF(eps_smoothing=True)`: per order, precision and "
                     "recall (1e-16 where an order has no n-gram), F-beta per order, score = 100 * the mean of the "
                     "per-order F over all requested orders; a corpus score from the summed statistics",
    "chrfpp": "chrF++ as Popović's reference script chrF++.py computes it (Popović 2017, \"chrF++: words helping "
              "character n-grams\", WMT): 100 * the mean over all requested orders of the per-order F-beta, an "
              "order without a match contributing 0",
}


def _definition(f: dict) -> str:
    claims = f.get("claims") or {}
    return CITATIONS.get(claims.get("definition"), "the chrF definition the implementation claims")


def _expected_actual(f: dict) -> list[str]:
    m = f["minimal"]
    raw = m.get("actual_raw")
    got = md_code(raw) if raw is not None else (f"outcome {md_code(m['outcome'])}"
                                                + (f" ({md_cell(m['detail'])})" if m.get("detail") else ""))
    scale = "" if raw is None or m.get("actual") is None else f" ({num(m['actual'])} on the 0..100 scale)"
    if f.get("expected_source") == "implementation":
        exp = (f"its own score before the transformation, {num(m['expected'])} (the exact reference gives "
               f"`{f['reference_fraction']}` = {num(f['reference_value'])})")
    else:
        exp = f"exactly `{m['expected_fraction']}` = {num(m['expected'])} on the 0..100 scale"
    return [f"- **Inputs** (invisible characters escaped): {md_code(repro_text(m['inputs']))}",
            f"- **Actual:** {got}{scale}",
            f"- **Expected:** {exp}",
            f"- **Definition:** {_definition(f)}."]


def render_issue(doc: dict, entry: dict, group: list[dict]) -> str:
    impl = entry["implementation"]
    version = version_of(doc, entry)
    f0 = group[0]
    issue = first(group, "issue")
    patch = first(group, "patch")
    verification = (patch or {}).get("verification")
    lines = [f"# {T.title(impl, version, issue, f0.get('title') or f0['family'])}", ""]
    data = (entry.get("impact") or {}).get("data") if isinstance(entry.get("impact"), dict) else None
    lines += T.standing(issue, T.severity(first(group, "impact"), data))
    claims = f0.get("claims") or {}
    params = T.library_params(claims, issue)
    held = f"definition={claims['definition']}" if claims.get("definition") else ""
    lines += [f"**Environment:** {T.environment(impl, version, doc['environment'], issue)}. "
              f"**Parameters:** {params or 'the defaults'}" + (f" (held to {held})" if held else "") + ".", ""]
    shown = next((f for f in group if f.get("snippet")), f0)
    alt = (issue or {}).get("repro")
    lib = (issue or {}).get("library") or impl
    lines += [f"## Repro ({(alt or shown)['level']} level; it needs only {lib})", ""]
    own = (issue or {}).get("snippet")  # a script's repro through its own command line
    snippet = alt["snippet"] if alt else own or shown.get("snippet")
    if snippet:
        lang = "sh" if own and not alt else shown.get("snippet_language", "python")
        lines += md_fence(snippet, lang) + [""]
    lines += (_alt_expected_actual(alt, shown) if alt else _expected_actual(shown)) + [""]
    for f in group:
        if f is not shown and not alt:
            m = f["minimal"]
            lines += [f"At the {f['level']} level: {md_code(repro_text(m['inputs']))} gives "
                      f"{num(m['actual']) if m.get('actual') is not None else m['outcome']} instead of "
                      f"{num(m['expected'])} (its repro is in the same form).", ""]
    for also in (issue or {}).get("also") or []:
        lines += [f"The same root cause also shows as `{also['family']}` ({also['level']} level): "
                  f"{also['title'][0].lower() + also['title'][1:]}:", ""]
        if also.get("snippet"):
            lines += md_fence(also["snippet"], "sh") + [""]
    rc = first(group, "root_cause")
    lines += ["## Root cause", ""]
    if rc:
        where = source_where(rc)
        code = marked_line(rc.get("excerpt") or "")
        if code and _removed_by(patch, code):
            # the diff below shows that line with its context: the excerpt would repeat it
            lines += [f"{where}: {md_code(code)}" + (f" — {rc['why']}" if rc.get("why") else "")
                      + ". The patch below replaces this line.", ""]
        else:
            lines += [f"{where}" + (f": {rc['why']}." if rc.get("why") else "."), ""]
            if rc.get("excerpt"):
                lines += md_fence(rc["excerpt"], "python") + [""]
    else:
        lines += ["Not located in the installed source.", ""]
    if patch:
        what = patch.get("description")
        lines += ["## Suggested patch", ""]
        if what:
            lines += [what[0].upper() + what[1:] + ".", ""]
        option = (issue or {}).get("option")
        lines += [T.checked(verification, lib, version, f0["family"], option) if verification is not None else
                  {True: "Checked: on a patched copy of the released package the repro above agrees with the definition.",
                   False: "**Not verified.**", None: "Not checked (verification not run)."}[patch.get("verified")], ""]
        lines += md_fence(patch["diff"], "diff") + [""]
        if (issue or {}).get("default_change"):
            lines += [issue["default_change"], ""]
    else:
        lines += ["**Suggested patch:** none.", ""]
    lines += T.related((issue or {}).get("related") or [])
    lines += [f"<sub>Found by a differential audit against an exact chrF reference (chrf-audit "
              f"{doc['environment']['chrf_audit']}).</sub>", ""]
    return visible("\n".join(lines))


def _alt_expected_actual(alt: dict, shown: dict) -> list[str]:
    """The issue's repro when it is not the audit's minimal one (that one does not hold
    after the family's patch alone: another family starts to matter on it)."""
    m = shown["minimal"]
    return [f"- **Inputs** (invisible characters escaped): {md_code(repro_text(alt['inputs']))}",
            f"- **Actual:** {md_code(alt['before_raw'])}" + (f" ({num(alt['before'])} on the 0..100 scale)"
                                                     if alt.get("before") is not None else ""),
            f"- **Expected:** exactly `{alt['expected_fraction']}` = {num(alt['expected'])} on the 0..100 scale",
            f"- **Definition:** {_definition(shown)}.",
            f"- The audit's smallest input, {md_code(repro_text(m['inputs']))}, shows it too, but after this "
            f"issue's patch alone another difference starts to matter on it; on the input above every other "
            f"difference is inert before and after the patch."]


def render_combined(doc: dict, entry: dict) -> str:
    """The combined patch as one pasteable issue: every family it fixes, each linked to its own."""
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
    for group, anchor in zip(groups, anchors(groups)):
        if group[0]["family"] in fams:
            i = first(group, "issue") or {}
            name = f"{i['kind']}: {i['title']}" if i.get("title") else md_cell(group[0]["title"])
            if i.get("filed") is False:  # no issue of its own: say why instead of linking
                lines.append(f"- {name} (`{group[0]['family']}`: not filed on its own, {i.get('not_filed')})")
            else:
                lines.append(f"- [{name}]({anchor}.md)")
    ver = c.get("verification")
    status = (T.checked(ver, lib, version, None, None) if ver is not None else
              {True: "Checked: on a patched copy of the released package every one of these repros agrees with the "
                     "definition.", False: "**Not verified.**", None: ""}[c.get("verified")])
    lines += [""] + ([status, ""] if status else []) + md_fence(c["diff"], "diff") + [""]
    lines += [f"<sub>Found by a differential audit against an exact chrF reference (chrf-audit "
              f"{doc['environment']['chrf_audit']}).</sub>", ""]
    return visible("\n".join(lines))


def render(doc: dict) -> dict[str, bytes]:
    """{"issues/<report>/<family>.md": bytes} for every family of every implementation."""
    out: dict[str, bytes] = {}
    for entry in doc["implementations"]:
        groups = families(findings_of(doc, entry["implementation"]))
        for group, anchor in zip(groups, anchors(groups)):  # unexplained, unexplained-1, ...
            if (first(group, "issue") or {}).get("filed", True) is False:
                continue  # fixed upstream after the audited release, or negligible: the report says so
            out[issue_path(entry, anchor)] = render_issue(doc, entry, group).encode("utf-8", "backslashreplace")
        if entry.get("combined_patch"):
            out[combined_path(entry)] = render_combined(doc, entry).encode("utf-8", "backslashreplace")
    return out
