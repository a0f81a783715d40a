"""What a versions document could not see, in one line each: the releases skipped and why.

Why: a run in which every release was skipped (none installable, none on the index, the disk
full) printed "no audited release shows a finding" and exited 0, which reads as success.
``nothing_audited`` is the one-line error the command exits 2 with instead, naming the reasons.
Pure functions of the document (``matrix.document``).
"""

from __future__ import annotations

from typing import Optional

#: the most characters of one skip reason in a summary line
REASON_CHARS = 200


def _listed(versions: list, most: int = 3) -> str:
    shown = ", ".join(versions[:most])
    return shown + (f" and {len(versions) - most} more" if len(versions) > most else "")


def _short(text: str) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= REASON_CHARS else text[: REASON_CHARS - 3] + "..."


def skip_reasons(releases: list) -> str:
    """The skipped releases grouped by reason, oldest first: ``1.0, 1.1: why; 2.0: why``."""
    groups: dict[str, list] = {}
    for r in releases:
        if r["status"] != "audited":
            groups.setdefault(_short(r.get("reason") or "no reason given"), []).append(r["version"])
    return "; ".join(f"{_listed(versions)}: {reason}" for reason, versions in groups.items())


def nothing_audited(doc: dict) -> Optional[str]:
    """The error line of a document in which no release was audited, else None."""
    releases = doc["releases"]
    if any(r["status"] == "audited" for r in releases):
        return None
    n = len(releases)
    return (f"no release of {doc['package']} was audited ({n} release{'s' if n != 1 else ''} skipped): "
            f"{skip_reasons(releases)}")


def _seen(release: dict) -> bool:
    """Audited, or inferred by --bisect from the audited releases around it."""
    return release["status"] == "audited" or (release.get("reason") or "").startswith("not audited (--bisect)")


def unseen(doc: dict) -> list[dict]:
    """The ranges of consecutive releases the document has no families for (skipped, not tried
    beyond the edge of what could be audited, stopped): ``from``, ``to``, ``releases`` (how
    many), ``before`` / ``after`` (the audited releases around it, or None) and ``families``
    (those that differ between them: their transition lies somewhere in the range or at
    ``after``, which the document names)."""
    out: list = []
    releases = doc["releases"]
    i = 0
    while i < len(releases):
        if _seen(releases[i]):
            i += 1
            continue
        j = i
        while j + 1 < len(releases) and not _seen(releases[j + 1]):
            j += 1
        before = next((r for r in reversed(releases[:i]) if r["status"] == "audited"), None)
        after = next((r for r in releases[j + 1:] if r["status"] == "audited"), None)
        changing = sorted(set(before["families"]) ^ set(after["families"])) if before and after else []
        out.append({"from": releases[i]["version"], "to": releases[j]["version"], "releases": j - i + 1,
                    "before": before and before["version"], "after": after and after["version"],
                    "families": changing})
        i = j + 1
    return out

