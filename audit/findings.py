"""Plain result records of an audit: what renderers, the CI gate and the JSON report read.

They hold only built-in types (str, int, float, bool, None, lists, dicts) and Fractions as
"n/d" strings, so they serialize without custom encoders and renderers never need to know
about Hypothesis or adapters.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Optional

#: Outcome kinds of one call of an implementation (stable: the JSON report's ``outcome``).
OUTCOMES = ("value", "exception", "crash", "timeout", "invalid")
#: The levels an implementation is audited at, in the order reports list them.
LEVELS = ("sentence", "corpus")


@dataclass
class OrderRow:
    """Per-order statistics of one side (reference or implementation) for one repro."""

    kind: str  # "char" | "word"
    n: int
    hyp: int
    ref: int
    match: int
    precision: Optional[str]  # "n/d" or None
    recall: Optional[str]
    f: Optional[str]
    effective: bool


@dataclass
class Repro:
    """One input with both sides' answers."""

    level: str  # "sentence" | "corpus"
    inputs: dict  # {"hypothesis", "references"} or {"hypotheses", "references"} (stable JSON shape)
    expected: float  # reference score, 0..100
    expected_fraction: str  # "n/d"
    actual: Optional[float]  # implementation's score on 0..100, None when it gave no number
    actual_raw: Optional[str]  # repr of what the implementation returned, on its own scale
    outcome: str  # one of OUTCOMES
    detail: str = ""  # exception text, exit status, ...
    orders: list[OrderRow] = field(default_factory=list)  # reference's per-order statistics
    impl_orders: Optional[list[OrderRow]] = None  # implementation's, where it exposes them
    explanation: list[str] = field(default_factory=list)  # deviations that reproduce `actual`
    #: the parameters this input was scored under when they are not the finding's own (the
    #: claims swarm calls an implementation with other orders, beta, ...); None: the finding's
    claims: Optional[dict] = None

    @property
    def difference(self) -> Optional[float]:
        return None if self.actual is None else self.actual - self.expected


@dataclass
class Finding:
    """One (implementation, family): the minimal repro and the largest difference seen."""

    implementation: str
    family: str  # stable kebab-case id (audit.diagnose.families.FAMILIES)
    level: str  # "sentence" | "corpus"
    title: str  # one sentence: what is wrong
    claims: dict  # claimed parameters: char_order, word_order, beta, lowercase, whitespace, definition, scale
    reference_signature: str
    implementation_signature: str
    minimal: Repro
    largest: Optional[Repro] = None
    explanation: list[str] = field(default_factory=list)  # the family's deviation set on the minimal repro
    flaky: bool = False  # the minimal repro did not reproduce on replay
    source: Optional[dict] = None  # {"file", "line", "function"} of the implementation, when known
    origin: str = "search"  # "search" | "cases/<file>" | "metamorphic"
    examples: int = 0  # inputs that fell into this family during the search
    #: why the name is earned: "explains 12 of 12 targeted inputs" (a confirmed family), the
    #: character classes an unexplained divergence needs, or a metamorphic relation's evidence
    evidence: Optional[str] = None
    #: an HTTP service's finding (``--http``): the request body that reproduces it, as sent
    request: Any = None
    #: the finding's group: its family, or for a family grouped by a signature (unexplained,
    #: exception, invalid-output) the family and signature ("unexplained~digits")
    group: str = ""
    #: the groups of other findings this one stands for and that are therefore not reported
    #: on their own (a metamorphic relation broken on unexplained inputs, a ``stateful``
    #: finding on a repro that gave another value in a fresh process); its evidence names them
    absorbs: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        # Stable JSON core (audit/render/schema.json): flatten the minimal repro's headline fields.
        d["repro"] = self.minimal.inputs
        d["expected"] = self.minimal.expected
        d["expected_fraction"] = self.minimal.expected_fraction
        d["actual"] = self.minimal.actual
        d["outcome"] = self.minimal.outcome
        return d


def family_count(findings) -> int:
    """How many families ``findings`` name, each implementation's counted apart: a family (or
    one signature group of it, "unexplained~digits") found at both levels is one, not two
    (family, level) records.  Every count of families says this."""
    return len({(f.implementation, f.group or f.family) for f in findings})


@dataclass
class AdapterSummary:
    """What was audited, for report headers."""

    implementation: str
    version: Optional[str]
    claims: dict
    signature: str  # the implementation's own (sacreBLEU's signature for sacreBLEU)
    examples: int = 0
    elapsed: float = 0.0
    findings: list[Finding] = field(default_factory=list)
    #: definition -> level -> family ids that break it ([] = meets it); see audit.diagnose.conformance
    conformance: dict = field(default_factory=dict)
    #: level -> {"file", "line", "function"} of the code that ran (None when unknown)
    sources: dict = field(default_factory=dict)
    #: the reference's signature under the claimed parameters
    reference_signature: str = ""
    #: level -> {"model": [families fitted], "explained": n, "observed": m, "scope":
    #: {"classes": [...], "never_tried": [...]}, "leaves_out": [...], "ambiguous": [...]}: the
    #: fitted model of the implementation reproduces n of the m scores it returned under the
    #: claimed parameters, on inputs of those classes, leaving out what it lists
    #: (audit.collect.fitting.fit_summary)
    fit: dict = field(default_factory=dict)
    #: a service audited by its contract (``--http``): the conformance table of
    #: ``audit.contract.conformance`` (each promise kept or broken), else None
    contract: Optional[dict] = None


@dataclass
class AuditResult:
    """Everything one `chrf-audit run` produced."""

    seed: int
    max_examples: int
    tolerance: float
    adapters: list[AdapterSummary] = field(default_factory=list)

    @property
    def findings(self) -> list[Finding]:
        return [f for a in self.adapters for f in a.findings]
