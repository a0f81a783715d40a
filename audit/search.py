"""The Hypothesis search: one search per level and pass, each family key raised as its own
exception type so that Hypothesis shrinks each family separately.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Callable, Optional

from hypothesis import HealthCheck, Phase, Verbosity, given, seed as hseed, settings, target

from .checker import Checker, Observation

try:  # Python 3.11+
    _BaseExceptionGroup = BaseExceptionGroup  # type: ignore[name-defined]
except NameError:  # pragma: no cover - Python 3.10
    from exceptiongroup import BaseExceptionGroup as _BaseExceptionGroup


class Divergence(Exception):
    """Base of the per-family exception types raised inside the Hypothesis search."""

    observation: Observation


_FAMILY_TYPES: dict[tuple[str, ...], type] = {}


def _divergence_type(key: tuple[str, ...]) -> type:
    if key not in _FAMILY_TYPES:
        name = "Divergence_" + "__".join(k.replace("-", "_") for k in key)
        _FAMILY_TYPES[key] = type(name, (Divergence,), {"__module__": __name__})
    return _FAMILY_TYPES[key]


def _raise(obs: Observation):
    exc = _divergence_type(obs.key)(" + ".join(obs.key))
    exc.observation = obs
    raise exc


@dataclass
class _Collected:
    """What the search saw of one family key."""

    minimal: Optional[Observation] = None
    largest: Optional[Observation] = None
    count: int = 0
    origin: str = "search"
    flaky: bool = False


@dataclass
class Progress:
    implementation: str
    phase: str
    examples: int
    families: int
    elapsed: float


def _rank(obs: Observation) -> tuple:
    """Which of two repros is the better one to report: under the claimed parameters, then
    the smaller input."""
    return (bool(obs.changes), obs.size)


def _collect(found: dict, obs: Observation, origin: str = "search"):
    c = found.setdefault(obs.key, _Collected(origin=origin))
    c.count += 1
    if c.largest is None or obs.difference > c.largest.difference:
        c.largest = obs


def _strategies(adapter):
    from . import strategies as S

    max_refs = 3 if adapter.supports.multi_reference else 1
    sentence = S.sentence_inputs(max_refs=max_refs).map(
        lambda hr: {"hypothesis": hr[0], "references": list(hr[1])}
    )
    corpus = S.corpus_inputs(max_refs=max_refs).map(
        lambda hr: {"hypotheses": list(hr[0]), "references": [list(r) for r in hr[1]]}
    )
    accepts = frozenset(getattr(adapter, "accepts", frozenset()))
    if accepts:
        base = adapter.claims.to_dict()
        swarm = S.claim_swarm(accepts, {k: base[k] for k in accepts if k in base}).map(
            lambda d: {k: v for k, v in d.items() if base.get(k) != v}
        )
    else:
        swarm = None
    return sentence, corpus, swarm


def _search(examine: Callable, strategy, swarm, found: dict, *, seed: int, max_examples: int,
            derandomize: bool, tick: Callable[[], None]):
    """One Hypothesis search; ``examine(inputs, changes)`` gives an Observation whose key is
    None when the input passes.  Returns the minimal failure of each family key."""

    @settings(
        max_examples=max_examples,
        deadline=None,
        database=None,
        derandomize=derandomize,
        report_multiple_bugs=True,
        suppress_health_check=list(HealthCheck),
        verbosity=Verbosity.quiet,
        phases=[Phase.explicit, Phase.generate, Phase.target, Phase.shrink],
    )
    @given(changes=swarm, inputs=strategy)
    def probe(changes, inputs):
        tick()
        obs = examine(inputs, changes)
        target(min(obs.difference, 1e6) if obs.key else 0.0, label="difference")
        if obs.key:
            obs.changes = changes
            obs.replay_case = inputs
            _collect(found, obs)
            _raise(obs)

    if not derandomize:
        probe = hseed(seed)(probe)
    try:
        probe()
    except Divergence as exc:
        return [(exc, False)]
    except _BaseExceptionGroup as group:
        return list(_flatten(group, False))
    return []


def _metamorphic_examiner(checker: Checker, relation):
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
            # stands in for the unexplained group its inputs fall into (audit.assemble).
            base_obs = obs if v.base == v.transformed else checker.check(relation.level, v.base, repeat=False)
            if any(o.key and o.key[0] != "unexplained" for o in (obs, base_obs)):
                v = None
            differential = next((o.key for o in (obs, base_obs) if o.key), None)
        if v is None:
            obs.key = None
            return obs
        obs.key = (relation.family,)
        obs.differential_key = differential
        obs.expected = Fraction(v.base_value)
        obs.detail = v.detail
        return obs

    return examine


def _flatten(exc, flaky: bool):
    from hypothesis.errors import FlakyFailure

    if isinstance(exc, _BaseExceptionGroup):
        inner_flaky = flaky or isinstance(exc, FlakyFailure)
        for e in exc.exceptions:
            yield from _flatten(e, inner_flaky)
    elif isinstance(exc, Divergence):
        yield exc, flaky

