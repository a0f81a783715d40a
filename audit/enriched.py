"""The enriched result: an audit's plain records plus everything the reports show beyond them.

Made by ``audit.enrich.enrich`` (which looks up upstream knowledge, runs the scope sweeps
through the adapters, takes the patch verifications and the impact studies); read by the
renderers of ``audit.render`` through its one document (``audit.render.json_report.build``:
audit.json), which they compute nothing beyond.  Plain data only: this module imports nothing
of the audit, so a renderer importing it pulls in no adapter, runner or upstream library.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

#: How a finding's details are found: (implementation, family, level).  The runner merges
#: findings per (family, level) within an implementation (``runner.summarize``), so the key
#: is unique in a result, and it does not depend on the objects' identity.
FindingKey = tuple[str, str, str]


def finding_key(finding) -> FindingKey:
    return (finding.implementation, finding.family, finding.level)


@dataclass(frozen=True)
class FindingDetails:
    """What the reports show about one finding beyond its record."""

    snippet: str  # a standalone repro
    snippet_language: str = "python"  # or "sh" (an external program's protocol request)
    root_cause: Optional[dict] = None  # {file, path, line, function, excerpt, why}
    patch: Optional[dict] = None  # {"diff", "description", "verified": bool | None (not checked)}
    scope: Optional[dict] = None  # the scope sweep (audit.upstream.sweeps); its chart's file is the renderers' to name
    #: metamorphic findings: the reference's exact value on the repro ("n/d", float), beside
    #: the "expected" that is the implementation's own score before the transformation
    reference_value: Optional[tuple] = None
    #: the upstream issue's facts beyond the audit (``audit.enrich.issue_facts``): bug or
    #: definition difference, title, environment, related discussion, regression, severity,
    #: filed or not, and the issue's repro when it is not the minimal one
    issue: Optional[dict] = None


@dataclass
class EnrichedResult:
    """An ``AuditResult`` with its environment and per-finding details (the report files'
    names are the renderers': ``audit.render.json_report.build``)."""

    result: Any  # audit.findings.AuditResult
    environment: dict  # chrf_audit, reference_impl, python, platform, packages
    details: dict[FindingKey, FindingDetails] = field(default_factory=dict)
    #: implementation -> its impact record (``--impact-data``: audit.impact's study, plain
    #: data, optional ``by_family``), None when no impact was asked for
    impact: Optional[dict] = None
    #: implementation -> its combined patch, one diff fixing every family that has a patch
    #: (only when two or more do): {"diff", "families", "files", "verified": bool | None}
    combined_patches: dict[str, dict] = field(default_factory=dict)
    #: implementation -> whether its filed patches stack (``upstream.stacking``: each applied
    #: after the others, in every order): {"patches", "orders", "applies", "same"}
    stacking: dict[str, dict] = field(default_factory=dict)

    def of(self, finding) -> FindingDetails:
        return self.details[finding_key(finding)]

    def combined_patch(self, implementation: str) -> Optional[dict]:
        return self.combined_patches.get(implementation)
