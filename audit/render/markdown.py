"""The markdown report of one implementation: a view of the document (audit.json).

Made to be read in minutes: the conformance matrix and the environment first, a summary row
per finding, then each family once with its levels side by side (one table: repro, exact
expected, actual, difference, evidence), its runnable repros (one block), scope, root-cause
line and patch status.  Long material (per-order tables, full sweeps) is folded in
``<details>``, and said once: a per-order table both levels share, a run of sweep inputs with
the same result; the diff and the source excerpt around the root-cause line live in the
pasteable upstream issue ``issues/<implementation>/<family>.md`` beside the report
(``issues.py``), which the report links.  Nothing
machine-specific (platform, CPU) is printed: those facts stay in audit.json, so the report
regenerates byte for byte on any machine.
"""

from __future__ import annotations

from typing import Optional

from ._doc import (DEFINITIONS, LEVELS, actual_text, anchors, claims_text, distinct, families, findings_of,
                   first, is_metamorphic, largest_text, marked_line, source_where, version_of)
from ._text import (REPRO_KEY, corpus_repro, escape, fit_line, md_cell, md_code, md_fence, md_table, num,
                    repro_text, signed, visible)
from .contract_table import markdown_lines as contract_markdown
from .impact_markdown import impact_lines
from .issue_units import issue_path, issue_paths
from .markdown_patches import combined_lines, patch_section, patch_short

def _verdict(conf: Optional[dict], definition: str, level: str) -> str:
    if not conf or definition not in conf or level not in (conf.get(definition) or {}):
        return "not audited"
    fams = conf[definition][level]
    if not fams:
        return "✅ meets"
    return "❌ does not meet: " + ", ".join(f"`{f}`" for f in fams)


def conformance_matrix(entry: dict) -> list[str]:
    conf = entry.get("conformance")
    rows = [[f"`{d}`"] + [_verdict(conf, d, lv) for lv in LEVELS] for d in DEFINITIONS]
    return md_table(["Definition", "Sentence level", "Corpus level"], rows) + _conformance_notes(entry)


def _conformance_notes(entry: dict) -> list[str]:
    """What every family of the matrix is: a finding's family has its section below; the
    others break a definition the implementation does not claim, and are said here."""
    titles = entry.get("conformance_titles") or {}
    if not titles:
        return []
    claimed = (entry.get("claims") or {}).get("definition")
    items = [f"`{f}`: {md_cell(t)}" for f, t in titles.items()]
    found = " Each other family is a finding, with its section below." if entry.get("families") else ""
    return ["", f"In the rows of definitions other than the claimed {md_cell(str(claimed))} (the audit's inputs "
                "re-scored under each definition and classified), the families that are no finding of this audit, "
                "each title's \"claimed definition\" being its row's: " + "; ".join(items) + "." + found]


def _orders_table(rows: list[dict]) -> list[str]:
    """Per-order statistics; a run of orders with no n-gram on either side is one row
    ("char 2–6"), every column of which is the same for each of them."""
    def ratio(x):
        return "—" if x is None else f"`{x}`"

    merged: list[tuple[dict, dict]] = []
    for r in rows:
        empty = r["hyp"] == r["ref"] == r["match"] == 0 and not r["effective"]
        if merged and empty and merged[-1][1]["kind"] == r["kind"] and merged[-1][1]["n"] + 1 == r["n"] and (
                merged[-1][1]["hyp"] == merged[-1][1]["ref"] == merged[-1][1]["match"] == 0
                and not merged[-1][1]["effective"]):
            merged[-1] = (merged[-1][0], r)
        else:
            merged.append((r, r))
    body = [[f"{a['kind']} {a['n']}" + (f"–{b['n']}" if b is not a else ""), str(a["hyp"]), str(a["ref"]),
             str(a["match"]), ratio(a["precision"]), ratio(a["recall"]), ratio(a["f"]),
             "yes" if a["effective"] else "no"] for a, b in merged]
    return md_table(["Order", "Hyp n-grams", "Ref n-grams", "Matches", "Precision", "Recall", "F", "Effective"],
                    body, ["---", "---:", "---:", "---:", "---:", "---:", "---:", "---"])


def _inputs(m: dict) -> str:
    """The whole input, escaped (``_text.escape``: what a reader cannot see, as \\uXXXX)."""
    return md_code(repro_text(m["inputs"]))


def _levels_table(entry: dict, group: list[dict]) -> list[str]:
    impl = md_cell(entry["implementation"])
    rows: dict[str, list[str]] = {}

    def put(label: str, i: int, value: str) -> None:
        rows.setdefault(label, ["—"] * len(group))[i] = value

    for i, f in enumerate(group):
        m = f["minimal"]
        put("Minimal repro (escaped)", i, _inputs(m))
        if f.get("expected_source") == "implementation":
            put(f"Expected ({impl}'s own score before the transformation)", i, repr(m["expected"]))
            put("Reference on this input", i, f"{md_code(f['reference_fraction'])} = {f['reference_value']!r}")
        else:
            put("Expected (reference, exact)", i, f"{md_code(m['expected_fraction'])} = {m['expected']!r}")
        actual = repr(m["actual"]) if m["actual"] is not None else "no number"
        if m.get("actual_raw") is not None:
            actual += f" (returned {md_code(m['actual_raw'])} on its own scale)"
        if m["outcome"] != "value":
            actual += f" — outcome {md_code(m['outcome'])}" + (f": {md_cell(m['detail'], 200)}" if m.get("detail") else "")
        put(f"Actual ({impl})", i, actual)
        put("Difference", i, signed(m.get("difference"), 10))
        expl = f.get("explanation") or m.get("explanation")
        if expl and expl != [f["family"]]:
            put("Deviations that reproduce it exactly", i, ", ".join(f"`{e}`" for e in expl))
        if f.get("evidence"):
            put("Why this name", i, md_cell(f["evidence"]))
        put("Inputs in this family", i, f"{f.get('examples', 0)} (first from {md_cell(f.get('origin', 'search'))})")
        largest = largest_text(f, md_code)
        if largest:
            put("Largest difference seen (this family alone)", i, largest)
        if f.get("flaky"):
            put("Flaky", i, "⚠ the minimal repro did not reproduce on replay")
    head = [""] + [f"{f['level'].capitalize()} level" for f in group]
    return md_table(head, [[label] + vals for label, vals in rows.items()])


def _snippets(group: list[dict]) -> list[str]:
    """The family's runnable repros: one code block per language, each level's snippet whole
    (it runs alone), one after the other (the block runs as one program too).  When the issue's
    repro is not the minimal one (which does not hold after the family's patch alone), the
    issue's is shown, as in the issue file."""
    alt = (first(group, "issue") or {}).get("repro")
    if alt:
        return [f"Repro at the {alt['level']} level, as in the upstream issue (the minimal repros above show the "
                "family too, but after its patch alone another difference starts to matter on them):", "",
                f"```{group[0].get('snippet_language', 'python')}", alt["snippet"].rstrip("\n"), "```", ""]
    lines: list[str] = []
    langs: dict[str, list[dict]] = {}
    for f in group:
        if f.get("snippet"):
            langs.setdefault(f.get("snippet_language", "python"), []).append(f)
    for lang, fs in langs.items():
        levels = " and ".join(f["level"] for f in fs)
        lines += [f"Repro at the {levels} level{'s' if len(fs) > 1 else ''}:", ""]
        lines += md_fence("\n\n".join(f["snippet"].rstrip("\n") for f in fs), lang) + [""]
    return lines


def _orders(entry: dict, group: list[dict]) -> list[str]:
    body: list[str] = []
    shown: list[tuple[list, list[str]]] = []  # a table the levels share is shown once
    for f in group:
        m = f["minimal"]
        if m.get("orders"):
            same = next((levels for orders, levels in shown if orders == m["orders"]), None)
            if same is not None:
                same.append(f["level"])
            else:
                shown.append((m["orders"], [f["level"]]))
    for orders, levels in shown:
        title = " and ".join(levels).capitalize() + (" levels (the same statistics)" if len(levels) > 1 else " level")
        body += [f"{title}, the reference:", ""] + _orders_table(orders) + [""]
    for f in group:
        m = f["minimal"]
        if m.get("impl_orders"):
            body += [f"{f['level'].capitalize()} level, as computed by {md_cell(entry['implementation'])}:", ""]
            body += _orders_table(m["impl_orders"]) + [""]
    if not body:
        return []
    return ["<details><summary>Per-order statistics of the minimal repros</summary>", ""] + body + ["</details>", ""]


def _runs(rows: list[dict]) -> list[list[dict]]:
    """The sweep's rows in runs of consecutive inputs with the same expected and actual score
    (29 whitespace code points are 3 runs): every input stays named by its x."""
    runs: list[list[dict]] = []
    for r in rows:
        if runs and (runs[-1][-1]["expected"], runs[-1][-1]["actual"], runs[-1][-1]["difference"]) == (
                r["expected"], r["actual"], r["difference"]):
            runs[-1].append(r)
        else:
            runs.append([r])
    return runs


def _xs(xs: list) -> str:
    """A run's x values: ``6–10`` for consecutive integers, each one listed otherwise."""
    if len(xs) > 2 and all(type(x) is int for x in xs) and xs == list(range(xs[0], xs[0] + len(xs))):
        return f"{xs[0]}–{xs[-1]}"
    return ", ".join(str(x) for x in xs)


def _scope(entry: dict, group: list[dict]) -> list[str]:
    impl = md_cell(entry["implementation"])
    scopes = distinct(group, "scope")
    if not scopes:
        return ["**Scope:** no scope sweep is known for this implementation and family.", ""]
    lines: list[str] = []
    for fs, sweep in scopes:
        where = "" if len(scopes) == 1 else f" ({', '.join(f['level'] for f in fs)} level)"
        lines += [f"**Scope{where}:** {md_cell(sweep['dimension'])}, scored by {impl} (through its isolated adapter) "
                  f"and by the reference: {sweep['diverging']} of {len(sweep['rows'])} inputs diverge.", ""]
        chart = first(fs, "chart")
        if chart:
            lines += [f"![{impl} scope chart]({chart})", ""]
        body = []
        for run in _runs(sweep["rows"]):
            r, diff = run[0], run[0]["difference"]
            flag = "" if diff is not None and abs(diff) <= 1e-9 else " ⚠"
            inputs = md_code(repro_text(r["inputs"]))
            if len(run) > 1:
                inputs += (" … " if len(run) > 2 else ", ") + md_code(repro_text(run[-1]["inputs"]))
            body.append([md_cell(_xs([row["x"] for row in run])), inputs, num(r["expected"], 8),
                         num(r["actual"], 8), signed(diff) + flag])
        lines += ["<details><summary>The sweep (consecutive inputs with the same result share a row)</summary>", ""]
        lines += md_table([md_cell(sweep["x_label"]), "Input", "Expected", "Actual", "Difference"], body,
                          ["---", "---", "---:", "---:", "---:"]) + ["", "</details>", ""]
    return lines


def _root_cause(entry: dict, group: list[dict], version: Optional[str]) -> list[str]:
    causes = distinct(group, "root_cause")
    if not causes:
        return ["**Root cause:** not located in the installed source.", ""]
    lines: list[str] = []
    for fs, rc in causes:
        where = source_where(rc)
        levels = "" if len(causes) == 1 else f" ({', '.join(f['level'] for f in fs)} level)"
        text = f"**Root cause{levels}:** {where} (installed {md_cell(entry['implementation'])}{' ' + version if version else ''})"
        code = marked_line(rc.get("excerpt") or "")
        text += f": {md_code(code)}" if code else ""
        if rc.get("why"):
            text += f" — {rc['why']}"
        lines += [text + ".", ""]  # the excerpt around it is in the family's upstream issue
    return lines


def _standing(group: list[dict]) -> list[str]:
    """Where the family stands against what the library documents (its upstream issue's
    facts), and why it is not filed when it is not."""
    issue = first(group, "issue") or {}
    out = []
    if issue.get("kind"):
        out.append(f"**Against {md_cell(issue['library'])}'s documentation:** {issue['kind']}: "
                   f"{md_cell(issue['title'])}.")
    reg = issue.get("regression")
    if reg:
        out.append(f"**Regression since {reg['introduced']}** ({reg['last_good']} correct).")
    if issue.get("filed") is False:
        fixed = issue.get("fixed_upstream")
        where = (f" ({fixed['repository']}#{fixed['number']}" + (f", \"{md_cell(fixed['title'])}\"" if fixed.get("title") else "")
                 + ")") if fixed else ""
        out.append(f"**Not filed:** {md_cell(issue['not_filed'])}{where}.")
    return [" ".join(out), ""] if out else []


def _family_section(entry: dict, group: list[dict], path: str, version: Optional[str]) -> list[str]:
    f0 = group[0]
    lines = [f"## `{f0['family']}`", "", f"**What is wrong:** {md_cell(f0.get('title') or f0['family'])}.", ""]
    lines += _standing(group)
    lines += _levels_table(entry, group) + [""]
    lines += _snippets(group) + _orders(entry, group) + _scope(entry, group)
    lines += _root_cause(entry, group, version) + patch_section(entry, group, path)
    impact = first(group, "impact")
    if impact is not None:
        lines += ["### Impact on a corpus", ""] + impact_lines(impact) + [""]
    return lines


def _summary(entry: dict, findings: list[dict]) -> list[str]:
    if not findings:
        return [f"No divergence from the claimed definition was found in {entry['examples']} inputs.", ""]
    groups = families(findings)
    body = []
    for group, anchor in zip(groups, anchors(groups)):
        alt = (first(group, "issue") or {}).get("repro")
        for f in group:
            p = f.get("patch")
            short = patch_short(p)
            if alt and p and short == "verified":
                short += f" (on the issue's {alt['level']} repro)"  # the minimal one does not hold after it alone
            body.append([f"[`{f['family']}`](#{anchor})", f["level"], md_code(repro_text(f["minimal"]["inputs"], 50)),
                         num(f["minimal"]["expected"]) + (" (own)" if is_metamorphic(f) else ""), actual_text(f),
                         signed(f["minimal"].get("difference")), short])
    key = [REPRO_KEY.replace("repro key:", "Repro key:", 1), ""] \
        if any(corpus_repro(f["minimal"]["inputs"]) for f in findings) else []
    return md_table(["Family", "Level", "Minimal repro", "Expected", "Actual", "Difference", "Patch"], body,
                    ["---", "---", "---", "---:", "---:", "---:", "---"]) + [""] + key


def _environment(doc: dict, entry: dict, version: Optional[str]) -> list[str]:
    env, run = doc["environment"], entry.get("run") or doc["run"]
    impl = entry["implementation"]
    return md_table(["", ""], [
        ["Implementation", f"{md_cell(impl)} {version or '(version unknown)'}"],  # the version is markdown
        ["Claimed parameters", md_cell(claims_text(entry["claims"]))],
        ["Implementation signature", md_code(entry["signature"])],
        ["Reference signature", md_code(entry.get("reference_signature") or "(not recorded)")],
        ["chrf-audit / reference_impl", md_cell(f"{env['chrf_audit']} / {env['reference_impl']}")],
        ["Python", md_cell(env["python"])],
        ["Audit", md_cell(f"seed {run['seed']}, max examples {run['max_examples']}, tolerance {run['tolerance']:g}, "
                          f"{entry['examples']} inputs scored")],
    ]) + ["", "The platform the audit ran on is in `audit.json` only: this report reads the same on any machine.", ""]


def render_one(doc: dict, entry: dict) -> str:
    """The report of one implementation (``entry``: one of ``doc["implementations"]``)."""
    impl = entry["implementation"]
    env = doc["environment"]
    version = version_of(doc, entry)
    findings = findings_of(doc, impl)
    groups = families(findings)
    lines = [f"# chrF audit of {md_cell(impl)}{' ' + version if version else ''}", ""]  # version_of: markdown
    if findings:
        fams = ", ".join(f"`{g[0]['family']}` ({', '.join(f['level'] for f in g)})" for g in groups)
        lines += [f"{len(findings)} findings against the exact reference (chrf-audit {env['chrf_audit']}), "
                  f"by family and level: {fams}." if len(findings) != 1 else
                  f"1 finding against the exact reference (chrf-audit {env['chrf_audit']}): {fams}.", ""]
    else:
        lines += [f"No finding against the exact reference (chrf-audit {env['chrf_audit']}).", ""]
    lines += ["## Conformance", "", "Does the implementation meet each chrF definition, at each level?", ""]
    lines += conformance_matrix(entry) + [""]
    fits = entry.get("fit") or {}
    if findings and fits:
        lines += ["The fitted model of the implementation (the reference with the deviations found):", ""]
        lines += [f"- {md_cell(fit_line(impl, level, fit))}." for level, fit in fits.items()] + [""]
    lines += contract_markdown(entry.get("contract"))
    lines += ["## Environment", ""] + _environment(doc, entry, version)
    lines += ["## Summary", ""] + _summary(entry, findings) + combined_lines(doc, entry)
    imp = entry.get("impact")
    if imp is not None:
        rest = {k: v for k, v in imp.items() if k != "by_family"} if isinstance(imp, dict) else imp
        if isinstance(rest, dict) and rest.get("kind") == "impact":
            rest = imp  # a study record renders its own attribution summary
        if rest:
            lines += ["## Impact on a corpus", ""] + impact_lines(rest) + [""]
    paths = issue_paths(doc)
    for group, anchor in zip(groups, anchors(groups)):
        lines += _family_section(entry, group, paths.get((impl, anchor), issue_path(entry, anchor)), version)
    lines += ["---", "", f"Generated by chrf-audit {env['chrf_audit']}. Expected values are exact "
              "(fractions on the 0..100 scale); every number here is a field of `audit.json`.", ""]
    # the last word on control characters: whatever a field held (an implementation's error
    # text, name or version), no ESC, BEL or surrogate reaches the reader
    return visible("\n".join(lines))


def render(doc: dict) -> dict[str, bytes]:
    """{"<slug>.md": bytes} for every implementation of the document."""
    return {e["report"]: render_one(doc, e).encode("utf-8", "backslashreplace") for e in doc["implementations"]}
