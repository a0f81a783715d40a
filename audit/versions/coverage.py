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
