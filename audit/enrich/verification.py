"""Verification of the suggested patches, one job per (implementation, patch) with a patch: a
patch that fixes several families (``upstream.patch_group``) is one job, keyed by its first
family found.

Every verification goes through ``_verify`` and the one judge ``audit.patches.verdict``; its
results reach the reports only through the mapping ``{(implementation, family): summary}``
that ``audit.enrich.enrich`` takes (``verified=``) or computes itself (``verify=True``): the
summary is ``audit.patches.summary`` (``{"verified": bool, "status": str, ...what was
checked}``).  A verification is kept between runs under the key of everything that could
change it (``verify_cache``: the diff, the findings, chrf-audit's own code, the installed
library's files, the tools, the interpreter).  The CLI starts an
implementation's jobs as soon as its audit is done (``start_verification`` on the
``on_summary`` callback), while the next one is audited, and hands the finished futures'
results to ``enrich``.
"""

from __future__ import annotations

from concurrent.futures import Executor, Future
from typing import Optional

#: (implementation, family): which patch a verification is about
PatchKey = tuple[str, str]
#: the "family" of an implementation's combined patch (one diff fixing every family with a
#: patch) in a PatchKey; no family name has parentheses
COMBINED = "(combined)"


def _families(implementation: str, family: str, before_findings: list[dict]) -> list:
    """The families a patch is meant to fix: every family of the combined patch for
    ``COMBINED``, else those of ``family``'s patch group the audit found."""
    from .. import upstream

    found = list(dict.fromkeys(f["family"] for f in before_findings))
    if family == COMBINED:
        return upstream.combined_patch(implementation, found)["families"]
    return [f for f in upstream.patch_group(implementation, family) if f in found] or [family]


def _verify(implementation: str, family: str, diff: str, before_findings: list[dict]) -> dict:
    """The verdict on ``diff`` for ``family`` of ``implementation`` (every family of the
    combined patch for ``COMBINED``), with what was checked; ``before_findings``:
    ``[f.to_dict() ...]`` of that implementation's audit.  THE one place a suggested patch is
    verified (once per machine: ``verify_cache``, which gives back only a result of the exact
    shape of this verification's summary: ``summary_shape.valid``)."""
    from .. import upstream
    from ..patches.suggested import expected_summary
    from ..patches.summary_shape import valid, well_formed
    from .verify_cache import cached

    def accept(result: dict) -> bool:
        if not well_formed(result):
            return False
        families = _families(implementation, family, before_findings)
        gates = _gates(implementation, family)
        if gates is not None and any(g["result"] == "not run" for g in (result["gates"] or {}).get("after", [])):
            return False  # not checked for want of the tools: never kept, computed again next time
        return valid(result, expected_summary(implementation, families, before_findings,
                                              upstream.patch_options(implementation, families),
                                              upstream.issue_candidates(implementation), gates is not None,
                                              _check(implementation, families) is not None))

    return cached(implementation, family, diff, before_findings,
                  lambda: _compute(implementation, family, diff, before_findings), accept=accept)


def _gates(implementation: str, family: str):
    """The library's gates a suggested patch must pass (the combined patch's too)."""
    from .. import upstream

    return upstream.gates(implementation)


def _check(implementation: str, families: list) -> Optional[tuple]:
    """(program, the fragment its output holds) of the record's check of an opt-in patch's
    keywords together, when the record names one for this patch."""
    from .. import upstream

    k = upstream.knowledge(implementation)
    head = upstream.patch_group(implementation, families[0])[0] if families else None
    note = (k.issues if k is not None else {}).get(head)
    if note is None or set(families) - set(upstream.patch_group(implementation, head)):
        return None  # not this group's patch alone (a combined patch)
    return (note.check, note.check_holds) if note is not None and note.check else None


def _compute(implementation: str, family: str, diff: str, before_findings: list[dict]) -> dict:
    from .. import upstream
    from ..patches import summary, verify_suggested

    families = _families(implementation, family, before_findings)
    validation = verify_suggested(implementation, diff, before_findings, families=families,
                                  options=upstream.patch_options(implementation, families),
                                  default_kept=[f for f in families if upstream.patch_options(implementation, [f])],
                                  candidates=upstream.issue_candidates(implementation),
                                  gates=_gates(implementation, family), check=_check(implementation, families))
    return summary(validation, families)


def verification_jobs(summary) -> list[tuple]:
    """(implementation, family, diff, before_findings) for each suggested patch of an
    implementation's audit: one job per patch (a patch fixing several families once, keyed by
    ``key_of``), whatever its levels, and one for its combined patch (family ``COMBINED``)
    when it has one."""
    from .. import upstream

    before = [f.to_dict() for f in summary.findings]
    found = list(dict.fromkeys(f.family for f in summary.findings))
    jobs, covered = [], set()
    for family in found:
        diff = upstream.patch(summary.implementation, family)
        if diff and family not in covered:
            covered |= set(upstream.patch_group(summary.implementation, family))
            jobs.append((summary.implementation, key_of(summary.implementation, family, found)[1], diff, before))
    combined = upstream.combined_patch(summary.implementation, [f.family for f in summary.findings])
    if combined:
        jobs.append((summary.implementation, COMBINED, combined["diff"], before))
    return jobs


def start_verification(summary, executor: Executor) -> dict[PatchKey, Future]:
    """Start verifying an implementation's patches on ``executor``: the futures by
    (implementation, family); their results are ``enrich``'s ``verified``."""
    return {(job[0], job[1]): executor.submit(_verify, *job) for job in verification_jobs(summary)}


def verify_all(result, done: Optional[dict] = None) -> dict[PatchKey, dict]:
    """Every suggested patch of ``result`` verified, those in ``done`` taken as they are; two
    verifications at a time (each a separate process bound to one core)."""
    from ..processes.owner import owned_pool

    out = dict(done or {})
    with owned_pool(2) as pool:
        futures: dict = {}
        for a in result.adapters:
            for key, job in ((j[:2], j) for j in verification_jobs(a)):
                if key not in out:
                    futures[key] = pool.submit(_verify, *job)
        out.update({key: fut.result() for key, fut in futures.items()})
    return out


def results(futures: dict[PatchKey, Future]) -> dict[PatchKey, dict]:
    """The results of finished (or still running: this waits) verification futures."""
    return {key: fut.result() for key, fut in futures.items()}


def key_of(implementation: str, family: str, found) -> PatchKey:
    """The key of the verification of ``family``'s patch: its group's first family found."""
    from .. import upstream

    return implementation, next((f for f in upstream.patch_group(implementation, family) if f in found), family)


def as_fields(result) -> dict:
    """A verification result as the fields of a patch in the document: ``verified`` (True,
    False, or None when not checked) and, from a summary, ``verification`` (the status and
    what was checked).  A plain bool (older callers, tests) is taken as the verdict alone."""
    if isinstance(result, dict):
        return {"verified": bool(result.get("verified")), "verification": result}
    return {"verified": result}
