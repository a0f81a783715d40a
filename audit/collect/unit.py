"""One unit of the audit: one implementation at one level (``audit_level``), and one
implementation's summary from its units (``summarize``, ``finish_summary``).

A unit replays the curated ``cases/`` of its level, searches (``audit.collect.search``: a generate
phase that spends the whole budget, then one shrink run per key), fits the model of the
implementation (``audit.collect.fitting``), runs the metamorphic relations of its level, and
assembles its findings (``audit.collect.assemble``) and its column of the conformance matrix
(``audit.diagnose.conformance``).  Every input is scored by the implementation and by the
reference under the implementation's *claimed* parameters (``audit.collect.checker``); a
divergence is classified into a family key (``audit.diagnose.classify``).  ``audit.collect.parallel``
runs units here or in a pool; ``audit.collect.runner`` is the entry point.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

from hypothesis import strategies as st

from .assemble import _findings, _source, explain_again, merge_levels
from .cases import _applicable, load_cases
from .checker import Checker
from ..diagnose.conformance import align_claimed, level_conformance
from ..diagnose.families import FAMILIES
from ..findings import LEVELS, AdapterSummary, Finding
from ..settings import options as settings
from ..settings.hypothesis_profiles import SearchProfile
from ..settings.hypothesis_profiles import resolve as resolve_profile
from .fitting import fit_relations, fit_summary, has_unexplained, probe_claims, prune, reduce_repros, scan
from .search import (
    Pass, Progress, _rank, derived_seed, generate, keys_to_shrink, metamorphic_examiner, record, shrink,
    strategies,
)

__all__ = ["audit_adapter", "audit_level", "LevelAudit", "levels_of", "summarize", "finish_summary"]

#: Families after which the metamorphic relations are not run at that level: two calls on one
#: input disagree (no relation can be judged), or calls hang or kill the process.
_NO_METAMORPHIC = {("nondeterminism",), ("timeout",), ("crash",)}
#: Peel rounds after the first search: each searches against the model fitted so far; a
#: second round runs only when the first changed the model.
MAX_PEEL_ROUNDS = 2


def _unexplained_keys(found: dict) -> frozenset:
    return frozenset(k for k in found if k and k[0] == "unexplained")


@dataclass
class LevelAudit:
    """What one (implementation, level) unit found: plain records, picklable."""

    level: str
    findings: list[Finding] = field(default_factory=list)
    conformance: dict = field(default_factory=dict)  # definition -> families that break it
    examples: int = 0
    elapsed: float = 0.0
    checked: bool = False  # the claimed-parameter search spent its whole budget
    #: the fitted model and how many observed scores it reproduces (audit.collect.fitting.fit_summary)
    fit: dict = field(default_factory=dict)


def levels_of(adapter) -> list[str]:
    sup = adapter.supports
    return [lvl for lvl, ok in (("sentence", sup.sentence), ("corpus", sup.corpus)) if ok]


def audit_level(adapter, level: str, *, seed: int = settings.default("seed"), max_examples: int = settings.BUDGET,
                tolerance: float = settings.default("tolerance"),
                cases_dir: Optional[Path] = settings.DEFAULT_CASES,
                progress: Optional[Callable[[Progress], None]] = None,
                profile: Optional[SearchProfile] = None) -> LevelAudit:
    """Audit one implementation at one level (a unit: independent of every other unit).
    ``profile``: the resolved Hypothesis profile (``audit.settings.hypothesis_profiles``; default
    ``chrf-audit``)."""
    profile = profile or resolve_profile()
    checker = Checker(adapter, tolerance)
    found: dict = {}
    start = time.monotonic()
    count = [0]
    phase = [f"{level} cases"]

    def tick():
        count[0] += 1
        if progress and count[0] % 10 == 0:
            progress(Progress(adapter.name, phase[0], count[0], len({f for k in found for f in k}),
                              time.monotonic() - start))

    # 1. Replay the curated regression cases of this level.
    for origin, case in load_cases(cases_dir):
        inputs = case.get("inputs", {})
        if case.get("level", "sentence") != level or not _applicable(adapter, level, inputs):
            continue
        tick()
        obs = checker.check(level, inputs)
        if obs.key:
            record(found, obs, origin=origin)

    # 2. The passes: under the claimed parameters; the accepted parameters it ignores; a
    #    swarm over the parameters it takes; then peel rounds against the fitted model (a
    #    bug hidden behind another one diverges from the model on its own); then the
    #    metamorphic relations of this level.
    sentence, corpus, swarm = strategies(adapter)
    strategy = sentence if level == "sentence" else corpus
    examine = lambda inputs, changes: checker.check(level, inputs, changes)  # noqa: E731
    confirmed: dict = {}
    name = adapter.name
    by_name: dict[str, Pass] = {}  # the passes run, for the shrink runs of their keys

    def run(p: Pass) -> None:
        by_name[p.name] = p
        phase[0] = f"{level} ({p.name})"
        generate(p, found, seed=derived_seed(seed, level, p.name), tick=tick, confirmed=confirmed, profile=profile)

    run(Pass("claimed", examine, strategy, st.just({}), max_examples))
    phase[0] = f"{level} (model)"
    scan(checker, level, found, tick)
    if swarm is not None:
        phase[0] = f"{level} (parameters)"
        probe_claims(checker, level, found, tick)
        run(Pass("swarm", examine, strategy, swarm, max(1, max_examples // 2)))
    peel_budget = max(10, max_examples // 4)
    for round_ in range(1, MAX_PEEL_ROUNDS + 1):
        fams, model = checker.classifier.model(name, adapter.claims.definition)
        if not fams:
            break  # nothing fitted: the model is the definition, searched already
        before = (tuple(fams), _unexplained_keys(found))
        confirmed[tuple(fams)] = model
        run(Pass(f"peel-{round_}", examine, strategy, st.just({}), peel_budget))
        if (tuple(checker.classifier.model(name, adapter.claims.definition)[0]), _unexplained_keys(found)) == before:
            break  # the round changed nothing: nothing diverges from the model that it could fit
    from .metamorphic import RELATIONS

    relations = [r for r in RELATIONS if r.level == level and r.applies(adapter)]
    for r in relations:
        if any(k in found for k in _NO_METAMORPHIC):
            break
        run(Pass(r.family, metamorphic_examiner(checker, r), r.strategy(adapter), st.just({}),
                 max(10, max_examples // 4), explain_away=False))
    # Divergences still unexplained: a bug no family describes may hide catalogued ones,
    # which relations over the implementation's own scores can still name.
    if has_unexplained(found):
        phase[0] = f"{level} (relations)"
        if fit_relations(checker, level, found, tick, seed=seed, profile=profile):
            # a new model: the deviations that needed it can be fitted now, exactly
            checker.classifier.failures.pop((name, level), None)
            scan(checker, level, found, tick)
    # A deviation the others make redundant is dropped; inputs met before the
    # implementation's other deviations were confirmed: explained now?
    dropped = prune(checker, level, tick)
    found = explain_again(found, lambda o: checker.check(o.level, o.inputs, o.changes, repeat=False), dropped)

    # 3. Repros: each fitted deviation's own (reduced from its trigger inputs, alone where
    #    possible); every other key shrunk on its own from the search's examples.
    phase[0] = f"{level} (repros)"
    repros = reduce_repros(checker, level, found, seed=seed, tick=tick, profile=profile)
    phase[0] = f"{level} (shrinking)"
    for key, pass_name in keys_to_shrink(found, skip=set(repros)):
        c, p = found[key], by_name[pass_name]
        obs, flaky = shrink(p, key, c.seeds[pass_name], seed=derived_seed(seed, level, pass_name, key), tick=tick,
                            profile=profile)
        if obs is None:  # no recorded example fails again: report the smallest, as flaky
            obs, flaky = c.seeds[pass_name][0][-1], True
        else:
            flaky = flaky or p.examine(obs.replay_case, obs.changes).key != obs.key
        if c.minimal is None or c.origin != "search" or _rank(obs) < _rank(c.minimal):
            c.minimal, c.origin = obs, "search"
        c.flaky = c.flaky or flaky
    for c in found.values():  # keys no finding is built from: their smallest example
        if c.minimal is None:
            seeds = sorted((s for ss in c.seeds.values() for s in ss), key=lambda s: s[:2])
            c.minimal = seeds[0][-1] if seeds else c.largest

    phase[0] = f"{level} (conformance)"
    out = LevelAudit(level=level, findings=_findings(adapter, found, evidence=checker.classifier.evidence,
                                                     repros=repros),
                     conformance=level_conformance(checker, adapter.claims.params(), found, level),
                     examples=count[0], checked=True, fit=fit_summary(checker, level))
    out.elapsed = time.monotonic() - start
    return out


def _order(f: Finding) -> tuple:
    return (list(FAMILIES).index(f.family) if f.family in FAMILIES else 999, f.family, LEVELS.index(f.level))


def summarize(adapter, units: list[LevelAudit]) -> AdapterSummary:
    """One implementation's summary from its units: findings keyed by (family, level)."""
    from reference_impl import DEFINITIONS

    findings = merge_levels(sorted((f for u in units for f in u.findings), key=_order))
    matrix: dict = {d: {} for d in DEFINITIONS}
    claimed = adapter.claims.definition
    for u in units:
        if u.checked:
            for d in DEFINITIONS:
                matrix[d][u.level] = list(u.conformance.get(d, []))
    levels = [u.level for u in units]
    return align_claimed(AdapterSummary(
        implementation=adapter.name,
        version=getattr(adapter, "version", None),
        claims=adapter.claims.to_dict(),
        signature=getattr(adapter, "signature", adapter.name),
        examples=sum(u.examples for u in units),
        elapsed=sum(u.elapsed for u in units),
        findings=findings,
        conformance=matrix,
        fit={u.level: u.fit for u in units if u.fit},
        sources={level: _source(adapter, level) for level in levels},
        reference_signature=adapter.claims.params().signature(None if adapter.supports.multi_reference else 1),
    ), claimed)


def finish_summary(adapter, summary: AdapterSummary, options: dict) -> None:
    """What an implementation promises beyond the definition it claims, checked once its
    levels are audited: a service's contract (an adapter with a ``contract``: the HTTP
    adapter, issue 22; ``audit.collect.service_contract``).  Other adapters have nothing to add."""
    if getattr(adapter, "contract", None) is not None:
        from .service_contract import audit_contract

        audit_contract(adapter, summary, seed=options["seed"], max_examples=options["max_examples"])
        align_claimed(summary, adapter.claims.definition)


def audit_adapter(adapter, *, seed: int = settings.default("seed"), max_examples: int = settings.BUDGET,
                  tolerance: float = settings.default("tolerance"),
                  cases_dir: Optional[Path] = settings.DEFAULT_CASES, derandomize: bool = False,
                  progress: Optional[Callable[[Progress], None]] = None,
                  profile: Optional[SearchProfile] = None) -> AdapterSummary:
    """Audit one implementation, its levels one after the other in this process."""
    units = [audit_level(adapter, level, seed=seed, max_examples=max_examples, tolerance=tolerance,
                         cases_dir=cases_dir, progress=progress, profile=profile) for level in levels_of(adapter)]
    summary = summarize(adapter, units)
    finish_summary(adapter, summary, dict(seed=seed, max_examples=max_examples, tolerance=tolerance))
    if progress:
        progress(Progress(adapter.name, "done", summary.examples, len(summary.findings), summary.elapsed))
    return summary
