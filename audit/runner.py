"""The differential runner: replay ``cases/``, then search with Hypothesis, one finding per family.

Every input is scored by the implementation (through its adapter, isolated) and by the
reference configured with the implementation's *claimed* parameters (``audit.checker``).
A divergence is classified into a family key (``audit.classify``) and the search
(``audit.search``) shrinks each key separately.  Findings are assembled by
``audit.assemble``; the conformance matrix by ``audit.conformance``.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Callable, Optional

from hypothesis import strategies as st

from .assemble import _findings, _source
from .cases import _applicable, load_cases, save_findings_as_cases
from .checker import Checker, Observation
from .conformance import conformance
from .findings import AdapterSummary, AuditResult
from .search import Progress, _Collected, _metamorphic_examiner, _rank, _search, _strategies

__all__ = ["run_audit", "audit_adapter", "Checker", "Observation", "Progress", "conformance",
           "load_cases", "save_findings_as_cases"]


def audit_adapter(adapter, *, seed: int = 0, max_examples: int = 200, tolerance: float = 1e-9,
                  cases_dir: Optional[Path] = Path("cases"), derandomize: bool = False,
                  progress: Optional[Callable[[Progress], None]] = None) -> AdapterSummary:
    """Audit one implementation: cases first, then sentence- and corpus-level search."""
    checker = Checker(adapter, tolerance)
    found: dict[tuple, _Collected] = {}
    start = time.monotonic()
    count = [0]
    phase = ["cases"]

    def tick():
        count[0] += 1
        if progress and count[0] % 10 == 0:
            progress(Progress(adapter.name, phase[0], count[0], len({f for k in found for f in k}), time.monotonic() - start))

    # 1. Replay the curated regression cases.
    for origin, case in load_cases(cases_dir):
        level, inputs = case.get("level", "sentence"), case.get("inputs", {})
        if not _applicable(adapter, level, inputs):
            continue
        tick()
        obs = checker.check(level, inputs)
        if obs.key:
            c = found.setdefault(obs.key, _Collected(origin=origin))
            c.count += 1
            if c.minimal is None or _rank(obs) < _rank(c.minimal):
                c.minimal, c.origin = obs, origin
            if c.largest is None or obs.difference > c.largest.difference:
                c.largest = obs

    # 2. Search, sentence level then corpus level, each family shrunk on its own; first
    #    under the claimed parameters, then (for implementations that take parameters) with
    #    a swarm over them, which finds what only other parameters show.
    sentence, corpus, swarm = _strategies(adapter)
    levels = [lvl for lvl, ok in (("sentence", adapter.supports.sentence), ("corpus", adapter.supports.corpus)) if ok]
    passes = [("claimed", st.just({}), max_examples)]
    if swarm is not None:
        passes.append(("swarm", swarm, max(1, max_examples // 2)))
    searches = []
    for level in levels:
        strategy = sentence if level == "sentence" else corpus
        examine = (lambda lvl: lambda inputs, changes: checker.check(lvl, inputs, changes))(level)
        for name, changes, budget in passes:
            searches.append((f"{level} ({name})", examine, strategy, changes, budget))
    # 3. Metamorphic relations, which need no reference.
    from .metamorphic import RELATIONS

    for relation in RELATIONS:
        if relation.applies(adapter):
            searches.append((relation.family, _metamorphic_examiner(checker, relation),
                             relation.strategy(adapter), st.just({}), max(10, max_examples // 4)))
    for name, examine, strategy, changes, budget in searches:
        if name.startswith("metamorphic-") and any(k in (("nondeterminism",), ("timeout",), ("crash",)) for k in found):
            # Two calls on one input already disagree (no relation can be judged), or calls
            # hang or kill the process (each would cost a timeout or a restart).
            continue
        phase[0] = name
        failures = _search(examine, strategy, changes, found, seed=seed, max_examples=budget,
                           derandomize=derandomize, tick=tick)
        # 4. Replay every minimal example before trusting it.
        for exc, flaky in failures:
            obs = exc.observation
            replay = examine(obs.replay_case, obs.changes)
            c = found.setdefault(obs.key, _Collected())
            c.flaky = c.flaky or flaky or replay.key != obs.key
            if c.minimal is None or _rank(obs) < _rank(c.minimal):
                c.minimal, c.origin = obs, "search"
    # Keys that the search saw but whose shrink Hypothesis folded into another report.
    for key, c in found.items():
        if c.minimal is None and c.largest is not None:
            c.minimal = c.largest
    findings = _findings(adapter, found, evidence=checker.classifier.evidence)
    phase[0] = "conformance"
    matrix = conformance(checker, adapter, found, levels)
    summary = AdapterSummary(
        implementation=adapter.name,
        version=getattr(adapter, "version", None),
        claims=adapter.claims.to_dict(),
        signature=getattr(adapter, "signature", adapter.name),
        examples=count[0],
        elapsed=time.monotonic() - start,
        findings=findings,
        conformance=matrix,
        sources={level: _source(adapter, level) for level in levels},
        reference_signature=adapter.claims.params().signature(None if adapter.supports.multi_reference else 1),
    )
    if progress:
        progress(Progress(adapter.name, "done", count[0], len(summary.findings), summary.elapsed))
    return summary


def run_audit(adapters, *, seed: int = 0, max_examples: int = 200, tolerance: float = 1e-9,
              cases_dir: Optional[Path] = Path("cases"), save_cases: bool = False, derandomize: bool = False,
              progress: Optional[Callable[[Progress], None]] = None,
              on_summary: Optional[Callable[[AdapterSummary], None]] = None) -> AuditResult:
    """Audit each adapter in turn (stable entry point of the Python API).  ``on_summary`` is
    called as soon as each implementation is done (the CLI starts patch verification then)."""
    result = AuditResult(seed=seed, max_examples=max_examples, tolerance=tolerance)
    for adapter in adapters:
        summary = audit_adapter(adapter, seed=seed, max_examples=max_examples, tolerance=tolerance,
                                cases_dir=cases_dir, derandomize=derandomize, progress=progress)
        result.adapters.append(summary)
        if on_summary is not None:
            on_summary(summary)
    if save_cases and cases_dir is not None:
        save_findings_as_cases(result, Path(cases_dir))
    return result

