"""The "Impact on a corpus" sections of the markdown report: an impact study record
(``chrf-audit run --impact-data``, see audit.impact), its per-family attribution, or any other
precomputed impact record rendered as tables."""

from __future__ import annotations

from typing import Any, Optional

from ._text import md_cell, md_code, md_table, num
from .json_report import swapped as _swapped


def impact_lines(obj: Any) -> list[str]:
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
        lines += md_table([md_cell(str(c)) for c in cols], body)
        if obj.get("note"):
            lines += ["", md_cell(str(obj["note"]))]
        return lines
    if isinstance(obj, list) and obj and isinstance(obj[0], dict):
        return impact_lines({"rows": obj})
    if isinstance(obj, dict):
        scalars = {k: v for k, v in obj.items() if not isinstance(v, (dict, list)) and k != "by_family"}
        nested = {k: v for k, v in obj.items() if isinstance(v, (dict, list)) and k != "by_family"}
        if scalars:
            lines += md_table(["Measure", "Value"], [[md_cell(str(k)), md_cell(_cell(v))] for k, v in scalars.items()])
        for k, v in nested.items():
            lines += ["", f"**{md_cell(str(k))}**", ""] + impact_lines(v if not isinstance(v, dict) or "rows" in v or any(not isinstance(x, (dict, list)) for x in v.values()) else {"rows": [{"": kk, **vv} for kk, vv in v.items()]})
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




def _study_lines(rec: dict) -> list[str]:
    impl = md_cell(str(rec.get("implementation", "the implementation")))
    if rec.get("status") == "skipped":
        return [f"Not studied: {md_cell(str(rec.get('reason', ''))).rstrip('.')}."]
    counts = rec["counts"]  # json_report: every number printed is a field of the document
    conf = counts["confidence_percent"]
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
    lines += md_table(["Rank", "System", "Reference", f"{conf}% CI", impl, "Difference", f"Rank ({impl})"], body,
                      ["---:", "---", "---:", "---:", "---:", "---:", "---:"])
    pairs = rec["pairs"]
    shown = [p for p in pairs if p["changed"] or _swapped(p)]
    sig_ref, sig_imp = counts["significant_reference"], counts["significant_implementation"]
    lines += ["", "### Pairwise comparisons", ""]
    lines += [f"{len(pairs)} pairs; significant under the reference: {sig_ref}, under {impl}: "
              f"{sig_imp if rec['implementation_significance'].startswith('paired') else 'not tested'}; "
              f"calls that change: {counts['calls_changed']}; pairs whose order swaps: "
              f"{counts['orders_swapped']}.", ""]
    if shown:
        body = []
        for p in sorted(shown, key=lambda p: (abs(p["reference_difference"]), p["a"], p["b"])):
            change = p["change"] or "order swapped (not significant either way)"
            if p["change"] and _swapped(p):
                change += "; order swapped"
            body.append([md_cell(p["a"]), md_cell(p["b"]), _d(p["reference_difference"]), _p(p["reference_p"]),
                         _call_text(p["reference_call"]), _d(p["implementation_difference"]),
                         _p(p["implementation_p"]), _call_text(p["implementation_call"]), md_cell(change)])
        lines += md_table(["A", "B", "Reference A−B", "p", "Call", f"{impl} A−B", "p", "Call", "Change"], body,
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
    lines += md_table(["Family", "Segments affected", "Alone: score change", f"Share of {impl}'s difference",
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
        text += (f" Of {impl}'s difference from the reference, {_drange(r['contribution_min'], r['contribution_max'])} "
                 f"is this family's: fixing only it would leave {r['without_order_flips']} of {r['pairs']} pairs swapped.")
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
    # system by system is long material: folded, as the report folds its sweeps
    lines += ["", "<details><summary>System by system</summary>", ""]
    lines += md_table(header, body, ["---"] + ["---:"] * (len(header) - 1)) + ["", "</details>"]
    return lines


def _cell(v: Any) -> str:
    if isinstance(v, float):
        return num(v, 8)
    if v is None:
        return "—"
    return str(v)
