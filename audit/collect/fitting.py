"""The model of one implementation at one level, beyond single divergences.

The search (``audit.collect.search``) meets divergences one input at a time and the classifier
(``audit.diagnose.classify``) turns the ones it can name into accepted explanations.  This module
holds the steps that look at the implementation as a whole:

* ``probe_claims``: accepted parameters it ignores (``audit.diagnose.claims_probe``);
* ``fit_relations``: deviations named by relations when divergences stay unexplained,
  i.e. behind a bug no family describes (``audit.diagnose.relational``);
* ``reduce_repros``: each fitted deviation's own minimal repro (``audit.diagnose.reduce``);
* ``fit_summary``: how much of what the implementation answered the fitted model
  reproduces: the report's headline, "reference + A + B reproduces 412 of 412 observed
  scores".
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable, Optional

from hypothesis import strategies as st

from ..diagnose import claims_probe, deviations, reduce, relational
from .checker import Checker, Observation
from ..diagnose.classify import score_many
from ..diagnose.deviations.triggers import one_segment, pool as trigger_pool
from ..diagnose.explain import Explanation
from ..diagnose.models import agrees, predict
from ..diagnose.variants import ScoreVariant, TextVariant
from .search import Pass, derived_seed, record, shrink


def _inputs(level: str, segs) -> dict:
    if level == "sentence":
        (h, refs), = segs
        return {"hypothesis": h, "references": list(refs)}
    return {"hypotheses": [h for h, _ in segs], "references": [list(r) for _, r in segs]}


def probe_claims(checker: Checker, level: str, found: dict, tick: Callable[[], None]) -> None:
    """Find the accepted parameters the implementation ignores; record the probe's inputs
    (with the parameter changed) as observations of their family."""
    adapter = checker.adapter
    if not set(adapter.accepts) & set(claims_probe.PROBED):
        return
    _, model = checker.classifier.model(adapter.name, adapter.claims.definition)
    ignored = claims_probe.probe(adapter, level, lambda a, inputs: score_many(a, level, inputs), checker.tolerance,
                                 model)
    for ig in ignored:
        checker.ignored[ig.name] = ig.claimed
        checker.classifier.evidence[(level, (ig.family,))] = ig.evidence
        for segs in ig.inputs[:2]:
            tick()
            obs = checker.check(level, _inputs(level, segs), {ig.name: ig.probed}, repeat=False)
            if obs.key:
                record(found, obs, origin="search")


def scan(checker: Checker, level: str, found: dict, tick: Callable[[], None]) -> list[str]:
    """Every catalogued stage variant the model does not hold yet, judged on its own trigger
    inputs with the fitted model as the residual (``Classifier._confirm``): the model is
    fitted on targeted inputs, not only on what the search happened to meet, so that what
    is found depends neither on the search's luck nor on curated cases.  Returns the
    families it added; each is recorded (its repro comes from ``reduce_repros``)."""
    adapter = checker.adapter
    params = adapter.claims.params()
    nrefs = 3 if adapter.supports.multi_reference else 1
    nsegs = 3 if level == "corpus" else 1
    added = []
    candidates = []
    for stage in ("text", "score"):
        for dev in deviations.modelled(stage):
            if not dev.applies(params, level, nrefs, nsegs):
                continue
            for fld, value in dev.models:
                if dev.model_filter is None or dev.model_filter(params, (fld, value)):
                    part = (replace(TextVariant(), **{fld: value}), ScoreVariant()) if stage == "text" else \
                        (TextVariant(), replace(ScoreVariant(), **{fld: value}))
                    candidates.append(part)
    # every candidate's held-out inputs asked in one batch (the judging below reads them back)
    batch = []
    for part in candidates:
        batch += checker.classifier.targeted_inputs(part[0].families() + part[1].families(), params, level,
                                                    nrefs, part)
    tick()
    checker.classifier.scores(adapter, level, [s for s in batch if all(adapter.supports.takes(len(r)) for _, r in s)])
    for stage in ("text", "score"):
        for dev in deviations.modelled(stage):
            fitted, _ = checker.classifier.model(adapter.name, params.definition)
            if dev.id in fitted or not dev.applies(params, level, nrefs, nsegs) or \
                    (adapter.name, params.definition, dev.id) in checker.classifier.dropped:
                continue
            for fld, value in dev.models:
                if dev.model_filter is not None and not dev.model_filter(params, (fld, value)):
                    continue
                part = (replace(TextVariant(), **{fld: value}), ScoreVariant()) if stage == "text" else \
                    (TextVariant(), replace(ScoreVariant(), **{fld: value}))
                cand = Explanation([dev.id], None, variant=part)
                tick()
                if checker.classifier._confirm(adapter, level, params, cand):
                    checker.classifier.accept(adapter.name, params.definition, cand.families, cand.variant)
                    added.append(dev.id)
                    break
    return added


def prune(checker: Checker, level: str, tick: Callable[[], None]) -> list[str]:
    """Drop from the model every fitted deviation the others make redundant: on its own
    trigger inputs, and on every score observed under the claimed parameters, the model
    without it predicts the implementation wherever the model with it does.  (Two
    deviations can coincide on the inputs one of them was accepted on -- reading a corpus's
    references as streams uses only the first reference of a one-segment corpus -- and a
    name is kept only when the implementation needs it.)  Deviations named by relations are
    not judged here: no exact model reproduces their implementation.  Returns the dropped."""
    adapter = checker.adapter
    params = adapter.claims.params()
    scale = adapter.claims.scale
    definition = params.definition
    nrefs = adapter.supports.refs_limit(3 if adapter.supports.multi_reference else 1)
    tol = checker.tolerance
    dropped = []
    fams, _ = checker.classifier.model(adapter.name, definition)
    for fam in reversed(fams):
        if str(checker.classifier.evidence.get((level, (fam,)), "")).startswith("relations:"):
            continue
        _, model = checker.classifier.model(adapter.name, definition)
        rest = reduce.without(fam, model)
        if rest == model:
            continue
        pool = [s for s in trigger_pool(fam, params, level, nrefs) if all(adapter.supports.takes(len(r)) for _, r in s)]
        tick()
        observed = [(s, v) for s, v in zip(pool, score_many(adapter, level, pool)) if v is not None]
        observed += checker.samples[level]

        def explains(variant, segs, value) -> bool:
            try:
                return agrees(predict(segs, params, level, variant), variant[1], value, scale, tol)
            except Exception:  # noqa: BLE001 - a model that cannot read this input
                return False

        full = [explains(model, s, v) for s, v in observed]
        if sum(full[:len(pool)]) < 5:
            continue  # not an exact fit on its own inputs: nothing to compare
        if all(explains(rest, s, v) for (s, v), ok in zip(observed, full) if ok):
            checker.classifier.drop(adapter.name, definition, fam)
            dropped.append(fam)
    return dropped


def has_unexplained(found: dict) -> bool:
    return any(k and k[0] == "unexplained" and c.minimal is not None and not c.minimal.changes
               or k and k[0] == "unexplained" and c.minimal is None
               for k, c in found.items())


def fit_relations(checker: Checker, level: str, found: dict, tick: Callable[[], None], *, seed: int = 0,
                  profile=None) -> list:
    """Deviations named by relations on top of the fitted model (run when divergences stay
    unexplained); each is accepted into the model and recorded with its example."""
    adapter = checker.adapter
    params = adapter.claims.params()
    fams, model = checker.classifier.model(adapter.name, adapter.claims.definition)
    nrefs = 3 if adapter.supports.multi_reference else 1
    nsegs = 3 if level == "corpus" else 1
    scorer = lambda inputs: score_many(adapter, level, inputs)  # noqa: E731
    exclude = frozenset(fams)
    # Reference selection and corpus aggregation first: they decide which statistics the
    # pairs of the text stage are compared on.
    fits = relational.fit_identities(scorer, params, level, model, nrefs, checker.tolerance, exclude)
    for fit in fits:  # (identities name score-stage deviations)
        model = (model[0], replace(model[1], **{fit.field: fit.value}))
    fits += relational.fit_text_fields(scorer, params, level, model, nrefs, nsegs, checker.tolerance,
                                       exclude | {f.family for f in fits})
    for fit in fits:
        part = (replace(TextVariant(), **{fit.field: fit.value}), ScoreVariant()) if fit.stage == "text" else \
            (TextVariant(), replace(ScoreVariant(), **{fit.field: fit.value}))
        checker.classifier.accept(adapter.name, adapter.claims.definition, [fit.family], part)
        checker.classifier.evidence[(level, (fit.family,))] = fit.evidence
        tick()
        segs = fit.example
        if fit.holds is not None:
            segs = reduce.segments_of(level, reduced(level, fit.family, fit.holds, fit.example, tick=tick, profile=profile,
                                                     seed=derived_seed(seed, level, "relations", fit.family)))
        obs = checker.check(level, _inputs(level, fit.shown(segs)), repeat=False)
        if obs.outcome.kind == "value":
            obs.key = (fit.family,)
            obs.detail = fit.evidence
            obs.variant = None
            record(found, obs, origin="search")
    return fits


def repro_level(family: str, level: str) -> str:
    """The level whose trigger inputs (and reduction seed) start ``family``'s repro at
    ``level``.  A family whose triggers are one-segment inputs starts from the sentence
    level's at both levels, so its corpus repro is, wherever the family shows alike on one
    segment, the sentence repro as a one-segment corpus: the two levels show the same
    hypothesis and reference, not two mirror-image inputs drawn apart (issue 29, item 16)."""
    return "sentence" if one_segment(family) else level


def reduce_repros(checker: Checker, level: str, found: dict, *, seed: int, tick: Callable[[], None],
                  profile=None) -> dict[str, Observation]:
    """family -> its repro observation, for every family the model fitted at this level
    that a trigger input shows (alone where possible).  Families it cannot show keep the
    search's shrunk example."""
    adapter = checker.adapter
    params = adapter.claims.params()
    scale = adapter.claims.scale
    fams, model = checker.classifier.model(adapter.name, adapter.claims.definition)
    nrefs = 3 if adapter.supports.multi_reference else 1
    out: dict[str, Observation] = {}
    for fam in fams:
        if fam.startswith("parameter-ignored-"):
            continue
        start_level = repro_level(fam, level)
        pool = trigger_pool(fam, params, start_level, adapter.supports.refs_limit(nrefs))
        pool = [s for s in pool if all(adapter.supports.takes(len(rs)) for _, rs in s)]
        values = score_many(adapter, level, pool) if pool else []
        tiers = [reduce.tier(s, v, fam, model, params, level, scale, checker.tolerance) for s, v in zip(pool, values)]
        best = min((t for t in tiers if t is not None), default=None)
        if best is None:
            continue
        # the start: in the best tier, the input where the fewest other deviations matter
        ranked = sorted((reduce.others_mattering(s, fam, model, params, level, checker.tolerance), i)
                        for i, (s, t) in enumerate(zip(pool, tiers)) if t == best)
        others, start = ranked[0][0], pool[ranked[0][1]]
        obs = _reduce(checker, level, fam, model, best, start, others, seed=derived_seed(seed, start_level, "reduce", fam),
                      tick=tick, profile=profile)
        if obs is not None:
            out[fam] = obs
            if not any(fam in key for key in found):  # fitted on targeted inputs alone
                record(found, obs, origin="search")
    return out


def _reduce(checker: Checker, level: str, family: str, model: tuple, wanted: int, start, others: int, *,
            seed: int, tick, profile) -> Optional[Observation]:
    """``start`` reduced while it stays in tier ``wanted`` (``audit.diagnose.reduce.tier``) with no
    more of the model's other deviations mattering than on ``start``."""
    adapter = checker.adapter
    params = adapter.claims.params()
    scale = adapter.claims.scale

    def predicate(segs) -> bool:
        if wanted and reduce.others_mattering(segs, family, model, params, level, checker.tolerance) > others:
            return False
        value = score_many(adapter, level, [segs])[0]
        return reduce.tier(segs, value, family, model, params, level, scale, checker.tolerance) == wanted

    inputs = reduced(level, family, predicate, start, seed=seed, tick=tick, profile=profile)
    obs = checker.check(level, inputs, repeat=False)
    return obs if obs.key else None


def reduced(level: str, name: str, predicate: Callable, start, *, seed: int, tick, profile) -> dict:
    """The smallest reduction of ``start`` (a segment list) that Hypothesis's shrinker finds
    keeping ``predicate``; ``start`` itself when nothing smaller keeps it."""
    key = ("reduce", name)

    def examine(inputs, changes):
        return Observation(level, None, inputs, None, None, key if predicate(reduce.segments_of(level, inputs)) else None)

    p = Pass(f"reduce {name}", examine, reduce.strategy(start, level), st.just({}), 2)
    choices = reduce.start_choices(start, level)
    found, _ = shrink(p, key, [(None, 0, choices, None)], seed=seed, tick=tick, profile=profile)
    return found.inputs if found is not None else _inputs(level, start)


def fit_summary(checker: Checker, level: str) -> dict:
    """The fitted model and how many observed scores (under the claimed parameters) it
    reproduces exactly."""
    adapter = checker.adapter
    params = adapter.claims.params()
    fams, model = checker.classifier.model(adapter.name, adapter.claims.definition)
    explained = 0
    samples = checker.samples[level]
    for segs, value in samples:
        try:
            if agrees(predict(segs, params, level, model), model[1], value, adapter.claims.scale, checker.tolerance):
                explained += 1
        except Exception:  # noqa: BLE001 - a model that cannot read this input explains nothing
            continue
    return {"model": list(fams), "explained": explained, "observed": len(samples)}
