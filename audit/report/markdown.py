"""Markdown bug report per implementation, ready to paste into an upstream issue."""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Optional

from ..families import title as family_title
from ._text import escape, md_cell, md_code, num, quoted, repro_text, signed
from .details import ReportDetails, plain

DEFINITIONS = ("sacrebleu", "sacrebleu-eps", "chrfpp")
LEVELS = ("sentence", "corpus")


def _table(header: list[str], rows: list[list[str]], align: Optional[list[str]] = None) -> list[str]:
    align = align or ["---"] * len(header)
    out = ["| " + " | ".join(header) + " |", "| " + " | ".join(align) + " |"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return out


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
    return _table(["Definition", "Sentence level", "Corpus level"], rows)


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
    return _table(["Order", "Hyp n-grams", "Ref n-grams", "Matches", "Precision", "Recall", "F", "Effective"],
                  body, ["---", "---:", "---:", "---:", "---:", "---:", "---:", "---"])


def _impact_lines(obj: Any) -> list[str]:
    """Render a precomputed impact record as a table (shape-tolerant)."""
    if obj is None:
        return []
    if isinstance(obj, dict) and obj.get("kind") == "impact":
        return _study_lines(obj)
    if isinstance(obj, dict) and "attributed" in obj and "family" in obj:
        return _family_study_lines(obj)
    lines: list[str] = []
    if isinstance(obj, dict) and "rows" in obj:
        if obj.get("title"):
            lines += [f"**{md_cell(str(obj['title']))}**", ""]
        rows = obj["rows"]
        cols = obj.get("columns")
        if rows and isinstance(rows[0], dict):
            cols = cols or list(dict.fromkeys(k for r in rows for k in r))
            body = [[md_cell(_cell(r.get(c))) for c in cols] for r in rows]
        else:
            cols = cols or [f"col {i + 1}" for i in range(len(rows[0]) if rows else 0)]
            body = [[md_cell(_cell(v)) for v in r] for r in rows]
        lines += _table([md_cell(str(c)) for c in cols], body)
        if obj.get("note"):
            lines += ["", md_cell(str(obj["note"]))]
        return lines
    if isinstance(obj, list) and obj and isinstance(obj[0], dict):
        return _impact_lines({"rows": obj})
    if isinstance(obj, dict):
        scalars = {k: v for k, v in obj.items() if not isinstance(v, (dict, list)) and k != "by_family"}
        nested = {k: v for k, v in obj.items() if isinstance(v, (dict, list)) and k != "by_family"}
        if scalars:
            lines += _table(["Measure", "Value"], [[md_cell(str(k)), md_cell(_cell(v))] for k, v in scalars.items()])
        for k, v in nested.items():
            lines += ["", f"**{md_cell(str(k))}**", ""] + _impact_lines(v if not isinstance(v, dict) or "rows" in v or any(not isinstance(x, (dict, list)) for x in v.values()) else {"rows": [{"": kk, **vv} for kk, vv in v.items()]})
        return lines
    return [md_cell(_cell(obj))]


# -- impact study records (audit.impact.study_record) -------------------------------------


def _d(x: Optional[float]) -> str:
    """A score difference: two decimals, or three significant digits when smaller."""
    if x is None:
        return "—"
    if x == 0:
        return "0"
    return f"{x:+.2f}" if abs(x) >= 0.005 else f"{x:+.2g}"


def _drange(lo: Optional[float], hi: Optional[float]) -> str:
    if lo is None or hi is None:
        return "—"
    return _d(lo) if lo == hi else f"{_d(lo)} to {_d(hi)}"


def _call_text(call: Optional[str]) -> str:
    return {"a>b": "A > B", "a<b": "A < B", "n.s.": "n.s.", None: "—"}.get(call, str(call))


def _p(x: Optional[float]) -> str:
    return "—" if x is None else f"{x:.3f}"


def _swapped(p: dict) -> bool:
    d_ref, d_imp = p["reference_difference"], p["implementation_difference"]
    return d_imp is not None and d_ref != 0 and (d_imp == 0 or (d_imp > 0) != (d_ref > 0))


def _study_lines(rec: dict) -> list[str]:
    impl = md_cell(str(rec.get("implementation", "the implementation")))
    if rec.get("status") == "skipped":
        return [f"Not studied: {md_cell(str(rec.get('reason', ''))).rstrip('.')}."]
    conf = round(100 * (1 - rec["alpha"]))
    head = "⚠ Conclusions change" if rec["changes_conclusions"] else "✅ No conclusion changes"
    verdict = rec["verdict"].split(": ", 1)[-1]
    lines = [f"**{head}:** {md_cell(verdict)}", ""]
    refs = rec["references"]
    lines += [f"Data: {md_code(str(rec['data']))}, {rec['selection']}; {rec['segments']} segments, "
              f"{refs if refs > 0 else 'varying numbers of'} reference{'s' if refs != 1 else ''} per segment. "
              f"Reference: exact chrF ({md_code(rec['reference_signature'])}), {conf}% percentile bootstrap CI and "
              f"pairwise paired permutation tests over summed segment statistics "
              f"({rec['resamples']} resamples/trials, seed {rec['seed']}, significant when p < {rec['alpha']:g}). "
              f"{impl}'s own significance calls: {md_cell(rec['implementation_significance'])}.", ""]
    lines += ["### Systems", ""]
    body = []
    for s in sorted(rec["systems"], key=lambda s: (s["rank_reference"], s["name"])):
        ri = s["rank_implementation"]
        moved = ri is not None and ri != s["rank_reference"]
        impl_score = f"{s['implementation_score']:.4f}" if s["implementation_score"] is not None else s["implementation_outcome"]
        rank_i = "—" if ri is None else (f"**{ri}** ({'↑' if ri < s['rank_reference'] else '↓'}"
                                         f"{abs(ri - s['rank_reference'])})" if moved else str(ri))
        body.append([str(s["rank_reference"]), md_cell(s["name"]), f"{s['reference_score']:.4f}",
                     f"[{s['ci_low']:.2f}, {s['ci_high']:.2f}]", impl_score, _d(s["difference"]), rank_i])
    lines += _table(["Rank", "System", "Reference", f"{conf}% CI", impl, "Difference", f"Rank ({impl})"], body,
                    ["---:", "---", "---:", "---:", "---:", "---:", "---:"])
    pairs = rec["pairs"]
    shown = [p for p in pairs if p["changed"] or _swapped(p)]
    sig_ref = sum(p["reference_call"] != "n.s." for p in pairs)
    sig_imp = sum(p["implementation_call"] not in ("n.s.", None) for p in pairs)
    lines += ["", "### Pairwise comparisons", ""]
    lines += [f"{len(pairs)} pairs; significant under the reference: {sig_ref}, under {impl}: "
              f"{sig_imp if rec['implementation_significance'].startswith('paired') else 'not tested'}; "
              f"calls that change: {sum(p['changed'] for p in pairs)}; pairs whose order swaps: "
              f"{sum(_swapped(p) for p in pairs)}.", ""]
    if shown:
        body = []
        for p in sorted(shown, key=lambda p: (abs(p["reference_difference"]), p["a"], p["b"])):
            change = p["change"] or "order swapped (not significant either way)"
            if p["change"] and _swapped(p):
                change += "; order swapped"
            body.append([md_cell(p["a"]), md_cell(p["b"]), _d(p["reference_difference"]), _p(p["reference_p"]),
                         _call_text(p["reference_call"]), _d(p["implementation_difference"]),
                         _p(p["implementation_p"]), _call_text(p["implementation_call"]), md_cell(change)])
        lines += _table(["A", "B", "Reference A−B", "p", "Call", f"{impl} A−B", "p", "Call", "Change"], body,
                        ["---", "---", "---:", "---:", "---", "---:", "---:", "---", "---"])
    else:
        lines += [f"Every pair keeps its order and its significance call under {impl}."]
    lines += ["", "### Where the difference comes from", ""]
    lines += _attribution_lines(rec, impl)
    for note in rec.get("notes") or []:
        lines += ["", f"Note: {md_cell(str(note))}"]
    return lines


def _attribution_lines(rec: dict, impl: str) -> list[str]:
    fams = rec.get("by_family") or {}
    check = rec.get("model_check") or {}
    if not fams:
        return ["No per-family attribution: only the implementation's overall impact is given."]
    lines = []
    if check.get("complete") and check.get("reproduces"):
        lines += [f"The exact bug models of {impl}'s {len(check['families'])} families, combined, reproduce its "
                  f"corpus score on every system studied (largest error {check['max_abs_error']:.1e}), so the "
                  "attribution below is exact.", ""]
    elif check.get("complete"):
        err = check.get("max_abs_error")
        lines += [f"⚠ The combined exact models of {impl}'s families do **not** reproduce its corpus scores "
                  f"(largest error {'—' if err is None else f'{err:.3g}'}): something else differs too; the "
                  "per-family figures are those of the models, not a decomposition of the observed difference.", ""]
    else:
        lines += [f"Not every family has a single exact model: per-family figures are given where one exists, "
                  f"otherwise only the overall impact above.", ""]
    body = []
    for f, r in fams.items():
        if not r.get("attributed"):
            body.append([f"`{f}`", "—", "—", "—", "—", md_cell(r.get("reason", ""))])
            continue
        seg = ("corpus-level" if r.get("segments_affected") is None
               else f"{r['segments_affected']} of {r['segments_total']}")
        fix = _drange(r.get("contribution_min"), r.get("contribution_max"))
        flips = f"{r['alone_order_flips']} of {r['pairs']}"
        after = "—" if r.get("without_order_flips") is None else f"{r['without_order_flips']} of {r['pairs']}"
        body.append([f"`{f}`", seg, _drange(r["alone_difference_min"], r["alone_difference_max"]), fix, flips, after])
    lines += _table(["Family", "Segments affected", "Alone: score change", f"Share of {impl}'s difference",
                     "Pairs swapped, alone", f"Pairs swapped if only this is fixed"], body,
                    ["---", "---:", "---:", "---:", "---:", "---:"])
    lines += ["", "*Alone*: the family's bug on an otherwise correct chrF. *Share*: how much of the difference "
              f"disappears when only this family is fixed in {impl} (full model minus the model of all other families). "
              "Families interact, so neither column has to add up to the total difference. *Segments affected*: "
              "segment scores (summed over the systems) that the family alone changes."]
    return lines


def _family_study_lines(r: dict) -> list[str]:
    impl = md_cell(str(r.get("implementation", "the implementation")))
    data = md_code(str(r.get("data", "the impact data")))
    if not r.get("attributed"):
        return [md_cell(r.get("reason", "No exact model of this family alone.")) + "."]
    where = (f"It acts on the corpus aggregation itself" if r.get("segments_affected") is None
             else f"It changes {r['segments_affected']} of {r['segments_total']} segment scores")
    text = (f"On {data} ({len(r['systems'])} systems): {where}. Alone, it moves corpus scores by "
            f"{_drange(r['alone_difference_min'], r['alone_difference_max'])} and swaps "
            f"{r['alone_order_flips']} of {r['pairs']} system pairs.")
    if r.get("contribution_min") is not None:
        text += (f" Fixing only this family in {impl} would move its scores by "
                 f"{_drange(-r['contribution_max'], -r['contribution_min'])} "
                 f"and leave {r['without_order_flips']} of {r['pairs']} pairs swapped.")
    lines = [text]
    nonzero = any(x["alone_difference"] != 0 or (x.get("contribution") or 0) != 0 for x in r["systems"])
    if not nonzero:
        return lines + ["", "No effect on any system of this corpus."]
    has_w = "without_score" in r["systems"][0]
    header = ["System", "Reference", "This family alone", "Change"]
    if has_w:
        header += [f"{impl} with only this fixed", "Share of the difference"]
    body = []
    for x in sorted(r["systems"], key=lambda x: (-x["reference_score"], x["name"])):
        row = [md_cell(x["name"]), f"{x['reference_score']:.4f}", f"{x['alone_score']:.4f}", _d(x["alone_difference"])]
        if has_w:
            row += [f"{x['without_score']:.4f}", _d(x["contribution"])]
        body.append(row)
    lines += [""] + _table(header, body, ["---"] + ["---:"] * (len(header) - 1))
    return lines


def _cell(v: Any) -> str:
    if isinstance(v, float):
        return num(v, 8)
    if v is None:
        return "—"
    return str(v)


def _scope_lines(impl: str, sweep: dict, chart: Optional[str]) -> list[str]:
    lines = [f"Sweep: {sweep['dimension']}, scored by {impl} (called directly) and by the reference.", ""]
    body = []
    for r in sweep["rows"]:
        flag = "" if r["difference"] is not None and abs(r["difference"]) <= 1e-9 else " ⚠"
        body.append([md_cell(str(r["x"])), md_code(repro_text(r["inputs"], 60)), num(r["expected"], 8),
                     num(r["actual"], 8), signed(r["difference"]) + flag])
    lines += _table([md_cell(sweep["x_label"]), "Input", "Expected", "Actual", "Difference"], body,
                    ["---", "---", "---:", "---:", "---:"])
    bad = sum(1 for r in sweep["rows"] if r["difference"] is None or abs(r["difference"]) > 1e-9)
    lines += ["", f"{bad} of {len(sweep['rows'])} inputs of the sweep diverge (⚠)."]
    if chart:
        lines += ["", f"![{md_cell(impl)} scope chart]({chart})"]
    return lines


def _finding_section(i: int, f, det: ReportDetails, impact_fam: Any, version: Optional[str]) -> list[str]:
    fd = det.of(f)
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
    lines += _table(["", "Exact", "Decimal (0..100)"], expected_rows + [
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
        lines += ["", "### Impact on a corpus", ""] + _impact_lines(impact_fam)
    lines.append("")
    return lines


def render_markdown(summary, result, det: ReportDetails, impact: Optional[dict] = None) -> str:
    impl = summary.implementation
    version = summary.version or det.environment["packages"].get(impl)
    env = det.environment
    imp = plain((impact or {}).get(impl))
    lines = [f"# chrF audit of {md_cell(impl)}{' ' + md_cell(version) if version else ''}", ""]
    n = len(summary.findings)
    lines += [f"{n} finding{'s' if n != 1 else ''} against the exact reference "
              f"(chrf-audit {env['chrf_audit']}): "
              + (", ".join(f"`{f.family}`" for f in summary.findings) if n else "none") + ".", ""]
    lines += ["## Conformance", "", "Does the implementation meet each chrF definition, at each level?", ""]
    lines += conformance_matrix(summary) + [""]
    lines += ["## Environment", ""]
    lines += _table(["", ""], [
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
            p = det.of(f).patch
            pst = "—" if not p else {True: "verified", False: "not verified", None: "not checked"}[p["verified"]]
            body.append([str(i), f"[`{f.family}`](#{i}-{f.family}-{f.level}-level)", f.level,
                         md_code(repro_text(f.minimal.inputs, 50)),
                         num(f.minimal.expected) + (" (own)" if det.of(f).reference_value else ""),
                         num(f.minimal.actual) if f.minimal.outcome == "value" else f.minimal.outcome,
                         signed(f.minimal.difference), pst])
        lines += _table(["#", "Family", "Level", "Minimal repro", "Expected", "Actual", "Difference", "Patch"], body,
                        ["---:", "---", "---", "---", "---:", "---:", "---:", "---"])
    else:
        lines += [f"No divergence from the claimed definition was found in {summary.examples} inputs."]
    lines.append("")
    if imp is not None:
        rest = {k: v for k, v in imp.items() if k != "by_family"} if isinstance(imp, dict) else imp
        if isinstance(rest, dict) and rest.get("kind") == "impact":
            rest = imp  # a study record renders its own attribution summary
        if rest:
            lines += ["## Impact on a corpus", ""] + _impact_lines(rest) + [""]
    by_family = imp.get("by_family", {}) if isinstance(imp, dict) else {}
    for i, f in enumerate(summary.findings, 1):
        lines += _finding_section(i, f, det, by_family.get(f.family), version)
    lines += ["---", "", f"Generated by chrf-audit {env['chrf_audit']}. Expected values are exact (fractions on the 0..100 scale).", ""]
    return "\n".join(lines)
