"""Markdown bug report per implementation, ready to paste into an upstream issue: a pure
function of the ``EnrichedResult`` (its "Impact on a corpus" sections: impact_markdown)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Optional

from ..diagnose.families import title as family_title
from ._plain import plain
from ._text import escape, fit_line, md_cell, md_code, md_table, num, quoted, repro_text, signed, visible
from .contract_table import markdown_lines as contract_markdown
from .impact_markdown import impact_lines

DEFINITIONS = ("sacrebleu", "sacrebleu-eps", "chrfpp")
LEVELS = ("sentence", "corpus")


def _verdict(conf: Optional[dict], definition: str, level: str) -> str:
    if not conf or definition not in conf or level not in (conf.get(definition) or {}):
        return "not audited"
    fams = conf[definition][level]
    if not fams:
        return "✅ meets"
    return "❌ does not meet: " + ", ".join(f"`{f}`" for f in fams)


def conformance_matrix(summary) -> list[str]:
    conf = getattr(summary, "conformance", None)
    rows = [[f"`{d}`"] + [_verdict(conf, d, lv) for lv in LEVELS] for d in DEFINITIONS]
    return md_table(["Definition", "Sentence level", "Corpus level"], rows)


def _claims_text(claims: dict) -> str:
    keys = ("char_order", "word_order", "beta", "lowercase", "whitespace", "definition", "scale")
    parts = [f"{k}={claims[k]}" for k in keys if k in claims]
    parts += [f"{k}={v}" for k, v in claims.items() if k not in keys]
    return ", ".join(parts)


def _frac_decimal(fr: str) -> str:
    try:
        return repr(float(Fraction(fr)))
    except (ValueError, ZeroDivisionError):
        return "—"


def _orders_table(rows) -> list[str]:
    def ratio(x):
        return "—" if x is None else f"{x} ({float(Fraction(x)):.6g})"

    body = [[f"{r.kind} {r.n}", str(r.hyp), str(r.ref), str(r.match), ratio(r.precision), ratio(r.recall),
             ratio(r.f), "yes" if r.effective else "no"] for r in rows]
    return md_table(["Order", "Hyp n-grams", "Ref n-grams", "Matches", "Precision", "Recall", "F", "Effective"],
                    body, ["---", "---:", "---:", "---:", "---:", "---:", "---:", "---"])


def _scope_lines(impl: str, sweep: dict, chart: Optional[str]) -> list[str]:
    lines = [f"Sweep: {sweep['dimension']}, scored by {impl} (through its isolated adapter) and by the reference.", ""]
    body = []
    for r in sweep["rows"]:
        flag = "" if r["difference"] is not None and abs(r["difference"]) <= 1e-9 else " ⚠"
        body.append([md_cell(str(r["x"])), md_code(repro_text(r["inputs"], 60)), num(r["expected"], 8),
                     num(r["actual"], 8), signed(r["difference"]) + flag])
    lines += md_table([md_cell(sweep["x_label"]), "Input", "Expected", "Actual", "Difference"], body,
                      ["---", "---", "---:", "---:", "---:"])
    bad = sum(1 for r in sweep["rows"] if r["difference"] is None or abs(r["difference"]) > 1e-9)
    lines += ["", f"{bad} of {len(sweep['rows'])} inputs of the sweep diverge (⚠)."]
    if chart:
        lines += ["", f"![{md_cell(impl)} scope chart]({chart})"]
    return lines


def _finding_section(i: int, f, fd, impact_fam: Any, version: Optional[str]) -> list[str]:
    m = f.minimal
    lines = [f"## {i}. `{f.family}` ({f.level} level)", ""]
    lines += [f"**What is wrong:** {f.title or family_title(f.family)}.", ""]
    if getattr(f, "evidence", None):
        lines += [f"**Why this name:** {md_cell(f.evidence)}.", ""]
    if f.flaky:
        lines += ["> ⚠ The minimal repro did not reproduce on replay (flaky).", ""]
    lines += ["### Minimal repro", "", f"```{fd.snippet_language}", fd.snippet.rstrip("\n"), "```", ""]
    if m.level == "sentence":
        lines += [f"Inputs (escaped): hypothesis {md_code(quoted(m.inputs['hypothesis']))}, references "
                  + ", ".join(md_code(quoted(r)) for r in m.inputs["references"]) + "."]
    else:
        lines += [f"Inputs (escaped): {len(m.inputs['hypotheses'])} segments: "
                  + "; ".join(f"{md_code(quoted(h))} vs " + ", ".join(md_code(quoted(r)) for r in rs)
                              for h, rs in zip(m.inputs["hypotheses"], m.inputs["references"])) + "."]
    lines.append("")
    actual_note = ""
    if m.actual_raw is not None:
        actual_note = f" (returned {md_code(m.actual_raw)} on its own scale)"
    if m.outcome != "value":
        actual_note += f" — outcome `{m.outcome}`" + (f": {md_cell(escape(m.detail, 200))}" if m.detail else "")
    if fd.reference_value is None:
        expected_rows = [["Expected (reference)", md_code(m.expected_fraction), repr(m.expected)]]
    else:  # a metamorphic relation compares the implementation with itself
        expected_rows = [
            [f"Expected ({md_cell(f.implementation)}'s own score before the transformation)", "—", repr(m.expected)],
            ["Reference on this input (for comparison)", md_code(fd.reference_value[0]), repr(fd.reference_value[1])],
        ]
    lines += md_table(["", "Exact", "Decimal (0..100)"], expected_rows + [
        [f"Actual ({md_cell(f.implementation)})", "—", (repr(m.actual) if m.actual is not None else "no number") + actual_note],
        ["Difference", "—", signed(m.difference, 10)],
    ])
    expl = f.explanation or m.explanation
    if expl:
        lines += ["", "Deviations from the definition that reproduce the actual value exactly: "
                  + ", ".join(f"`{e}`" for e in expl) + "."]
    if f.largest is not None and f.largest is not m:
        L = f.largest
        lines += ["", f"Largest difference seen: {signed(L.difference, 8)} on {md_code(repro_text(L.inputs, 80))} "
                  f"(expected {num(L.expected)}, actual {num(L.actual)})."]
    lines += ["", "### Per-order breakdown", ""]
    if m.orders:
        lines += ["Reference statistics of the minimal repro:", ""] + _orders_table(m.orders)
    else:
        lines += ["Not available for this repro."]
    if m.impl_orders:
        lines += ["", f"As computed by {md_cell(f.implementation)}:", ""] + _orders_table(m.impl_orders)
    lines += ["", "### Scope", ""]
    lines += _scope_lines(f.implementation, fd.scope, fd.chart) if fd.scope else [
        "No scope sweep is known for this implementation and family."]
    lines += ["", "### Root cause", ""]
    rc = fd.root_cause
    if rc:
        where = f"`{rc.get('file')}`" + (f", line {rc['line']}" if rc.get("line") else "") + (
            f", in `{rc['function']}`" if rc.get("function") else "")
        lines += [f"{where} (installed {md_cell(f.implementation)}{' ' + version if version else ''})."]
        if rc.get("why"):
            lines += ["", rc["why"][0].upper() + rc["why"][1:] + "."]
        if rc.get("excerpt"):
            lines += ["", "```python", rc["excerpt"], "```"]
    else:
        lines += ["Not located in the installed source."]
    lines += ["", "### Suggested patch", ""]
    p = fd.patch
    if p:
        status = {True: "**verified**: applied to a temporary copy of the installed package, this finding's repro "
                        "now agrees with the reference and an audit of the copy finds no new family",
                  False: "**not verified**: on a patched copy, this family's repro still diverges, or the patch "
                         "introduces a family, or the copy could not be audited",
                  None: "not verified (verification not run)"}[p.get("verified")]
        lines += [f"Status: {status}."]
        if p.get("description"):
            lines += ["", p["description"][0].upper() + p["description"][1:] + "."]
        fence = "~~~~" if "```" in p["diff"] else "```"
        lines += ["", f"{fence}diff", p["diff"].rstrip("\n"), fence]
    else:
        lines += ["No patch suggestion for this family."]
    if impact_fam is not None:
        lines += ["", "### Impact on a corpus", ""] + impact_lines(impact_fam)
    lines.append("")
    return lines


def render_markdown(summary, enriched, impact: Optional[dict] = None) -> str:
    """The bug report of one implementation (``summary``: one of ``enriched.result.adapters``)."""
    impl = summary.implementation
    result = enriched.result
    version = summary.version or enriched.environment["packages"].get(impl)
    env = enriched.environment
    imp = plain((impact or {}).get(impl))
    lines = [f"# chrF audit of {md_cell(impl)}{' ' + md_cell(version) if version else ''}", ""]
    n = len(summary.findings)
    lines += [f"{n} finding{'s' if n != 1 else ''} against the exact reference "
              f"(chrf-audit {env['chrf_audit']}): "
              + (", ".join(f"`{f.family}`" for f in summary.findings) if n else "none") + ".", ""]
    fits = getattr(summary, "fit", {}) or {}
    if n and fits:
        lines += ["The fitted model of the implementation (the reference with the deviations found):", ""]
        lines += [f"- {md_cell(fit_line(impl, level, fit))}." for level, fit in fits.items()] + [""]
    lines += ["## Conformance", "", "Does the implementation meet each chrF definition, at each level?", ""]
    lines += conformance_matrix(summary) + [""]
    lines += contract_markdown(getattr(summary, "contract", None))
    lines += ["## Environment", ""]
    lines += md_table(["", ""], [
        ["Implementation", md_cell(f"{impl} {version or '(version unknown)'}")],
        ["Claimed parameters", md_cell(_claims_text(summary.claims))],
        ["Implementation signature", md_code(summary.signature)],
        ["Reference signature", md_code(getattr(summary, "reference_signature", "") or "(not recorded)")],
        ["chrf-audit / reference_impl", md_cell(f"{env['chrf_audit']} / {env['reference_impl']}")],
        ["Python", md_cell(env["python"])],
        ["Platform", md_cell(env["platform"])],
        ["Audit", md_cell(f"seed {result.seed}, max examples {result.max_examples}, tolerance {result.tolerance:g}, "
                          f"{summary.examples} inputs scored")],
    ]) + [""]
    lines += ["## Summary", ""]
    if n:
        body = []
        for i, f in enumerate(summary.findings, 1):
            p = enriched.of(f).patch
            pst = "—" if not p else {True: "verified", False: "not verified", None: "not checked"}[p["verified"]]
            body.append([str(i), f"[`{f.family}`](#{i}-{f.family}-{f.level}-level)", f.level,
                         md_code(repro_text(f.minimal.inputs, 50)),
                         num(f.minimal.expected) + (" (own)" if enriched.of(f).reference_value else ""),
                         num(f.minimal.actual) if f.minimal.outcome == "value" else f.minimal.outcome,
                         signed(f.minimal.difference), pst])
        lines += md_table(["#", "Family", "Level", "Minimal repro", "Expected", "Actual", "Difference", "Patch"], body,
                          ["---:", "---", "---", "---", "---:", "---:", "---:", "---"])
    else:
        lines += [f"No divergence from the claimed definition was found in {summary.examples} inputs."]
    lines.append("")
    if imp is not None:
        rest = {k: v for k, v in imp.items() if k != "by_family"} if isinstance(imp, dict) else imp
        if isinstance(rest, dict) and rest.get("kind") == "impact":
            rest = imp  # a study record renders its own attribution summary
        if rest:
            lines += ["## Impact on a corpus", ""] + impact_lines(rest) + [""]
    by_family = imp.get("by_family", {}) if isinstance(imp, dict) else {}
    for i, f in enumerate(summary.findings, 1):
        lines += _finding_section(i, f, enriched.of(f), by_family.get(f.family), version)
    lines += ["---", "", f"Generated by chrf-audit {env['chrf_audit']}. Expected values are exact (fractions on the 0..100 scale).", ""]
    # the last word on control characters: whatever a field held (an implementation's error
    # text, name or version), no ESC, BEL or surrogate reaches the reader
    return visible("\n".join(lines))
