"""Everything a report shows beyond the plain records, computed once per report run:
environment, and per finding the standalone snippet, root cause, patch (and whether it was
verified), scope sweep and chart file name.  Renderers (markdown, JSON) read this."""

from __future__ import annotations

import math
import platform
from dataclasses import dataclass, field
from typing import Any, Optional

from .. import upstream
from ._text import unique_slugs


@dataclass
class FindingDetails:
    snippet: str
    root_cause: Optional[dict]
    patch: Optional[dict]  # {"diff", "description", "verified": bool | None}
    scope: Optional[dict]
    chart: Optional[str]  # path relative to the report directory
    snippet_language: str = "python"  # or "sh" (an external program's protocol request)
    #: metamorphic findings: the reference's exact value on the repro ("n/d", float), beside
    #: the "expected" that is the implementation's own score before the transformation
    reference_value: Optional[tuple] = None


@dataclass
class ReportDetails:
    environment: dict
    slugs: dict[str, str]
    findings: dict[int, FindingDetails] = field(default_factory=dict)  # id(finding) -> details

    def of(self, finding) -> FindingDetails:
        return self.findings[id(finding)]


def environment(result) -> dict:
    import reference_impl

    from .. import __version__

    packages = {}
    for a in result.adapters:
        name = a.implementation
        packages[name] = a.version if a.version is not None else upstream.version(name)
    return {
        "chrf_audit": __version__,
        "reference_impl": reference_impl.__version__,
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "platform": platform.platform(),
        "packages": packages,
    }


def verification_jobs(summary) -> list[tuple]:
    """(implementation, family, diff, the implementation's findings as records) for each
    suggested patch."""
    records = tuple(x.to_dict() for x in summary.findings)
    jobs = []
    for family in dict.fromkeys(x.family for x in summary.findings):  # one job per family, at any level
        diff = upstream.patch(summary.implementation, family)
        if diff:
            jobs.append((summary.implementation, family, diff, records))
    return jobs


#: verification results of this process, by (implementation, family, diff, findings):
#: filled by ``start_verification`` while the next implementation is audited, read by
#: ``collect``
_VERIFIED: dict = {}


def _verify(implementation: str, family: str, diff: str, records: tuple) -> bool:
    """Verified = the family's before-repro is fixed and nothing is introduced, judged by
    ``audit.patch_validation.verify_suggested`` (the path of ``validate-patch``)."""
    import json

    from ..patch_validation import verify_suggested

    key = (implementation, family, diff, json.dumps(records, sort_keys=True, default=str))
    if key not in _VERIFIED:
        _VERIFIED[key] = verify_suggested(implementation, diff, list(records)).fixes(family)
    return _VERIFIED[key]


def start_verification(summary, executor) -> list:
    """Start verifying an implementation's patches on ``executor`` (futures).  The results
    land in ``_VERIFIED``, where ``collect`` finds them: the CLI starts this as soon as an
    implementation's audit is done, while the next implementation is audited."""
    return [executor.submit(_verify, *job) for job in verification_jobs(summary)]


def _verify_all(result) -> None:
    """Verify every suggested patch, two at a time (each is a separate process bound to one
    core)."""
    from ..procs import owned_pool

    with owned_pool(2) as pool:
        for a in result.adapters:
            for fut in start_verification(a, pool):
                fut.result()


def collect(result, *, verify_patches: bool = False, with_upstream: bool = True) -> ReportDetails:
    names = [a.implementation for a in result.adapters]
    slugs = unique_slugs(names)
    det = ReportDetails(environment=environment(result), slugs=slugs)
    if verify_patches:
        _verify_all(result)
    for a in result.adapters:
        for f in a.findings:
            impl = f.implementation
            snippet = upstream.repro_snippet(impl, f)
            root = upstream.root_cause(impl, f.family) if with_upstream else None
            if root is None and f.source and f.source.get("file"):
                root = dict(f.source)
                root.setdefault("excerpt", "")
            p = None
            diff = upstream.patch(impl, f.family) if with_upstream else None
            if diff:
                verified = (_verify(impl, f.family, diff, tuple(x.to_dict() for x in a.findings))
                            if verify_patches else None)
                p = {"diff": diff, "description": upstream.patch_description(impl, f.family), "verified": verified}
            sweep = upstream.scope(impl, f) if with_upstream else None
            chart = f"charts/{slugs[a.implementation]}-{f.family}.svg" if sweep else None
            det.findings[id(f)] = FindingDetails(snippet, root, p, sweep, chart,
                                                 upstream.snippet_language(impl, f), _reference_value(f))
    return det


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


def finite(x: Any) -> Any:
    """JSON-safe: non-finite floats become None, recursively."""
    if isinstance(x, float):
        return x if math.isfinite(x) else None
    if isinstance(x, dict):
        return {k: finite(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [finite(v) for v in x]
    return x


def plain(obj: Any) -> Any:
    """Impact records as plain data: dataclasses (e.g. audit.impact's reports) become dicts."""
    import dataclasses

    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return plain(dataclasses.asdict(obj))
    if isinstance(obj, dict):
        return {str(k): plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [plain(v) for v in obj]
    return obj
