"""``--bisect``: which releases to audit next, so that each transition of the family matrix is
found with O(log n) audits instead of n.

The assumption (stated in docs/versions.md and in the report): **between two audited
releases that show the same families, every release shows those families** -- a family is
introduced and fixed only where the families of the audited releases around it differ
(monotone intervals per family).  A family that comes and goes between two audited releases
that both lack it is not seen; the full matrix is the check for that.

Rounds: the oldest, the newest and the middle release first; then, for every two neighbouring
audited releases whose families differ and that have unaudited releases between them, the
middle of those (skipped releases give no information: the next untried one is taken).  When
the oldest (or newest) release is skipped, the edge of what can be audited is bisected too:
the middle of the releases between the nearest skipped one and the oldest audited, until they
are neighbours.  The second assumption: **releases older than one that could not be audited
(below the oldest audited) cannot be either** (old releases of nltk are Python 2 sources);
they are not tried but listed (``beyond``), so ``nltk all`` costs O(log n) failed installs,
not one per old release.  Each round's releases run side by side.  With t transitions the
audits number about 3 + (t + 2) * log2(n).  Pure functions of the results so far.
"""

from __future__ import annotations


def _families(result: dict) -> tuple:
    return tuple(result.get("families") or ())


def next_round(versions: list, results: dict) -> list:
    """The versions (of ``versions``, oldest first) to audit next; [] when every transition is
    between neighbours.  ``results``: version -> unit result of those audited so far."""
    n = len(versions)
    if not results:
        return [versions[i] for i in sorted({0, n - 1, (n - 1) // 2})]
    tried = {i for i, v in enumerate(versions) if v in results}
    audited = [i for i in sorted(tried) if results[versions[i]].get("status") == "audited"]
    picks: set = set()
    untried = [i for i in range(n) if i not in tried]
    if not audited:
        if untried:  # every probe so far was skipped: go on from both ends and the middle
            picks |= {untried[0], untried[-1], untried[(len(untried) - 1) // 2]}
        return [versions[i] for i in sorted(picks)]
    skipped = sorted(tried - set(audited))
    picks |= _edge(audited[0], [i for i in skipped if i < audited[0]], [i for i in untried if i < audited[0]])
    picks |= _edge(audited[-1], [i for i in skipped if i > audited[-1]], [i for i in untried if i > audited[-1]])
    for lo, hi in zip(audited, audited[1:]):
        if _families(results[versions[lo]]) == _families(results[versions[hi]]):
            continue
        between = [i for i in untried if lo < i < hi]
        if between:
            middle = (lo + hi) / 2
            picks.add(min(between, key=lambda i: (abs(i - middle), i)))
    return [versions[i] for i in sorted(picks)]


def _edge(end: int, skipped: list, untried: list) -> set:
    """Beyond the oldest (or newest) audited release ``end``: the release to try next.  With
    none tried there, the outermost; else the middle of those between ``end`` and the nearest
    skipped one (the edge of what can be audited, found in O(log n) tries); none when they are
    neighbours: the releases beyond the nearest skipped one are taken as not auditable either
    (``beyond``)."""
    if not untried:
        return set()
    if not skipped:
        return {untried[0] if untried[0] < end else untried[-1]}
    nearest = max(skipped) if skipped[0] < end else min(skipped)
    zone = [i for i in untried if min(nearest, end) < i < max(nearest, end)]
    return {zone[(len(zone) - 1) // 2]} if zone else set()


def beyond(versions: list, results: dict) -> dict:
    """version -> reason for every release --bisect did not try beyond the edge of what could
    be audited: older than the oldest audited release and than a skipped one between them (or
    newer, at the other end)."""
    audited = [i for i, v in enumerate(versions) if results.get(v, {}).get("status") == "audited"]
    if not audited:
        return {}
    skipped = [i for i, v in enumerate(versions) if v in results and i not in audited]
    out = {}
    for i, v in enumerate(versions):
        if v in results:
            continue
        if i < audited[0] and any(i < j < audited[0] for j in skipped):
            j = min(j for j in skipped if i < j < audited[0])
            out[v] = (f"not tried (--bisect): older than {versions[j]}, which could not be audited (taken as not "
                      f"auditable either; {versions[audited[0]]} is the oldest audited)")
        elif i > audited[-1] and any(audited[-1] < j < i for j in skipped):
            j = max(j for j in skipped if audited[-1] < j < i)
            out[v] = (f"not tried (--bisect): newer than {versions[j]}, which could not be audited (taken as not "
                      f"auditable either; {versions[audited[-1]]} is the newest audited)")
    return out


def inferred(versions: list, results: dict) -> dict:
    """version -> (the audited release before it, the one after it) for every release bisect
    did not audit and that lies between two audited releases showing the same families."""
    audited = [i for i, v in enumerate(versions) if results.get(v, {}).get("status") == "audited"]
    out = {}
    for lo, hi in zip(audited, audited[1:]):
        for i in range(lo + 1, hi):
            if versions[i] not in results:
                out[versions[i]] = (versions[lo], versions[hi])
    return out
