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
the oldest or newest release is skipped, the next one inward is tried, so that the first and
last audited releases are the full matrix's.  Each round's releases run side by side.  With
t transitions the audits number about 3 + t * log2(n).  Pure functions of the results so far.
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
    below = [i for i in untried if i < audited[0]]
    above = [i for i in untried if i > audited[-1]]
    if below:
        picks.add(below[0])
    if above:
        picks.add(above[-1])
    for lo, hi in zip(audited, audited[1:]):
        if _families(results[versions[lo]]) == _families(results[versions[hi]]):
            continue
        between = [i for i in untried if lo < i < hi]
        if between:
            middle = (lo + hi) / 2
            picks.add(min(between, key=lambda i: (abs(i - middle), i)))
    return [versions[i] for i in sorted(picks)]


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
