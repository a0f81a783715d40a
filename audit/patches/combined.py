"""One combined patch per implementation: a single diff fixing every family that has a
patch, verified on the path of ``chrf-audit validate-patch``.

The per-family patches each fix one family against the released source, so they cannot be
applied one after the other (nltk's scoring patches replace the same lines: the second says
"Reversed (or previously applied) patch detected").  ``audit.upstream.combined_patch`` makes
the diff that fixes them all at once; ``combined_patch`` here judges it like any suggested
patch (``verify_suggested``: the patched copy of the released source audited, the before
repros replayed on it) and calls it verified only when EVERY family it is meant to fix is
fixed and none is introduced.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from .validate import FIXED, INTRODUCED, Validation, verify_suggested


@dataclass
class CombinedPatch:
    implementation: str
    families: list[str]  # the families it is meant to fix (each has a per-family patch too)
    diff: str  # unified diff against the released (installed) source, -p1
    files: list[str]
    validation: Optional[Validation] = None  # None: not verified

    @property
    def verified(self) -> Optional[bool]:
        """True: every family fixed, none introduced; False: not; None: not checked."""
        return None if self.validation is None else fixes_all(self.validation, self.families)

    def to_dict(self) -> dict:
        """What ``EnrichedResult.combined_patches`` holds (plain data for the renderers)."""
        return {"diff": self.diff, "families": list(self.families), "files": list(self.files),
                "verified": self.verified}


def fixes_all(validation: Validation, families) -> bool:
    """No error, every one of ``families`` fixed, no family introduced."""
    fixed = {s.family for s in validation.of(FIXED)}
    return (validation.error is None and set(families) <= fixed and not validation.of(INTRODUCED))


def combined_patch(implementation: str, before_findings: list[dict], *, verify: bool = True,
                   **verify_kw) -> Optional[CombinedPatch]:
    """The combined patch of ``implementation`` for the families of ``before_findings``
    (``Finding.to_dict()`` records of its audit) that have a patch, verified through
    ``verify_suggested`` unless ``verify=False``; None when fewer than two families have a
    patch or their edits do not combine."""
    from .. import upstream

    mine = [f for f in before_findings if f.get("implementation") == implementation]
    found = upstream.combined_patch(implementation, [f["family"] for f in mine])
    if found is None:
        return None
    out = CombinedPatch(implementation, found["families"], found["diff"], found["files"])
    if verify:
        out.validation = verify_suggested(implementation, out.diff, mine, **verify_kw)
    return out
