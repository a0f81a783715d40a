"""The enrich stage, between the audit and the renderers: collect -> enrich -> render.

``enrich(result)`` takes the collected ``AuditResult`` and returns an ``EnrichedResult``
(``audit.enriched``): the environment, and per finding its standalone snippet, root cause,
suggested patch (with its verification), scope sweep and, for metamorphic findings, the
reference's value; per implementation, its combined patch
(one diff fixing every family that has a patch, verified like the others).  Everything that looks at upstream
libraries or calls an implementation happens here, so the renderers (``audit.render``) are
pure functions of the enriched result:

* upstream knowledge (snippets, root causes, patches) comes from ``audit.upstream``;
* scope sweeps are scored through isolated adapters (``scoring.AdapterScorer``);
* patch verifications are passed in (``verified``: the CLI verifies while the next
  implementation is audited, see ``verification.start_verification``) or computed here
  (``verify=True``); a patch whose verification was not run is "not checked" (None);
* the impact study (``--impact-data``) is computed here with the audit's adapters
  (``impact.impact_studies``), or passed in as records (``impact=``).
"""

from __future__ import annotations

import platform
from typing import Optional

from ..settings import options
from ..enriched import EnrichedResult, FindingDetails, finding_key
from .impact import ImpactRequest
from .verification import COMBINED, PatchKey, as_fields, key_of, start_verification, verification_jobs, verify_all

__all__ = ["enrich", "environment", "start_verification", "verification_jobs", "verify_all",
           "EnrichedResult", "FindingDetails", "ImpactRequest"]


def environment(result) -> dict:
    """What the reports say the audit ran on: tool, reference, Python, platform, and each
    implementation's version (the adapter's, else the installed upstream's)."""
    import reference_impl

    from .. import __version__, upstream

    packages = {}
    for a in result.adapters:
        packages[a.implementation] = a.version if a.version is not None else upstream.version(a.implementation)
    return {
        "chrf_audit": __version__,
        "reference_impl": reference_impl.__version__,
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "platform": platform.platform(),
        "packages": packages,
    }


def enrich(result, *, verified: Optional[dict[PatchKey, bool]] = None, verify: bool = False,
           with_upstream: bool = True, timeout: float = options.default("timeout"), scorer=None,
           impact: Optional[dict] = None, impact_request: Optional[ImpactRequest] = None,
           adapters: Optional[list] = None, impact_steps=None, say=lambda line: None,
           versions: Optional[dict] = None, related: Optional[list] = None) -> EnrichedResult:
    """The enriched result of an audit.

    ``verified``: patch verifications already done, by (implementation, family).
    ``verify``: verify the others here (``verify_suggested``, two at a time); otherwise a patch not in
    ``verified`` is shown as not checked.  ``with_upstream=False``: no root cause, patch or
    sweep (snippets still).  ``timeout``: per call of the sweeps' adapters.  ``scorer``: the
    sweeps' scorer (``scoring.AdapterScorer`` by default, closed here when made here).
    ``impact``: impact records already made, by implementation; ``impact_request``: compute
    them with ``adapters`` (the audit's, still open; ``impact_steps``/``say``: progress).
    ``versions``: versions results by package (``audit.enrich.versions``: --versions-from or
    the cache), for "regression since"; ``related``: the records of ``--related FILE``."""
    from .. import upstream
    from .scoring import AdapterScorer

    if verify and with_upstream:
        verified = verify_all(result, verified)
    verified = verified or {}
    if impact_request is not None:
        from .impact import impact_studies

        impact = {**(impact or {}), **impact_studies(result, adapters or [], impact_request, steps=impact_steps, say=say)}
    out = EnrichedResult(result=result, environment=environment(result), impact=impact)
    own = scorer is None
    scorer = AdapterScorer(timeout) if own else scorer
    try:
        for a in result.adapters:
            found = [f.family for f in a.findings]
            for f in a.findings:
                out.details[finding_key(f)] = _details(upstream, f, verified, with_upstream, scorer, found)
            if with_upstream:
                _issues(out, a, versions or {}, related)
            combined = upstream.combined_patch(a.implementation, found) if with_upstream else None
            if combined:
                out.combined_patches[a.implementation] = {**combined, **as_fields(verified.get((a.implementation, COMBINED)))}
            filed = [f.family for f in a.findings if (out.of(f).issue or {}).get("filed", True)]
            stacking = upstream.stacking(a.implementation, list(dict.fromkeys(filed))) if with_upstream else None
            if stacking:
                out.stacking[a.implementation] = stacking
    finally:
        if own:
            scorer.close()
    return out


def _issues(out: EnrichedResult, summary, versions: dict, related) -> None:
    """Each family's issue facts (``issue_facts``), on each of its findings' details."""
    from dataclasses import replace

    from .. import upstream
    from ..upstream.registry import library_of
    from .issue_facts import issue_facts

    impl = summary.implementation
    lib = library_of(impl)
    for family in dict.fromkeys(f.family for f in summary.findings):
        fs = [f for f in summary.findings if f.family == family]
        facts = issue_facts(impl, family, fs, version=summary.version or upstream.version(impl),
                            versions=versions.get(lib.distribution) if lib is not None else None,
                            related=related, others=summary.findings)
        patch = out.details[finding_key(fs[0])].patch or {}
        verification = patch.get("verification") or {}
        chosen = (verification.get("repros") or {}).get(family)
        if chosen:
            shown = _shown(fs, chosen)
            if not chosen["minimal"]:
                facts["repro"] = {**chosen, "snippet": upstream.repro_snippet(impl, shown)}
            options = upstream.patch_options(impl, verification.get("families") or [family], chosen["level"])
            facts["after_snippet"] = upstream.after_snippet(impl, shown, options, chosen["after_raw"])
        facts.update(_group_facts(upstream, impl, family, [f.family for f in summary.findings], verification))
        for f in fs:
            out.details[finding_key(f)] = replace(out.details[finding_key(f)], issue=facts)


def _shown(fs: list, chosen: dict):
    """The finding a verified repro stands for: the family's finding at its level, with the
    repro as its minimal one."""
    from dataclasses import replace

    from ..findings import Repro

    f0 = next((f for f in fs if f.level == chosen["level"]), fs[0])
    if chosen["minimal"]:
        return f0
    repro = Repro(level=chosen["level"], inputs=chosen["inputs"], expected=chosen["expected"],
                  expected_fraction=chosen["expected_fraction"], actual=chosen["before"],
                  actual_raw=chosen["before_raw"], outcome="value")
    return replace(f0, minimal=repro, level=chosen["level"])


def _group_facts(upstream, impl: str, family: str, found: list, verification: dict) -> dict:
    """The patch group a family's patch fixes (``group``: those found, in the group's order)
    and, for a group with an issue of its own (``issue_note``), that issue's text and the
    output of its check on the patched copy."""
    group = [f for f in upstream.patch_group(impl, family) if f in found]
    out: dict = {"group": group}
    k = upstream.knowledge(impl)
    note = (k.issues if k is not None else {}).get(upstream.patch_group(impl, family)[0])
    if note is not None:
        out["issue_note"] = note.to_dict()
        out["check_output"] = (verification.get("check") or {}).get("output")
    return out


def _details(upstream, f, verified: dict, with_upstream: bool, scorer, found=()) -> FindingDetails:
    impl = f.implementation
    root = upstream.root_cause(impl, f.family) if with_upstream else None
    if root is None and f.source and f.source.get("file"):
        root = dict(f.source)
        root.setdefault("excerpt", "")
    patch = None
    diff = upstream.patch(impl, f.family) if with_upstream else None
    if diff:
        patch = {"diff": diff, "description": upstream.patch_description(impl, f.family),
                 **as_fields(verified.get(key_of(impl, f.family, found or [f.family])))}
    sweep = upstream.scope(impl, f, scorer(impl)) if with_upstream else None
    return FindingDetails(snippet=upstream.repro_snippet(impl, f), snippet_language=upstream.snippet_language(impl, f),
                          root_cause=root, patch=patch, scope=sweep, reference_value=_reference_value(f))


def _reference_value(f) -> Optional[tuple]:
    """The reference's exact score on a metamorphic finding's repro (its "expected" is the
    implementation's own score before the transformation), or None."""
    if not f.family.startswith("metamorphic-"):
        return None
    try:
        import reference_impl

        from ..upstream._base import reference_kwargs

        kw = reference_kwargs(f.claims)
        m = f.minimal
        if m.level == "sentence":
            r = reference_impl.sentence_score(m.inputs["hypothesis"], m.inputs["references"], **kw)
        else:
            r = reference_impl.corpus_score(m.inputs["hypotheses"], m.inputs["references"], **kw)
        return str(r.score), float(r.score)
    except Exception:
        return None
