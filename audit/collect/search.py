"""The Hypothesis search of one (implementation, level) unit, in two phases that depend on the seed and budget alone.

*Generate.*  One Hypothesis run per pass whose test never fails: every input is scored and
classified, and each divergence is recorded (with the choice sequence that drew it) instead
of raised.  A test that raises makes Hypothesis stop generating ten seconds of wall-clock
time after the first failure (``ConjectureRunner.should_generate_more``), so what a run
found used to depend on the machine's speed, and most of the budget went unspent.  Here the
whole ``max_examples`` budget is spent.  The run aims (``target``) at what the explanations
confirmed so far do *not* predict, so that a second and third bug are found in the same
budget instead of more copies of the first.

*Shrink.*  Each key that a finding will be built from gets its own Hypothesis run, started
from its recorded examples (in an in-memory database, under the secondary key, so that
Hypothesis shrinks them instead of taking them as already minimal), in which only that key
fails.  Hypothesis gives up shrinking after ``MAX_SHRINKING_SECONDS`` of wall-clock time,
and draws constants mined from whatever local modules are imported: ``no_wall_clock`` (``audit.settings.hypothesis_hooks``) lifts
the one and pins the other for the runs made here, so the repro is the same on a machine
twenty times slower and in any process (shrinking stays bounded by Hypothesis's count of
successful shrinks).  Both phases' settings: ``audit.settings.hypothesis_profiles`` (what users
tune in a profile, what the design forces; the clock-dependent too_slow check suppressed).
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Callable, Optional

from hypothesis import Phase, given, seed as hseed, target

from .checker import Checker, Observation
from ..adapters import faults
from ..settings.hypothesis_hooks import choices_to_bytes, current_choices, no_wall_clock, use_database
from ..settings.hypothesis_profiles import HealthCheckFailed, SearchProfile, forced_settings

try:  # Python 3.11+
    _BaseExceptionGroup = BaseExceptionGroup  # type: ignore[name-defined]
except NameError:  # pragma: no cover - Python 3.10
    from exceptiongroup import BaseExceptionGroup as _BaseExceptionGroup

#: Recorded examples per key and pass that a shrink run starts from (the smallest ones).
SEEDS_PER_KEY = 4
_DB_KEY = b"chrf-audit"


class Divergence(Exception):
    """Raised inside a shrink run: the input falls into the key being shrunk."""

    def __init__(self, observation: Observation):
        super().__init__(" + ".join(observation.key or ()))
        self.observation = observation


@dataclass
class _Collected:
    """What the search saw of one family key (at this unit's level)."""

    minimal: Optional[Observation] = None
    largest: Optional[Observation] = None
    count: int = 0
    origin: str = "search"
    flaky: bool = False
    #: pass name -> [(rank, choices)], the smallest recorded examples, for the shrink run
    seeds: dict = field(default_factory=dict)
    #: groups folded into this key, what each folded metamorphic relation saw (collect.assemble)
    absorbs: list = field(default_factory=list)
    relations: dict = field(default_factory=dict)


@dataclass
class Progress:
    implementation: str
    phase: str
    examples: int
    families: int
    elapsed: float


@dataclass
class Pass:
    """One search of a unit: what it draws and how it judges an input."""

    name: str
    examine: Callable  # (inputs, changes) -> Observation
    strategy: object
    changes: object  # strategy of claim changes (st.just({}) under the claimed parameters)
    budget: int
    explain_away: bool = True


def _rank(obs: Observation) -> tuple:
    """Which of two repros is the better one to report: under the claimed parameters, then
    the smaller input."""
    return (bool(obs.changes), obs.size)


def derived_seed(seed: int, *parts) -> int:
    """A seed per unit and pass, from the user's seed: units do not share a random stream,
    so each gives the same answer alone, in any order and in any process."""
    digest = hashlib.sha256(repr((seed,) + tuple(parts)).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big")


@contextlib.contextmanager
def _health_checks(p: "Pass"):
    """A failed health check ends the audit with one line naming it (a UsageError, exit 2)."""
    from hypothesis.errors import FailedHealthCheck

    try:
        yield
    except FailedHealthCheck as exc:
        import re

        name = re.search(r"HealthCheck\.(\w+)", str(exc))
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        raise HealthCheckFailed(
            f"Hypothesis health check {name.group(1) if name else '?'} failed in the {p.name!r} search: "
            f"{first} (suppress it with suppress_health_check in the Hypothesis profile, "
            f"see docs/hypothesis.md)") from None


def record(found: dict, obs: Observation, origin: str = "search", choices=None, pass_name: str = "") -> None:
    """Count an observation under its key; keep the largest difference and, for the shrink
    run, the smallest examples drawn.  A call the fault budget did not make is no evidence
    (``audit.adapters.faults``); a hang of its derived limit is confirmed before a report."""
    if not faults.counts(obs.outcome):
        return
    c = found.setdefault(obs.key, _Collected(origin=origin))
    c.count += 1
    if c.largest is None or obs.difference > c.largest.difference:
        c.largest = obs
    if choices is None:  # a curated case: it is a repro as it stands
        if c.minimal is None or _rank(obs) < _rank(c.minimal):
            c.minimal, c.origin = obs, origin
        return
    seeds = c.seeds.setdefault(pass_name, [])
    seeds.append((_rank(obs), len(seeds), choices, obs))
    seeds.sort(key=lambda s: s[:2])
    del seeds[SEEDS_PER_KEY:]


# ------------------------------------------------------------------------- explain-away


def _merged(variants: list):
    """One model with every confirmed deviation (None when two set one field differently)."""
    try:
        merged = list(variants[0])
        for v in variants[1:]:
            for i, part in enumerate(v):
                changes = {f.name: getattr(part, f.name) for f in dataclasses.fields(part)
                           if getattr(part, f.name) != f.default}
                for name, value in changes.items():
                    current = getattr(merged[i], name)
                    default = next(f.default for f in dataclasses.fields(part) if f.name == name)
                    if current != default and current != value:
                        return None
                merged[i] = dataclasses.replace(merged[i], **changes)
        return tuple(merged)
    except (TypeError, AttributeError, IndexError):  # a variant that is not two dataclasses
        return None


def unexplained(obs: Observation, confirmed: dict) -> float:
    """How far the implementation is from what the confirmed explanations predict (0 when
    one of them, or all of them together, gives its score): the search maximises this, so
    that it keeps looking where the bugs found so far do not reach."""
    if not obs.key or obs.outcome.kind != "value":
        return 0.0
    actual = obs.outcome.value
    if not confirmed:
        return min(obs.difference, 1e6)
    from ..diagnose.models import predict

    if obs.level == "sentence":
        segments = [(obs.inputs["hypothesis"], list(obs.inputs["references"]))]
    else:
        segments = list(zip(obs.inputs["hypotheses"], [list(r) for r in obs.inputs["references"]]))
    params = obs.claims.params()
    variants = list(confirmed.values())
    merged = _merged(variants) if len(variants) > 1 else None
    best = obs.difference
    for v in variants + ([merged] if merged is not None else []):
        try:
            best = min(best, abs(actual - float(predict(segments, params, obs.level, v))))
        except Exception:  # noqa: BLE001 - a model that does not apply to these parameters
            continue
    return min(best, 1e6)


# ------------------------------------------------------------------------------ phases


def generate(p: Pass, found: dict, *, seed: int, tick: Callable[[], None], confirmed: dict,
             profile: Optional[SearchProfile] = None) -> None:
    """The generate phase of one pass: the whole budget, nothing raised, every divergence
    recorded with the choices that drew it."""

    @forced_settings(profile, max_examples=p.budget, database=None, phases=[Phase.generate, Phase.target])
    @given(changes=p.changes, inputs=p.strategy)
    def probe(changes, inputs):
        tick()
        obs = p.examine(inputs, changes)
        if p.explain_away:
            target(unexplained(obs, confirmed), label="unexplained")
        if obs.key:
            obs.changes = changes
            obs.replay_case = inputs
            record(found, obs, choices=current_choices(), pass_name=p.name)
            if obs.variant is not None and obs.key not in confirmed and not obs.changes:
                confirmed[obs.key] = obs.variant

    with no_wall_clock(), _health_checks(p):
        hseed(seed)(probe)()


def shrink(p: Pass, key: tuple, seeds: list, *, seed: int, tick: Callable[[], None],
           profile: Optional[SearchProfile] = None):
    """Shrink one key from its recorded examples; only that key fails in this run.
    Returns (minimal observation or None when no recorded example fails again, flaky).
    It is one shrink run of the fault budget (``audit.adapters.faults``): a skipped call never
    fails; a hang of a derived limit does, confirmed before it is returned (``reported``)."""
    from hypothesis.database import InMemoryExampleDatabase
    from hypothesis.errors import FlakyFailure

    db = InMemoryExampleDatabase()
    for *_, choices, _obs in seeds:
        db.save(_DB_KEY + b".secondary", choices_to_bytes(choices))

    @forced_settings(profile, max_examples=max(2, len(seeds)), database=db, phases=[Phase.reuse, Phase.shrink],
                     report_multiple_bugs=False)
    @given(changes=p.changes, inputs=p.strategy)
    def probe(changes, inputs):
        tick()
        obs = p.examine(inputs, changes)
        if obs.key == key and faults.counts(obs.outcome):
            obs.changes = changes
            obs.replay_case = inputs
            raise Divergence(obs)

    probe = hseed(seed)(probe)
    probe = use_database(probe, db, _DB_KEY)  # @seed turns the database off; the recorded examples live there
    with no_wall_clock(), faults.shrinking():
        try:
            probe()
        except Divergence as exc:
            out = exc.observation, False
        except (FlakyFailure, _BaseExceptionGroup) as group:
            found = [e for e, _ in _flatten(group, True)]
            out = (found[0].observation if found else None), True
        else:
            out = None, False
    obs, flaky = out
    if obs is None or faults.observed(obs.outcome):
        return obs, flaky
    obs = faults.reported([obs] + [s[-1] for s in seeds], key, lambda o: p.examine(o.replay_case, o.changes))
    return obs, flaky and obs is not None


def _flatten(exc, flaky: bool):
    from hypothesis.errors import FlakyFailure

    if isinstance(exc, _BaseExceptionGroup):
        inner_flaky = flaky or isinstance(exc, FlakyFailure)
        for e in exc.exceptions:
            yield from _flatten(e, inner_flaky)
    elif isinstance(exc, Divergence):
        yield exc, flaky


def keys_to_shrink(found: dict, skip=frozenset()) -> list[tuple]:
    """(key, pass name) to shrink: for each family, the key a finding will be built from
    (under the claimed parameters if any, then the fewest deviations, then the smallest
    recorded example).  Keys no finding reads are not shrunk, nor families in ``skip``
    (their repro is made otherwise: ``audit.diagnose.reduce``)."""
    best: dict[str, tuple] = {}
    for key, c in found.items():
        for pass_name, seeds in c.seeds.items():
            if not seeds:
                continue
            rank = (seeds[0][0][0], len(key), seeds[0][0][1], key, pass_name)
            for fam in key:
                if fam in skip:
                    continue
                if fam not in best or rank < best[fam]:
                    best[fam] = rank
    out = []
    for rank in sorted(set(best.values())):
        out.append((rank[3], rank[4]))
    return out


# ------------------------------------------------------------------------ the strategies


def strategies(adapter):
    """Sentence and corpus strategies for the adapter (lone surrogates only where it takes
    them) and the swarm over the claims it accepts (None: it accepts none)."""
    from . import strategies as S

    max_refs = adapter.supports.refs_limit(3)
    surrogates = adapter.accepts_surrogates
    sentence = S.sentence_inputs(max_refs=max_refs, surrogates=surrogates).map(
        lambda hr: {"hypothesis": hr[0], "references": list(hr[1])}
    )
    corpus = S.corpus_inputs(max_refs=max_refs, surrogates=surrogates).map(
        lambda hr: {"hypotheses": list(hr[0]), "references": [list(r) for r in hr[1]]}
    )
    accepts = adapter.accepts
    if accepts:
        base = adapter.claims.to_dict()
        swarm = S.claim_swarm(accepts, {k: base[k] for k in accepts if k in base}).map(
            lambda d: {k: v for k, v in d.items() if base.get(k) != v}
        )
    else:
        swarm = None
    return sentence, corpus, swarm


def metamorphic_examiner(checker: Checker, relation):
    """Observations for a metamorphic relation; a violation whose inputs a bug model
    explains is left to the differential search."""
    from . import metamorphic

    adapter = checker.adapter

    def examine(case, changes):
        v = metamorphic.check(relation, adapter, case, checker.tolerance)
        _, transformed = relation.transform(case)
        obs = checker.check(relation.level, transformed, repeat=False)  # the record's reference view
        differential = None
        if v is not None:
            # A violation on inputs that a bug model explains is evidence for that family
            # (the differential search reports it); the relation reports only the rest, and
            # stands in for the unexplained group its inputs fall into (audit.collect.assemble).
            base_obs = obs if v.base == v.transformed else checker.check(relation.level, v.base, repeat=False)
            if any(o.key and o.key[0] != "unexplained" for o in (obs, base_obs)):
                v = None
            differential = next((o.key for o in (obs, base_obs) if o.key), None)
        obs.variant = None
        if v is None:
            obs.key = None
            return obs
        obs.key = (relation.family,)
        obs.differential_key = differential
        obs.expected = Fraction(v.base_value)
        obs.detail = v.detail
        return obs

    return examine
