"""One unit of the audit: one implementation at one level (``UnitAudit``, run by
``audit_level``), and one implementation's summary from its units (``summarize``,
``finish_summary``).

A unit replays the curated ``cases/`` of its level, searches (``audit.collect.search``: a
generate phase that spends the whole budget -- shared between the generic strategies and
each class of real-text inputs, ``audit.collect.realtext`` -- then one shrink run per key),
fits the model of the implementation (``audit.collect.fitting``), runs the metamorphic
relations of its level, makes each fitted deviation's repro (``audit.collect.repros``),
replays every repro in a fresh worker (``audit.collect.replay``), and assembles its findings
(``audit.collect.assemble``), its fit line and its column of the conformance matrix
(``audit.diagnose.conformance``).  Every input is scored by the implementation and by the
reference under the implementation's *claimed* parameters (``audit.collect.checker``); a
divergence is classified into a family key (``audit.diagnose.classify``).
``audit.collect.parallel`` runs units here or in a pool; ``audit.collect.runner`` is the
entry point.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

from hypothesis import strategies as st

from . import fitting, realtext
from .assemble import _findings, _groups, fold_replayed, merge_levels, remainder
from .cases import _applicable, load_cases
from .checker import Checker
from ..diagnose.conformance import align_claimed, level_conformance
from ..diagnose.families import FAMILIES
from ..diagnose.reduce import segments_of
from ..findings import LEVELS, AdapterSummary, Finding, family_count
from ..settings import options as settings
from ..settings.hypothesis_profiles import SearchProfile
from ..settings.hypothesis_profiles import resolve as resolve_profile
from .regroup import explain_again
from .repros import UNEXPLAINED_FLOOR, reduce_repros, reduce_unexplained
from .search import (
    Pass, Progress, _rank, derived_seed, generate, keys_to_shrink, metamorphic_examiner, shrink, strategies,
)

__all__ = ["audit_adapter", "audit_level", "UnitAudit", "LevelAudit", "levels_of", "summarize", "finish_summary"]

#: Families after which the metamorphic relations are not run at that level: two calls on one
#: input disagree (no relation can be judged), or calls hang or kill the process.
_NO_METAMORPHIC = {("nondeterminism",), ("timeout",), ("crash",)}
#: Peel rounds after the first search: each searches against the model fitted so far; a
#: second round runs only when the first changed the model.
MAX_PEEL_ROUNDS = 2
#: The share of the claimed-parameter budget spent on the real-text classes (split between
#: them by ``realtext.budget_split``; a count, not a clock).
REAL_TEXT_SHARE = 3


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
    #: the fitted model, how many observed scores it reproduces, on inputs of which classes,
    #: and what it leaves out (audit.collect.fitting.fit_summary)
    fit: dict = field(default_factory=dict)


def levels_of(adapter) -> list[str]:
    sup = adapter.supports
    return [lvl for lvl, ok in (("sentence", sup.sentence), ("corpus", sup.corpus)) if ok]


class UnitAudit:
    """The audit of one (implementation, level) unit: its state -- the checker (and through
    it the classifier and the fitted model), the keys found, the passes run, the repros --
    and its phases, in order (``run``)."""

    def __init__(self, adapter, level: str, *, seed: int, max_examples: int, tolerance: float,
                 cases_dir: Optional[Path], progress: Optional[Callable[[Progress], None]],
                 profile: Optional[SearchProfile]):
        self.adapter, self.level, self.seed, self.max_examples = adapter, level, seed, max_examples
        self.cases_dir, self.progress = cases_dir, progress
        self.profile = profile or resolve_profile()
        self.checker = Checker(adapter, tolerance)
        self.params = adapter.claims.params()
        self.scale = adapter.claims.scale
        self.nrefs = 3 if adapter.supports.multi_reference else 1
        self.nsegs = 3 if level == "corpus" else 1
        self.refs_taken = adapter.supports.refs_limit(self.nrefs)
        self.found: dict = {}
        self.repros: dict = {}
        self.by_name: dict[str, Pass] = {}  # the passes run, for the shrink runs of their keys
        self.confirmed: dict = {}
        #: the input regions where an unexplained deviation was found inert (None: not looked
        #: for, nothing stayed unexplained; ``audit.collect.fitting.judge_behind``)
        self.behind: Optional[list] = None
        self.count = 0
        self.phase = f"{level} cases"
        self.start = time.monotonic()

    # ------------------------------------------------------------------ helpers
    @property
    def model(self):
        """The fitted model under the claimed definition (``audit.diagnose.fitted.FittedModel``)."""
        return self.checker.classifier.fitted(self.params.definition)

    def takes(self, segs) -> bool:
        return all(self.adapter.supports.takes(len(rs)) for _, rs in segs)

    def segments_of(self, inputs: dict) -> list:
        return segments_of(self.level, inputs)

    def tick(self) -> None:
        self.count += 1
        if self.progress and self.count % 10 == 0:
            families = len({g for k in self.found for g in _groups(k)})  # a signature group is one, not two
            self.progress(Progress(self.adapter.name, self.phase, self.count, families, time.monotonic() - self.start))

    def run_pass(self, p: Pass) -> None:
        self.by_name[p.name] = p
        self.phase = f"{self.level} ({p.name})"
        generate(p, self.found, seed=derived_seed(self.seed, self.level, p.name), tick=self.tick,
                 confirmed=self.confirmed, profile=self.profile)

    def examine(self, inputs, changes):
        return self.checker.check(self.level, inputs, changes)

    # ------------------------------------------------------------------ phases
    def run(self) -> "LevelAudit":
        self.replay_cases()
        self.search()
        self.fit()
        self.make_repros()
        self.replay_fresh()
        return self.assemble()

    def replay_cases(self) -> None:
        """The curated regression cases of this level."""
        from .search import record

        for origin, case in load_cases(self.cases_dir):
            inputs = case.get("inputs", {})
            if case.get("level", "sentence") != self.level or not _applicable(self.adapter, self.level, inputs):
                continue
            self.tick()
            obs = self.checker.check(self.level, inputs)
            if obs.key:
                record(self.found, obs, origin=origin)

    def search(self) -> None:
        """Under the claimed parameters: the generic strategies, then each real-text class
        with its share of the budget."""
        sentence, corpus, _ = strategies(self.adapter)
        max_refs = self.adapter.supports.refs_limit(5)
        shares = [(c, n) for c, n in realtext.budget_split(self.max_examples // REAL_TEXT_SHARE,
                                                           realtext.applicable(self.level, max_refs)) if n]
        generic = self.max_examples - sum(n for _, n in shares)
        self.run_pass(Pass("claimed", self.examine, sentence if self.level == "sentence" else corpus, st.just({}),
                           generic))
        for cls, n in shares:
            make = realtext.sentence_inputs if self.level == "sentence" else realtext.corpus_inputs
            self.run_pass(Pass(f"class {cls.id}", self.examine, make(cls, max_refs), st.just({}), n))

    def fit(self) -> None:
        """The model: scan, ignored parameters and the swarm, peel rounds, the metamorphic
        relations, relations behind unknown bugs, then what the others make redundant or no
        longer support is dropped, and inputs met early are explained again."""
        adapter, level = self.adapter, self.level
        sentence, corpus, swarm = strategies(adapter)
        strategy = sentence if level == "sentence" else corpus
        self.phase = f"{level} (model)"
        fitting.scan(self)
        if swarm is not None:
            self.phase = f"{level} (parameters)"
            fitting.probe_claims(self)
            self.run_pass(Pass("swarm", self.examine, strategy, swarm, max(1, self.max_examples // 2)))
        peel_budget = max(10, self.max_examples // 4)
        for round_ in range(1, MAX_PEEL_ROUNDS + 1):
            fams = self.model.families()
            if not fams:
                break  # nothing fitted: the model is the definition, searched already
            before = (tuple(fams), _unexplained_keys(self.found))
            self.confirmed[tuple(fams)] = self.model.variant()
            self.run_pass(Pass(f"peel-{round_}", self.examine, strategy, st.just({}), peel_budget))
            if (tuple(self.model.families()), _unexplained_keys(self.found)) == before:
                break  # the round changed nothing: nothing diverges from the model that it could fit
        from .metamorphic import RELATIONS

        for r in [r for r in RELATIONS if r.level == level and r.applies(adapter)]:
            if any(k in self.found for k in _NO_METAMORPHIC):
                break
            self.run_pass(Pass(r.family, metamorphic_examiner(self.checker, r), r.strategy(adapter), st.just({}),
                               max(10, self.max_examples // 4), explain_away=False))
        if fitting.has_unexplained(self.found):
            self.phase = f"{level} (relations)"
            if fitting.fit_relations(self):
                self.checker.classifier.retry(level)
                fitting.scan(self)  # a new model: the deviations that needed it can be fitted now
            self.phase = f"{level} (behind)"
            if fitting.judge_behind(self):
                self.checker.classifier.retry(level)
        self.settle_model()

    #: Rounds of settling at most: explaining the recorded examples again may accept a family
    #: (an input met early, explained by the deviations fitted since), and the model is then
    #: judged again with it -- a family the new one and the others reproduce together is dropped.
    SETTLE_ROUNDS = 2

    def settle_model(self) -> None:
        """What the others make redundant or no longer support is dropped, and the recorded
        examples are explained again; again while that changed the model."""
        for _ in range(self.SETTLE_ROUNDS):
            before = tuple(self.model.families())
            dropped = fitting.prune(self) + fitting.settle(self) + fitting.settle_behind(self)
            self.checker.classifier.retry(self.level)  # each key's own examples get an exhaustive search again
            self.found = explain_again(self.found,
                                       lambda o: self.checker.check(o.level, o.inputs, o.changes, repeat=False), dropped)
            if tuple(self.model.families()) == tuple(f for f in before if f not in dropped):
                break

    def make_repros(self) -> None:
        """Each fitted deviation's own repro (reduced from its trigger inputs, alone where
        possible); every other key shrunk on its own from the search's examples."""
        self.phase = f"{self.level} (repros)"
        self.repros = reduce_repros(self)
        self.phase = f"{self.level} (shrinking)"
        for key, pass_name in keys_to_shrink(self.found, skip=set(self.repros)):
            c, p = self.found[key], self.by_name[pass_name]
            obs, flaky = shrink(p, key, c.seeds[pass_name], seed=derived_seed(self.seed, self.level, pass_name, key),
                                tick=self.tick, profile=self.profile)
            if obs is None:  # no recorded example fails again: report the smallest, as flaky
                obs, flaky = c.seeds[pass_name][0][-1], True
            else:
                flaky = flaky or p.examine(obs.replay_case, obs.changes).key != obs.key
            if c.minimal is None or c.origin != "search" or _rank(obs) < _rank(c.minimal):
                c.minimal, c.origin = obs, "search"
            c.flaky = c.flaky or flaky
        for c in self.found.values():  # keys no finding is built from: their smallest example
            if c.minimal is None:
                seeds = sorted((s for ss in c.seeds.values() for s in ss), key=lambda s: s[:2])
                c.minimal = seeds[0][-1] if seeds else c.largest
        self.reduce_unexplained()

    def reduce_unexplained(self) -> None:
        """Every unexplained row's repro cut character by character while it stays in its key
        (``audit.collect.repros.reduce_unexplained``): a long real-text sentence is not the row's
        repro where a shorter input in the same key reproduces it."""
        for key in [k for k in self.found if k[0] == "unexplained"]:
            c = self.found[key]
            if c.minimal is None or c.minimal.changes or c.minimal.size < UNEXPLAINED_FLOOR:
                continue
            obs = reduce_unexplained(self, key, c.minimal)
            if obs is not None and _rank(obs) < _rank(c.minimal):
                c.minimal = obs

    def replay_fresh(self) -> None:
        """Every repro replayed in a fresh worker: a value it does not give there is a
        ``crash``, ``timeout``, ``stateful`` or ``nondeterminism`` finding
        (``audit.collect.replay.judge``), into which the key it stood for is folded."""
        from .replay import replay

        self.phase = f"{self.level} (fresh replay)"
        observations = [c.minimal for c in self.found.values() if c.minimal is not None] + list(self.repros.values())
        unique = list({id(o): o for o in observations}.values())
        for obs, family, detail, outcome in replay(self.adapter, unique, self.checker.tolerance):
            self.found, self.repros = fold_replayed(self.found, self.repros, obs, family, detail, outcome)

    def assemble(self) -> "LevelAudit":
        self.phase = f"{self.level} (conformance)"
        fit = fitting.fit_summary(self)
        extra = remainder(self, fit)
        if extra is not None:
            fit = fitting.fit_summary(self)
        notes = [f"not named: {a}" for a in self.model.ambiguities]
        out = LevelAudit(level=self.level,
                         findings=_findings(self.adapter, self.found, evidence=self.model.evidence, repros=self.repros,
                                            notes=notes),
                         conformance=level_conformance(self.checker, self.params, self.found, self.level),
                         examples=self.count, checked=True, fit=fit)
        out.elapsed = time.monotonic() - self.start
        return out


def audit_level(adapter, level: str, *, seed: int = settings.default("seed"), max_examples: int = settings.BUDGET,
                tolerance: float = settings.default("tolerance"),
                cases_dir: Optional[Path] = settings.DEFAULT_CASES,
                progress: Optional[Callable[[Progress], None]] = None,
                profile: Optional[SearchProfile] = None) -> LevelAudit:
    """Audit one implementation at one level (a unit: independent of every other unit).
    ``profile``: the resolved Hypothesis profile (``audit.settings.hypothesis_profiles``; default
    ``chrf-audit``)."""
    return UnitAudit(adapter, level, seed=seed, max_examples=max_examples, tolerance=tolerance, cases_dir=cases_dir,
                     progress=progress, profile=profile).run()


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
        version=adapter.version,
        claims=adapter.claims.to_dict(),
        signature=adapter.signature,
        examples=sum(u.examples for u in units),
        elapsed=sum(u.elapsed for u in units),
        findings=findings,
        conformance=matrix,
        fit={u.level: u.fit for u in units if u.fit},
        sources={level: adapter.source_record(level) for level in levels},
        reference_signature=adapter.claims.params().signature(None if adapter.supports.multi_reference else 1),
    ), claimed)


def finish_summary(adapter, summary: AdapterSummary, options: dict) -> None:
    """What an implementation promises beyond the definition it claims, checked once its
    levels are audited: a service's contract (an adapter with a ``contract``: the HTTP
    adapter, issue 22; ``audit.collect.service_contract``).  Other adapters have nothing to add."""
    if adapter.contract is not None:
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
        progress(Progress(adapter.name, "done", summary.examples, family_count(summary.findings), summary.elapsed))
    return summary
