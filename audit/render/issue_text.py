"""The sentences of an upstream issue that come from the finding's ``issue`` facts and its
patch's verification (``audit.enrich.issue_facts``, ``audit.patches.summary``): the title,
the standing (bug or definition difference), the environment, the parameters in the
library's own names, the "checked" sentence (exactly what was checked), related upstream
discussion.  Pure functions of plain data."""

from __future__ import annotations

from typing import Optional

from ._doc import cache_note
from ._text import md_cell, md_code, md_prose, num


def title(impl: str, version: Optional[str], issue: Optional[dict], fallback: str) -> str:
    """One line, a sentence after its subject: ``nltk sentence_chrf: chrF averages ...``
    (the library, its function, the symptom in the library's record), else ``my-service 1.0
    chrF: the per-order scores are averaged ...`` (the implementation, its version, what the
    finding's title says; ``version`` is markdown already, ``version_of``)."""
    if issue and issue.get("title"):
        head = f"{issue['library']} {issue['function']}" if issue.get("function") else issue["library"]
        text = issue["title"]
        reg = issue.get("regression")
        if reg:
            text += f" (regression since {reg['introduced']})"
        return f"{md_cell(head)}: {md_cell(text)}"
    text = md_cell(fallback[0].lower() + fallback[1:]) if fallback else "a divergence"
    return f"{md_cell(impl)}{' ' + version if version else ''} chrF: {text}"


def severity(impact: Optional[dict], data: Optional[str]) -> Optional[str]:
    """One line from the family's impact study (a finding's ``impact``, ``--impact-data``)."""
    if not isinstance(impact, dict) or impact.get("alone_difference_min") is None:
        return None
    lo, hi = impact["alone_difference_min"], impact["alone_difference_max"]
    name = md_cell(str(data or "").rstrip("/").rsplit("/", 1)[-1] or "the impact study's data")
    touched = ""
    if impact.get("segments_affected") is not None:
        touched = f"it changes {impact['segments_affected']} of {impact['segments_total']} segment scores; "
    moves = ("alone it changes no system's corpus score" if lo == hi == 0 else
             f"alone it moves the systems' corpus scores by {lo:+.4g} to {hi:+.4g} points")
    flips, pairs = impact.get("alone_order_flips") or 0, impact.get("pairs")
    return (f"on {name} ({len(impact.get('systems') or [])} systems): {touched}{moves} and swaps the order of "
            f"{flips}" + (f" of {pairs}" if pairs else "") + " system pairs")


def standing(issue: Optional[dict], severity_line: Optional[str] = None) -> list[str]:
    """The first paragraph (bug or definition difference), the regression, the consequence,
    the severity."""
    if not issue or not issue.get("lead"):
        out = []
    else:
        out = [issue["lead"], ""]
    reg = (issue or {}).get("regression")
    if reg:
        out += [f"**Regression since {reg['introduced']} ({reg['last_good']} correct):** audited release by "
                f"release, {reg['last_good']} does not show it and {reg['introduced']} is the first release that does"
                + (f" (versions result: {md_code(reg['source'])})" if reg.get("source") else "") + ".", ""]
    if issue and issue.get("consequence"):
        out += [f"**Consequence:** {issue['consequence']}", ""]
    if severity_line:
        out += [f"**Severity:** {severity_line}.", ""]
    return out


def library_params(claims: dict, issue: Optional[dict]) -> str:
    """The audited parameters in the library's own names (nltk: max_len, ignore_whitespace)."""
    names = (issue or {}).get("parameters")
    if not names:
        return ", ".join(f"{k}={v}" for k, v in claims.items())
    out = []
    for claim, name in names.items():
        if claim not in claims:
            continue
        value = claims[claim]
        if name.endswith(" (negated)"):
            name, value = name[: -len(" (negated)")], not value
        out.append(f"{name} {value:g}" if name.startswith("-") else f"{name}={value}")  # a script's flag
    return ", ".join(out)


def environment(impl: str, version: Optional[str], doc_env: dict, issue: Optional[dict]) -> str:
    lib = md_cell((issue or {}).get("library") or impl)
    parts = [f"{lib} {version or '(version unknown)'}"]
    parts += [md_cell(f"{name} {ver or '(not installed)'}") for name, ver in ((issue or {}).get("dependencies") or {}).items()]
    parts.append(md_cell(doc_env.get("python", "Python")))
    system = str(doc_env.get("platform") or "").split("-", 1)[0]
    if system:
        parts.append(md_cell(system))
    return ", ".join(parts)


def _tests_text(lt: dict, lib: str) -> str:
    files = ", ".join(md_code(f) for f in lt["files"])
    b, a = lt["before"], lt["after"]
    text = (f"{lib}'s own tests ({files}, with `pytest --doctest-modules`): {b['passed']} passed and "
            f"{b['failed']} failed on the released package, {a['passed']} passed and {a['failed']} failed on "
            f"the patched copy")
    reg = lt.get("regression")
    if reg and reg.get("added"):
        added = f"{reg['added']} doctest example{'s' if reg['added'] != 1 else ''}"
        text += (f"; of the {added} the patch adds, {reg['failing_before']} fail{'s' if reg['failing_before'] == 1 else ''}"
                 f" on the released package (the regression test) and all pass on the patched copy")
    return text


def _repro_claims(verification: dict, lib: str, families: list, after: bool) -> list[str]:
    """What each family's repro prints on the patched copy and on the released package."""
    out = []
    for fam in families:
        r = (verification.get("repros") or {}).get(fam)
        if not r:
            continue
        which = "the repro" if len(families) == 1 else f"the {fam} repro"
        where = f"{which} below (the one above with the patch's keywords)" if after else f"{which} above"
        out.append(f"{where} prints {md_code(str(r['after_raw']))} on the patched copy (the reference's exact value is "
                   f"{num(r['expected'])} on the 0..100 scale" + (", equal up to float rounding" if r.get("after_key") else "")
                   + f") where the released {lib}" + (" prints, without the keywords, " if after else " prints ")
                   + md_code(str(r["before_raw"])))
    return out


def gates_text(gates: Optional[dict], lib: str) -> Optional[str]:
    """The gates' part of the "checked" sentence."""
    if not gates:
        return None
    passed = [g["gate"] for g in gates["after"] if g["result"] == "passed"]
    before_ok = all(g["result"] == "passed" for g in gates["before"])
    text = (f"{lib}'s gates ({gates['where']}): " + ", ".join(passed) + " leave the patched file unchanged"
            + (" (the released file passes them too)" if before_ok else ""))
    if gates.get("not_run"):
        text += "; not run: " + "; ".join(gates["not_run"])
    return text


def checked(verification: Optional[dict], lib: str, version: Optional[str], families: list, after: bool = False,
            check: bool = False) -> str:
    """Exactly what the verification checked (or why it is not verified, or not checked), and
    whether the verdict was read from the verification cache.  ``after``: the repros with the
    patch's keywords are printed below; ``check``: so is the record's check.  Texts from outside
    (an error message, an implementation's printed output, a cache entry) are escaped."""
    if not verification:
        return "Not checked (verification not run)."
    cached = cache_note(verification)
    if not verification.get("verified"):
        status = verification["status"]
        if status.startswith("not checked: "):
            return f"**Not checked:** {md_cell(status[len('not checked: '):], None)}.{cached}"
        status = status[len("not verified: "):] if status.startswith("not verified: ") else status
        return f"**Not verified:** {md_cell(status, None)}.{cached}"
    fams = verification.get("families") or families
    parts = _repro_claims(verification, lib, [f for f in families if f in fams] or fams, after)
    opts = verification.get("options") or {}
    call = ", ".join(f"`{k}={v!r}`".replace("'", '"') for k, v in opts.items())
    parts.append("a differential audit of the patched copy" + (f", called with {call}," if call else "")
                 + f" finds {', '.join(fams)} fixed and no family introduced")
    if verification.get("default_unchanged"):
        parts.append("called without the new keyword" + ("s" if len(opts) > 1 else "")
                     + ", the patched copy scores every repro of the audit exactly as the released one (the "
                       "default is unchanged)")
    lt = verification.get("library_tests")
    if lt:
        parts.append(_tests_text(lt, lib))
    gt = gates_text(verification.get("gates"), lib)
    if gt:
        parts.append(gt)
    if check and verification.get("check"):
        parts.append("the check below, run on the patched copy, prints what follows it")
    return (f"**Checked** on a patched copy of the released {lib} {version or ''}".rstrip() + ": " + "; ".join(parts)
            + "." + cached)


def related(records: list) -> list[str]:
    """The related upstream discussion: each record linked, what it says that matters here, and
    the lines of its thread that say it, quoted."""
    if not records:
        return []
    out = ["## Related upstream discussion", ""]
    for r in records:
        state = r["state"] + (f", {r['year']}" if r.get("year") else "")
        fixed = ""
        if r.get("fixed_in"):
            fixed = f"; fixed in {r['fixed_in']}"
        elif r.get("fixed_in") == "":
            fixed = "; merged, in no release yet"
        name = f"{md_cell(r['repository'])}#{md_cell(r['number'])}"
        link = f"[{name}]({r['url']})" if r.get("url") else name
        out.append(f"- {link} ({md_cell(r['kind'])}, {md_cell(state + fixed)}): \"{md_cell(r['title'])}\""
                   + (f" — {md_prose(r['note'])}" if r.get("note") else ""))
        for who, line in r.get("quotes") or ():
            out.append(f"  > {md_cell(who)}: \"{md_prose(line)}\"")
    return out + [""]
