"""One pasteable upstream issue per fix: ``issues/<report>/<first family>.md`` (``issue_units``).

Written for a maintainer who has never heard of chrf-audit: a title, the versions, a minimal
repro per family (and per configuration) that imports only their library, expected against
actual with the definition cited, the root-cause line and the suggested patch with what was
checked (its repros run on the patched copy, the library's tests and gates), the patches it
stacks with, related upstream discussion quoted.  A view of the document (audit.json) like
every other renderer: its numbers are the document's.
"""

from __future__ import annotations

from ._doc import first, marked_line, source_where, version_of
from . import issue_text as T
from ._text import md_cell, md_code, md_fence, num, repro_text, visible
from .issue_combined import render_combined
from .issue_units import issue_units
from .markdown_patches import combined_path

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


def _removed_by(patch, code: str) -> bool:
    """Whether ``code`` (a root-cause line) is a line the patch's diff removes."""
    return bool(patch) and any(line.startswith("-") and not line.startswith("---") and line[1:].strip() == code
                               for line in patch["diff"].splitlines())


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


def _repro(group: list[dict], lib: str, heading) -> list[str]:
    """A family's repro (the issue's when the minimal one does not hold after the patch), its
    numbers, and its other level in one line."""
    issue = first(group, "issue") or {}
    shown = next((f for f in group if f.get("snippet")), group[0])
    alt, own = issue.get("repro"), issue.get("snippet")  # own: a script's repro through its command line
    lines = [f"{heading} ({(alt or shown)['level']} level; it needs only {lib})", ""] if heading else []
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
    for also in issue.get("also") or []:
        lines += [f"The same root cause also shows as `{also['family']}` ({also['level']} level): "
                  f"{also['title'][0].lower() + also['title'][1:]}" + (f" ({also['evidence']})" if also.get("evidence")
                                                                         else "") + ":", ""]
        if also.get("snippet"):
            lines += md_fence(also["snippet"], "sh") + [""]
    return lines


def _root_cause(group: list[dict], patch, heading: str) -> list[str]:
    rc = first(group, "root_cause")
    lines = [heading, ""] if heading.startswith("#") else []
    lead = "" if heading.startswith("#") else f"{heading} "
    if not rc:
        return lines + [f"{lead}Not located in the installed source.", ""]
    where = source_where(rc)
    code = marked_line(rc.get("excerpt") or "")
    if code and _removed_by(patch, code):  # the diff below shows that line with its context
        return lines + [f"{lead}{where}: {md_code(code)}" + (f" — {rc['why']}" if rc.get("why") else "")
                        + ". The patch below replaces this line.", ""]
    lines += [f"{lead}{where}" + (f": {rc['why']}." if rc.get("why") else "."), ""]
    if rc.get("excerpt"):
        lines += md_fence(rc["excerpt"], "python") + [""]
    return lines


def _head(sections: list) -> dict:
    """The issue's own facts: the patch's issue note when it fixes several families, else the
    family's."""
    issue = first(sections[0][1], "issue") or {}
    note = issue.get("issue_note")
    return {**issue, **{k: note[k] for k in ("kind", "title", "function", "lead", "consequence", "default_change")},
            "regression": None} if note else issue


def _params(sections: list) -> str:
    texts = []
    for entry, group, _ in sections:
        claims = group[0].get("claims") or {}
        params = T.library_params(claims, first(group, "issue"))
        held = f"definition={claims['definition']}" if claims.get("definition") else ""
        texts.append((entry["implementation"], (params or "the defaults") + (f" (held to {held})" if held else "")))
    if len({t for _, t in texts}) == 1:
        return texts[0][1]
    return "; ".join(f"{impl}: {t}" for impl, t in texts)


def _sections(sections: list, lib: str) -> list[str]:
    """Several families (or configurations) of one patch: each with its repro and root cause
    (and its severity, from the impact study, when there is one)."""
    by_family = len({g[0]["family"] for _, g, _ in sections}) > 1
    lines = [f"## The {len(sections)} {'differences' if by_family else 'configurations'}, each with its repro "
             f"(it needs only {lib})", ""]
    for entry, group, _ in sections:
        issue = first(group, "issue") or {}
        data = (entry.get("impact") or {}).get("data") if isinstance(entry.get("impact"), dict) else None
        severity = T.severity(first(group, "impact"), data)
        if by_family:
            lines += [f"### `{group[0]['family']}`: {issue.get('title') or group[0].get('title')}", ""]
            lines += [issue["lead"], ""] if issue.get("lead") else []
            lines += [f"**Severity:** {severity}.", ""] if severity else []
        else:
            lines += [f"### {entry['implementation']}: {T.library_params(group[0].get('claims') or {}, issue)}", ""]
        lines += _repro(group, lib, None)
        lines += _root_cause(group, first(group, "patch"), "**Root cause:**")
    return lines


def _patch(doc: dict, unit: dict, lib: str, version) -> list[str]:
    sections = unit["sections"]
    patch = first(sections[0][1], "patch")
    lines = ["## Suggested patch", ""]
    if patch.get("description"):
        lines += [patch["description"][0].upper() + patch["description"][1:] + ".", ""]
    issue = first(sections[0][1], "issue") or {}
    note = issue.get("issue_note") or {}
    families = list(dict.fromkeys(g[0]["family"] for _, g, _ in sections))
    afters = [a for a in ((first(g, "issue") or {}).get("after_snippet") for _, g, _ in sections) if a]
    for entry, group, _ in _by_verification(sections):
        ver = (first(group, "patch") or {}).get("verification")
        who = f"For {entry['implementation']}: " if len(sections) > 1 and not issue.get("issue_note") else ""
        lines += [who + T.checked(ver, lib, version, families, after=bool(afters), check=bool(note.get("check"))), ""]
    if note.get("combination"):
        lines += [f"Together, the keywords are {note['combination']}.", ""]
    if afters:
        lines += ["On the patched copy, with the patch's keywords in each call:", ""]
        lines += md_fence("\n\n".join(a.rstrip("\n") for a in afters), "python") + [""]
    output = issue.get("check_output")
    if note.get("check") and output:
        lines += ["The check, run on the patched copy (it needs sacrebleu too):", ""] + md_fence(note["check"], "python")
        lines += ["", "It prints:", ""] + md_fence("\n".join(output), "text") + [""]
    lines += _stacking(doc, unit)
    lines += md_fence(patch["diff"], "diff") + [""]
    change = note.get("default_change") or issue.get("default_change")
    if change:
        lines += [change, ""]
    return lines


def _by_verification(sections: list) -> list:
    """One section per distinct verification (a patch fixing several families of one
    implementation is verified once)."""
    out, seen = [], []
    for entry, group, anchor in sections:
        ver = (first(group, "patch") or {}).get("verification")
        if ver not in seen:
            seen.append(ver)
            out.append((entry, group, anchor))
    return out


def _stacking(doc: dict, unit: dict) -> list[str]:
    """The other filed patches of the implementation this one stacks with."""
    entry, group, _ = unit["sections"][0]
    stack = entry.get("patch_stacking")
    mine = {g[0]["family"] for _, g, _ in unit["sections"]}
    if not stack:
        return []
    others = [u for u in issue_units(doc) if u["path"] != unit["path"] and u["sections"][0][0] is entry
              and any(set(p) & {g[0]["family"] for _, g, _ in u["sections"]} for p in stack["patches"])]
    if not others or not any(set(p) & mine for p in stack["patches"]):
        return []
    links = ", ".join(f"[{u['path'].rsplit('/', 1)[-1]}]({u['path'].rsplit('/', 1)[-1]})" for u in others)
    if stack["applies"] and stack["same"]:
        return [f"It stacks with the patch of {links}: applied to the released source one after the other, in each "
                f"of the {stack['orders']} orders, the patches apply and give the same file.", ""]
    return [f"It does not stack with the patch of {links}: applied one after the other, they conflict.", ""]


def render_unit(doc: dict, unit: dict) -> str:
    sections = unit["sections"]
    entry, group, _ = sections[0]
    impl, version = entry["implementation"], version_of(doc, entry)
    head = _head(sections)
    lib = head.get("library") or impl
    lines = [f"# {T.title(impl, version, head, group[0].get('title') or group[0]['family'])}", ""]
    data = (entry.get("impact") or {}).get("data") if isinstance(entry.get("impact"), dict) else None
    lines += T.standing(head, T.severity(first(group, "impact"), data) if len(sections) == 1 else None)
    lines += [f"**Environment:** {T.environment(impl, version, doc['environment'], head)}. "
              f"**Parameters:** {_params(sections)}.", ""]
    if len(sections) == 1:
        lines += _repro(group, lib, "## Repro")
        lines += _root_cause(group, first(group, "patch"), "## Root cause")
    else:
        lines += _sections(sections, lib)
    if first(group, "patch"):
        lines += _patch(doc, unit, lib, version)
    else:
        lines += ["**Suggested patch:** none.", ""]
    related = []
    for _, g, _ in sections:
        related += [r for r in (first(g, "issue") or {}).get("related") or [] if r not in related]
    lines += T.related(_ordered(related, head))
    lines += [f"<sub>Found by a differential audit against an exact chrF reference (chrf-audit "
              f"{doc['environment']['chrf_audit']}).</sub>", ""]
    return visible("\n".join(lines))


def _ordered(records: list, head: dict) -> list:
    """The issue note's related records first, in its order."""
    want = [tuple(r) for r in ((head.get("issue_note") or {}).get("related") or [])]
    key = {w: i for i, w in enumerate(want)}
    return sorted(records, key=lambda r: key.get((r["repository"], r["number"]), len(key)))


def render(doc: dict) -> dict[str, bytes]:
    """{"issues/<report>/<first family>.md": bytes}: one file per fix, and each combined patch."""
    out: dict[str, bytes] = {}
    for unit in issue_units(doc):
        out[unit["path"]] = render_unit(doc, unit).encode("utf-8", "backslashreplace")
    for entry in doc["implementations"]:
        if entry.get("combined_patch"):
            out[combined_path(entry)] = render_combined(doc, entry).encode("utf-8", "backslashreplace")
    return out
