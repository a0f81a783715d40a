"""SPEC: which releases of the package are audited, from what the index offers.

* ``A..B``: every release the index offers with A <= version <= B (PEP 440 order; either bound
  may be left out: ``..2.0``, ``3.5..``);
* ``A,B,C``: those releases (one missing from the index is listed as skipped);
* ``all``: every release the index offers.

Only final releases are offered (pip lists no pre-releases by default); versions the index
holds under names that are not PEP 440 versions (``1.6.1.linux-x86_64``) are left out.
"""

from __future__ import annotations

from ..errors import UsageError


def _version(text: str, what: str):
    from packaging.version import InvalidVersion, Version

    try:
        return Version(text.strip())
    except InvalidVersion:
        raise UsageError(f"{what}: {text.strip()!r} is not a version (PEP 440)") from None


def parse(spec: str) -> tuple:
    """("all",) | ("range", low|None, high|None) | ("list", [Version, ...]); UsageError otherwise."""
    text = (spec or "").strip()
    if not text:
        raise UsageError("SPEC is empty: give a range A..B, a list A,B or all")
    if text == "all":
        return ("all",)
    if ".." in text:
        low, _, high = text.partition("..")
        if ".." in high or "," in text:
            raise UsageError(f"SPEC {text!r}: a range is A..B (one '..')")
        lo = _version(low, "SPEC's lower bound") if low.strip() else None
        hi = _version(high, "SPEC's upper bound") if high.strip() else None
        if lo is not None and hi is not None and lo > hi:
            raise UsageError(f"SPEC {text!r}: the lower bound is above the upper bound")
        return ("range", lo, hi)
    parts = [p for p in text.split(",")]
    if any(not p.strip() for p in parts):
        raise UsageError(f"SPEC {text!r}: an empty version in the list")
    return ("list", [_version(p, "SPEC") for p in parts])


def select(parsed: tuple, available: list) -> tuple[list, list]:
    """(the versions to audit, oldest first, as the index spells them; the listed versions the
    index does not offer).  UsageError when the selection is empty."""
    from packaging.version import InvalidVersion, Version

    offered = {}
    for text in available:
        try:
            v = Version(text)
        except InvalidVersion:
            continue
        offered.setdefault(v, text)
    if parsed[0] == "all":
        chosen, missing = sorted(offered), []
    elif parsed[0] == "range":
        lo, hi = parsed[1], parsed[2]
        chosen = sorted(v for v in offered if (lo is None or v >= lo) and (hi is None or v <= hi))
        missing = []
        if not chosen:
            raise UsageError(f"no release between {lo or 'the first'} and {hi or 'the last'} on the package index "
                             f"(it offers {', '.join(offered[v] for v in sorted(offered)[-5:]) or 'none'}"
                             f"{', ...' if len(offered) > 5 else ''})")
    else:
        wanted = sorted(set(parsed[1]))
        chosen = [v for v in wanted if v in offered]
        missing = [str(v) for v in wanted if v not in offered]
    if not chosen and not missing:
        raise UsageError("the package index offers no release of it")
    return [offered[v] for v in chosen], missing


def ordered(versions: list) -> list:
    """``versions`` (strings) oldest first."""
    from packaging.version import Version

    return sorted(versions, key=Version)
