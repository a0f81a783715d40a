"""The model of one implementation at one level, beyond single divergences.

The search (``audit.collect.search``) meets divergences one input at a time and the classifier
(``audit.diagnose.classify``) turns the ones the judge accepts into the unit's fitted model
(``audit.diagnose.fitted.FittedModel``).  This module holds the steps that look at the
implementation as a whole; each takes the unit (``audit.collect.unit.UnitAudit``: its checker,
level, findings so far and progress tick):

* ``scan``: every catalogued stage variant on its own distinguishing inputs, the fitted model
  as the residual;
* ``probe_claims``: accepted parameters it ignores (``audit.diagnose.claims_probe``);
* ``fit_relations``: behind a bug no family describes, identities over the implementation's
  own scores name a reference selection or a corpus mean (``audit.diagnose.relational``);
* ``prune`` and ``settle``: a deviation the others make redundant, or that its distinguishing
  inputs no longer support once the others are fitted, is dropped;
* ``fit_summary``: how much of what the implementation answered the model reproduces, on
  inputs of which classes, and what it leaves out: the report's fit line.
"""

from __future__ import annotations

from dataclasses import replace

from ..diagnose import claims_probe, deviations, inert, relational
from ..diagnose.explain import Explanation
from ..diagnose.models import agrees, predict
from ..diagnose.oracle import score_many
from ..diagnose.reduce import inputs_of, without
from ..diagnose.variants import ScoreVariant, TextVariant
from .search import record

#: Scan rounds at most: each after the first judges the families not fitted yet again, on top of
#: what the round before fitted.
SCAN_ROUNDS = 3
#: Evidence prefixes of names earned otherwise than by exact prediction of distinguishing
#: inputs: an ignored parameter (the implementation compared with itself) and an identity.
CLAIMS_EVIDENCE = "set to "
IDENTITY_EVIDENCE = "identity: "


def part_of(stage: str, fld: str, value) -> tuple:
    """The variant of one stage field."""
    return (replace(TextVariant(), **{fld: value}), ScoreVariant()) if stage == "text" else \
        (TextVariant(), replace(ScoreVariant(), **{fld: value}))


def _candidates(u) -> list[tuple[str, tuple]]:
    """(family, variant) of every catalogued stage variant that applies to the unit."""
    out = []
    for stage in ("text", "score"):
        for dev in deviations.modelled(stage):
            if not dev.applies(u.params, u.level, u.nrefs, u.nsegs):
                continue
            out += [(dev.id, part_of(stage, fld, value)) for fld, value in dev.models
                    if dev.model_filter is None or dev.model_filter(u.params, (fld, value))]
    return out


def scan(u) -> list[str]:
    """Every catalogued stage variant the model does not hold yet, judged on its own
    distinguishing inputs with the fitted model as the residual: the model is fitted on
    targeted inputs, not only on what the search happened to meet, so that what is found
    depends neither on the search's luck nor on curated cases.  Returns the families added;
    each is recorded (its repro comes from ``audit.collect.repros``)."""
    classifier, model = u.checker.classifier, u.model
    candidates = _candidates(u)
    batch = []  # every candidate's first inputs asked in one batch (the judging reads them back)
    for fam, part in candidates:
        batch += classifier.judge.first_inputs([fam], u.params, u.level, u.nrefs, part, model.accepted)
    u.tick()
    classifier.scores(u.adapter, u.level, [s for s in batch if u.takes(s)])
    added: list[str] = []
    for _ in range(SCAN_ROUNDS):  # a family masked by another is judged again once that one is fitted
        before = len(added)
        for fam, part in candidates:
            if fam in model.families() or fam in model.dropped or fam in added:
                continue
            cand = Explanation([fam], None, variant=part)
            u.tick()
            if classifier.confirm(u.adapter, u.level, u.params, cand):
                classifier.accept(u.params.definition, cand.families, cand.variant)
                added.append(fam)
        if len(added) == before:
            break
    if has_unexplained(u.found):  # divergences the singles leave: two bugs may hide each other
        added += _pairs(u, candidates, added)
    return added


#: Families with partial support (their model gives the implementation's score on some inputs
#: where it changes the definition's, not all) tried in pairs with every other family, at most.
PAIRED = 3


def _pairs(u, candidates, added) -> list[str]:
    """Two bugs that each spoil the other's every input: the families the single scan found
    partially supported (``Judge.support``), each judged together with every other family
    (one round: a pair accepted, the singles are judged again on top of it)."""
    classifier, model = u.checker.classifier, u.model
    support = classifier.judge.support
    partial = sorted(((agree, fam, part) for fam, part in candidates
                      for agree, asked in [support.get((fam,), (0, 0))]
                      if 3 <= agree < asked and fam not in model.families() and fam not in model.dropped),
                     key=lambda t: (-t[0], t[1]))[:PAIRED]
    from ..diagnose.fitted import merge

    for _, fam, part in partial:
        for other, other_part in candidates:
            if other == fam or other in model.families() or other in model.dropped:
                continue
            both = merge(part, other_part)
            if both is None:
                continue
            cand = Explanation([fam, other], None, variant=both)
            u.tick()
            if classifier.confirm(u.adapter, u.level, u.params, cand):
                classifier.accept(u.params.definition, cand.families, cand.variant)
                return [fam, other] + [f for f in scan(u) if f not in (fam, other)]
    return []


def probe_claims(u) -> None:
    """Find the accepted parameters the implementation ignores; record the probe's inputs
    (with the parameter changed) as observations of their family."""
    adapter = u.adapter
    if not set(adapter.accepts) & set(claims_probe.PROBED):
        return
    ignored = claims_probe.probe(adapter, u.level, lambda a, inputs: score_many(a, u.level, inputs),
                                 u.checker.tolerance, u.model.variant())
    for ig in ignored:
        u.checker.ignored[ig.name] = ig.claimed
        u.model.cite(u.level, (ig.family,), ig.evidence, replace=True)
        for segs in ig.inputs[:2]:
            u.tick()
            obs = u.checker.check(u.level, inputs_of(u.level, segs), {ig.name: ig.probed}, repeat=False)
            if obs.key:
                record(u.found, obs, origin="search")


def protected(u) -> frozenset:
    """Families of the model named otherwise than by exact prediction on their whole pools
    (ignored parameters, identities, families judged behind an unexplained deviation):
    ``prune`` and ``settle`` have no exact model of their inputs to judge them by."""
    return frozenset(fams[0] for (lv, fams), ev in u.model.evidence.items()
                     if lv == u.level and len(fams) == 1 and
                     str(ev).startswith((CLAIMS_EVIDENCE, IDENTITY_EVIDENCE, inert.BEHIND_EVIDENCE)))


def _behind(u) -> dict:
    """family -> the region it was named behind an unexplained deviation on."""
    return inert.named_behind(u.model.evidence, u.level)


def judge_behind(u) -> list[str]:
    """Behind a pervasive unexplained deviation (run when divergences stay unexplained): the
    regions of inputs where it is inert -- the implementation gives the fitted model's score
    on every probe of the region (``audit.diagnose.inert``) -- and every catalogued stage
    variant not fitted, judged by the judge's rules on its distinguishing inputs projected
    onto such a region.  Returns the families named; ``u.behind`` says which regions were
    inert (the fit says behind what the rest stays hidden).  Nothing is done where the
    deviation changes few plain inputs (``inert.pervasive``): it hides nothing there."""
    classifier, model = u.checker.classifier, u.model
    variant = model.variant()
    u.tick()
    scores = lambda batch: classifier.scores(u.adapter, u.level, batch)  # noqa: E731
    agrees = lambda s, a: classifier.judge.agrees(s, u.params, u.level, variant, a, u.scale)  # noqa: E731
    if not inert.pervasive(scores, u.params, u.level, variant, agrees):
        return []
    regions = inert.inert_regions(scores, u.params, u.level, variant, agrees)
    u.behind = [r.id for r in regions]
    added: list[str] = []
    for region in regions:
        with classifier.judge.behind(region):
            for fam, part in _candidates(u):
                if fam in model.families() or fam in model.dropped or fam in added:
                    continue
                cand = Explanation([fam], None, variant=part)
                u.tick()
                if classifier.confirm(u.adapter, u.level, u.params, cand):
                    evidence = f"{inert.BEHIND_EVIDENCE}{region.id}): {cand.detail}"
                    classifier.accept(u.params.definition, cand.families, cand.variant, level=u.level,
                                      evidence=evidence)
                    added.append(fam)
    return added


def settle_behind(u) -> list[str]:
    """The families named behind an unexplained deviation, each judged again on its region
    with every other family fitted (``Classifier.settle`` there): refused ones are dropped."""
    dropped: list[str] = []
    behind = _behind(u)
    for region in {r.id: r for r in behind.values()}.values():
        mine = {f for f, r in behind.items() if r.id == region.id}
        with u.checker.classifier.judge.behind(region):
            dropped += u.checker.classifier.settle(u.adapter, u.level, u.params,
                                                   frozenset(u.model.families()) - mine)
    return dropped


def prune(u) -> list[str]:
    """Drop from the model every fitted deviation the others make redundant: on its own
    trigger inputs, and on every score observed under the claimed parameters, the model
    without it predicts the implementation wherever the model with it does.  (Two
    deviations can coincide on the inputs one of them was accepted on -- reading a corpus's
    references as streams uses only the first reference of a one-segment corpus -- and a
    name is kept only when the implementation needs it.)  Returns the dropped."""
    from ..diagnose.deviations.triggers import pool as trigger_pool

    params, level, tol = u.params, u.level, u.checker.tolerance
    dropped = []
    skip = protected(u)
    for fam in reversed(u.model.families()):
        if fam in skip:
            continue
        model = u.model.variant()
        rest = without(fam, model)
        if rest == model:
            continue
        pool = [s for s in trigger_pool(fam, params, level, u.refs_taken) if u.takes(s)]
        u.tick()
        observed = [(s, v) for s, v in zip(pool, u.checker.classifier.scores(u.adapter, level, pool)) if v is not None]
        observed += u.checker.samples[level]

        def explains(variant, segs, value) -> bool:
            try:
                return agrees(predict(segs, params, level, variant), variant[1], value, u.scale, tol)
            except Exception:  # noqa: BLE001 - a model that cannot read this input
                return False

        full = [explains(model, s, v) for s, v in observed]
        if sum(full[:len(pool)]) < 5:
            continue  # not an exact fit on its own inputs: nothing to compare
        if all(explains(rest, s, v) for (s, v), ok in zip(observed, full) if ok):
            u.model.drop(fam)
            dropped.append(fam)
    return dropped


def settle(u) -> list[str]:
    """Each fitted family judged again, alone, with the others as what is fitted, and held
    to the scores the search observed: refused ones are dropped (``Classifier.settle``)."""
    return u.checker.classifier.settle(u.adapter, u.level, u.params, protected(u), u.checker.samples[u.level])


def fit_summary(u) -> dict:
    """The fitted model; how many observed scores (under the claimed parameters) it
    reproduces exactly; the classes of inputs the unit scored, those it never tried and those
    the implementation refused (``audit.collect.realtext``, ``audit.collect.ragged``); what it
    leaves out: the unexplained groups, and what the evidence could not tell apart.  A row it
    leaves out is never beside a complete fit (``_rows_counted``)."""
    from . import realtext
    from .assemble import group_title, unexplained_groups

    samples = u.checker.samples[u.level]
    ok = u.model.reproduced(samples, u.params, u.level, u.scale, u.checker.tolerance)
    tried, refused = u.checker.classes[u.level], u.checker.refused.get(u.level, {})
    leaves = [group_title(g) for g in unexplained_groups(u.found)]
    explained, observed = _rows_counted(u, samples, ok)
    if ("out-of-range",) in u.found:  # its scores are no model's: the remainder leaves them to it
        leaves.append("out-of-range (scores outside 0-100)")
    classes = realtext.applicable(u.level, u.adapter.supports.refs_limit(5))
    scope = {"classes": [c.id for c in classes if c.id in tried],
             "never_tried": [c.id for c in classes if c.id not in tried and c.id not in refused]}
    if refused:
        scope["refused"] = {c.id: refused[c.id] for c in classes if c.id in refused}
    out = {"model": list(u.model.families()), "explained": explained, "observed": observed, "scope": scope,
           "leaves_out": leaves, "ambiguous": list(u.model.ambiguities)}
    if u.behind is not None and leaves:
        out["behind"] = list(u.behind)
    return out


def _rows_counted(u, samples, ok) -> tuple[int, int]:
    """(explained, observed) with each unexplained or state row of the level counted as a
    score the model does not reproduce: its repro's sample, when one was kept and counted as
    reproduced (the value differed between calls), or one more observed score (a row seen
    under changed parameters or by a relation).  So a fit never reads complete beside such a
    row."""
    from .assemble import unexplained_groups

    explained, observed = sum(ok), len(samples)
    if not unexplained_groups(u.found):
        return explained, observed
    index = {repr([(h, list(rs)) for h, rs in segs]): i for i, (segs, _) in enumerate(samples)}
    counted = set()
    for key, c in u.found.items():
        obs = c.minimal or c.largest
        if not key or key[0] not in ("unexplained", "stateful", "nondeterminism") or obs is None:
            continue
        i = index.get(repr(u.segments_of(obs.inputs)))
        if i is None:
            observed += 1
        elif i not in counted and ok[i]:
            explained -= 1
        counted.add(i)
    return (min(explained, observed - 1), observed) if counted else (explained, observed)


def has_unexplained(found: dict) -> bool:
    return any(k and k[0] == "unexplained" and (c.minimal is None or not c.minimal.changes)
               for k, c in found.items())


def fit_relations(u) -> list:
    """Deviations behind a bug no family describes (run when divergences stay unexplained):
    an identity (the score of an input as the mean of the implementation's own scores of its
    parts, which the rival identities -- a mean weighted by length, the first part alone -- do
    not give) names its deviation.  Returns the fits named."""
    from .repros import reduced

    adapter, level, params, model = u.adapter, u.level, u.params, u.model
    scorer = lambda inputs: score_many(adapter, level, inputs)  # noqa: E731
    exclude = frozenset(model.families()) | model.dropped
    named = relational.fit_identities(scorer, params, level, model.variant(), u.nrefs, u.checker.tolerance, exclude)
    for fit in named:
        u.checker.classifier.accept(params.definition, [fit.family], part_of(fit.stage, fit.field, fit.value),
                                    level=level, evidence=IDENTITY_EVIDENCE + fit.evidence)
        u.tick()
        segs = fit.example
        if fit.holds is not None:
            segs = u.segments_of(reduced(u, fit.family, fit.holds, fit.example, "relations"))
        obs = u.checker.check(level, inputs_of(level, fit.shown(segs)), repeat=False)
        if obs.outcome.kind == "value":
            obs.key = (fit.family,)
            obs.detail = IDENTITY_EVIDENCE + fit.evidence
            obs.variant = None
            record(u.found, obs, origin="search")
    return named
