"""One pasteable upstream issue per (implementation, family): ``issues/<report>/<family>.md``.

Written for a maintainer who has never heard of chrf-audit: a title, the versions, a minimal
repro that imports only their library, expected against actual with the definition cited,
the root-cause line and the suggested patch, in about 80 lines.  A view of the document
(audit.json) like every other renderer: its numbers are the document's.
"""

from __future__ import annotations

from ._doc import anchors, claims_text, families, findings_of, first, marked_line, source_where, version_of
from ._text import md_code, num, repro_text, visible
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
    got = f"`{raw}`" if raw is not None else (f"outcome `{m['outcome']}`" + (f" ({m['detail']})" if m.get("detail") else ""))
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
    title = f0.get("title") or f0["family"]
    title = title[0].upper() + title[1:]
    lines = [f"# {impl}{' ' + version if version else ''}: {title}", ""]
    claims = claims_text(f0.get("claims") or {})
    lines += [f"**Versions:** {impl} {version or '(version unknown)'}, {doc['environment']['python']}. "
              f"**Parameters:** {claims or 'the defaults'}.", ""]
    shown = next((f for f in group if f.get("snippet")), f0)
    lines += [f"## Minimal repro ({shown['level']} level; it needs only {impl})", ""]
    if shown.get("snippet"):
        lines += [f"```{shown.get('snippet_language', 'python')}", shown["snippet"].rstrip("\n"), "```", ""]
    lines += _expected_actual(shown) + [""]
    for f in group:
        if f is not shown:
            m = f["minimal"]
            lines += [f"At the {f['level']} level: {md_code(repro_text(m['inputs']))} gives "
                      f"{num(m['actual']) if m.get('actual') is not None else m['outcome']} instead of "
                      f"{num(m['expected'])} (the same bug; its repro is in the same form).", ""]
    rc = first(group, "root_cause")
    lines += ["## Root cause", ""]
    if rc:
        where = source_where(rc)
        code = marked_line(rc.get("excerpt") or "")
        if code and _removed_by(first(group, "patch"), code):
            # the diff below shows that line with its context: the excerpt would repeat it
            lines += [f"{where}: {md_code(code)}" + (f" — {rc['why']}" if rc.get("why") else "")
                      + ". The patch below replaces this line.", ""]
        else:
            lines += [f"{where}" + (f": {rc['why']}." if rc.get("why") else "."), ""]
            if rc.get("excerpt"):
                lines += ["```python", rc["excerpt"], "```", ""]
    else:
        lines += ["Not located in the installed source.", ""]
    patch = first(group, "patch")
    if patch:
        status = {True: " (checked: on a patched copy of the released package the repro above agrees with the "
                        "definition, and a differential audit of the copy finds no new divergence)",
                  False: " (not confirmed: on a patched copy the repro still diverges or another divergence appears)",
                  None: ""}[patch.get("verified")]
        what = patch.get("description")
        lines += [f"**Suggested patch**{status}" + (f": {what[0].upper() + what[1:]}." if what else "."), ""]
        fence = "~~~~" if "```" in patch["diff"] else "```"
        lines += [f"{fence}diff", patch["diff"].rstrip("\n"), fence, ""]
    else:
        lines += ["**Suggested patch:** none.", ""]
    lines += [f"<sub>Found by a differential audit against an exact chrF reference (chrf-audit "
              f"{doc['environment']['chrf_audit']}).</sub>", ""]
    return visible("\n".join(lines))


def render_combined(doc: dict, entry: dict) -> str:
    """The combined patch as one pasteable issue: every family it fixes, each linked to its own."""
    impl, c = entry["implementation"], entry["combined_patch"]
    version = version_of(doc, entry)
    groups = families(findings_of(doc, impl))
    lines = [f"# {impl}{' ' + version if version else ''}: one patch for {len(c.get('families', []))} chrF bugs", ""]
    lines += ["It fixes, each described with its repro in its own issue:", ""]
    for group, anchor in zip(groups, anchors(groups)):
        if group[0]["family"] in c.get("families", []):
            lines.append(f"- [{group[0]['title']}]({anchor}.md)")
    status = {True: "Checked: on a patched copy of the released package every one of these repros agrees with the "
                    "definition, and a differential audit of the copy finds no new divergence.",
              False: "Not confirmed: on a patched copy a repro still diverges or another divergence appears.",
              None: ""}[c.get("verified")]
    fence = "~~~~" if "```" in c["diff"] else "```"
    lines += [""] + ([status, ""] if status else []) + [f"{fence}diff", c["diff"].rstrip("\n"), fence, ""]
    lines += [f"<sub>Found by a differential audit against an exact chrF reference (chrf-audit "
              f"{doc['environment']['chrf_audit']}).</sub>", ""]
    return visible("\n".join(lines))


def render(doc: dict) -> dict[str, bytes]:
    """{"issues/<report>/<family>.md": bytes} for every family of every implementation."""
    out: dict[str, bytes] = {}
    for entry in doc["implementations"]:
        groups = families(findings_of(doc, entry["implementation"]))
        for group, anchor in zip(groups, anchors(groups)):  # unexplained, unexplained-1, ...
            out[issue_path(entry, anchor)] = render_issue(doc, entry, group).encode("utf-8", "backslashreplace")
        if entry.get("combined_patch"):
            out[combined_path(entry)] = render_combined(doc, entry).encode("utf-8", "backslashreplace")
    return out
