"""The patch parts of the markdown report: each family's patch status with its upstream issue,
the combined patch, and whether the filed patches stack.  A view of the document."""

from __future__ import annotations

from typing import Optional

from ._doc import cache_note, first
from ._text import md_cell
from .issue_units import issue_paths

PATCH_STATUS = {
    True: "**verified**: applied to a temporary copy of the installed package (and called with the keywords it "
          "adds, when it adds some), this family's issue repro agrees with the reference, an audit of the copy "
          "finds no new family, the library's own tests pass and its formatter and linters leave the patched "
          "file unchanged",
    False: "**not verified**: on a patched copy, this family's repro still diverges, or the patch introduces "
           "a family, or breaks one of the library's own tests or gates, or the copy could not be audited",
    None: "not verified (verification not run)",
}
PATCH_SHORT = {True: "verified", False: "not verified", None: "not checked"}


def patch_short(patch: Optional[dict]) -> str:
    """A patch's verdict in a word or two: verified, not verified, not checked."""
    if not patch:
        return "—"
    status = (patch.get("verification") or {}).get("status") or ""
    return "not checked" if status.startswith("not checked: ") else PATCH_SHORT[patch.get("verified")]


def patch_section(entry: dict, group: list[dict], path: str) -> list[str]:
    patch = first(group, "patch")
    issue = f"[`{path}`]({path})"
    verification = (patch or {}).get("verification") or {}
    cached = cache_note(verification)
    # a status other than "verified" names why, in text from outside (an error message): escaped
    failed = f"**{md_cell(verification['status'], None)}**" \
        if patch and verification.get("status") not in (None, "verified") else None
    if (first(group, "issue") or {}).get("filed") is False:
        status = PATCH_STATUS[patch.get("verified")] if patch else "no patch suggestion for this family"
        return [f"**Patch:** {failed or status}.{cached} No upstream issue is written for it.", ""]
    if failed:
        return [f"**Patch:** {failed}.{cached} The diff and what was checked, in a pasteable upstream issue: "
                f"{issue}.", ""]
    if not patch:
        return [f"**Patch:** no patch suggestion for this family. The upstream issue: {issue}.", ""]
    text = f"**Patch:** {PATCH_STATUS[patch.get('verified')]}.{cached}"
    if patch.get("description"):
        text += " " + patch["description"][0].upper() + patch["description"][1:] + "."
    return [text + f" The diff and the source around the root cause, in a pasteable upstream issue: {issue}.", ""]


def combined_path(entry: dict) -> str:
    return f"issues/{entry['report'][:-3]}/all-families.md"


def combined_lines(doc: dict, entry: dict) -> list[str]:
    """The one diff that fixes every family a maintainer would fix together, when the document
    has it; whether the filed patches stack."""
    out = []
    c = entry.get("combined_patch")
    if c:
        fams = ", ".join(f"`{f}`" for f in c.get("families", []))
        status = patch_short(c)
        out += [f"**All at once:** one combined patch fixes {fams} ({status}): "
                f"[`{combined_path(entry)}`]({combined_path(entry)}).{cache_note(c.get('verification'))}", ""]
    stack = entry.get("patch_stacking")
    if stack:
        paths = issue_paths(doc)
        files = []
        for patch in stack["patches"]:
            path = next((paths[(entry["implementation"], f)] for f in patch if (entry["implementation"], f) in paths), None)
            if path and path not in files:
                files.append(path)
        links = ", ".join(f"[`{p}`]({p})" for p in files)
        verdict = ("apply to the released source one after the other in each of the "
                   f"{stack['orders']} orders and give the same file" if stack["applies"] and stack["same"]
                   else "conflict when applied one after the other")
        out += [f"**Together:** the {len(stack['patches'])} patches of the upstream issues {links} {verdict}.", ""]
    return out


