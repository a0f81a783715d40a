"""The sentences of an upstream issue that come from the finding's ``issue`` facts and its
patch's verification (``audit.enrich.issue_facts``, ``audit.patches.summary``): the title,
the standing (bug or definition difference), the environment, the parameters in the
library's own names, the "checked" sentence (exactly what was checked), related upstream
discussion.  Pure functions of plain data."""

from __future__ import annotations

from typing import Optional

from ._doc import cache_note
from ._text import md_code, md_inline, num


def title(impl: str, version: Optional[str], issue: Optional[dict], fallback: str) -> str:
    """``nltk sentence_chrf: chrF ...`` (the library, its function, the symptom)."""
    if issue and issue.get("title"):
        head = f"{issue['library']} {issue['function']}" if issue.get("function") else issue["library"]
        text = issue["title"]
        reg = issue.get("regression")
        if reg:
            text += f" (regression since {reg['introduced']})"
        return f"{head}: {text}"
    text = fallback[0].lower() + fallback[1:] if fallback else "a divergence"
    return f"{impl}{' ' + version if version else ''}: chrF {text}"


def severity(impact: Optional[dict], data: Optional[str]) -> Optional[str]:
    """One line from the family's impact study (a finding's ``impact``, ``--impact-data``)."""
    if not isinstance(impact, dict) or impact.get("alone_difference_min") is None:
        return None
    lo, hi = impact["alone_difference_min"], impact["alone_difference_max"]
    name = str(data or "").rstrip("/").rsplit("/", 1)[-1] or "the impact study's data"
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
    lib = (issue or {}).get("library") or impl
    parts = [f"{lib} {version or '(version unknown)'}"]
    parts += [f"{name} {ver or '(not installed)'}" for name, ver in ((issue or {}).get("dependencies") or {}).items()]
    parts.append(doc_env.get("python", "Python"))
    system = str(doc_env.get("platform") or "").split("-", 1)[0]
    if system:
        parts.append(system)
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


def checked(verification: Optional[dict], lib: str, version: Optional[str], family: Optional[str],
            option: Optional[list]) -> str:
    """Exactly what the verification checked (or why it is not verified), and whether the
    verdict was read from the verification cache.  Its texts come from outside (an error
    message, an implementation's printed output, a cache entry): escaped."""
    if not verification:
        return "Not checked (verification not run)."
    cached = cache_note(verification)
    if not verification.get("verified"):
        status = verification["status"]
        status = status[len("not verified: "):] if status.startswith("not verified: ") else status
        return f"**Not verified:** {md_inline(status, None)}.{cached}"
    parts = []
    opts = verification.get("options") or {}
    call = ", ".join(f"`{k}={v!r}`".replace("'", '"') for k, v in opts.items())
    fams = verification.get("families") or []
    for fam in ([family] if family else fams):
        r = (verification.get("repros") or {}).get(fam)
        if r:
            parts.append(f"the {'repro above' if family else fam + ' repro'}"
                         + (f", called with {call}," if call and (not family or option) else "")
                         + f" prints {md_code(str(r['after_raw']))} on the patched copy (the reference's exact value is "
                           f"{num(r['expected'])} on the 0..100 scale"
                         + (", equal up to float rounding" if r.get("after_key") else "")
                         + f") where the released {lib} prints {md_code(str(r['before_raw']))}")
    audit = (f"a differential audit of the patched copy finds {', '.join(fams)} fixed and no family introduced")
    parts.append(audit)
    if verification.get("default_unchanged"):
        parts.append("called without the new keyword" + ("s" if len(opts) > 1 else "")
                     + ", the patched copy scores every repro of the audit exactly as the released one (the "
                       "default is unchanged)")
    lt = verification.get("library_tests")
    if lt:
        parts.append(_tests_text(lt, lib))
    return (f"**Checked** on a patched copy of the released {lib} {version or ''}".rstrip() + ": " + "; ".join(parts)
            + "." + cached)


def related(records: list) -> list[str]:
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
        out.append(f"- {r['repository']}#{r['number']} ({r['kind']}, {state}{fixed}): \"{r['title']}\""
                   + (f" — {r['note']}" if r.get("note") else ""))
    return out + [""]
