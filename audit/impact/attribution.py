"""Exact per-family attribution of an implementation's corpus scores (the part of the
``--impact-data`` study that says where a difference comes from).

A family with a single exact bug model in the deviation registry (``audit.diagnose.deviations``,
the one place a family's model is written down) is replayed on the reference's statistics
(``audit.diagnose.models``): alone, and with every other family of the implementation but this one.
Kept apart from the comparison (``compare``) because it never calls the implementation: it
is exact arithmetic on the models, checked against the implementation's actual scores.
"""

from __future__ import annotations

import itertools
from dataclasses import fields
from typing import Mapping, Sequence

from reference_impl import ChrfParams

from ..diagnose import deviations
from ..diagnose.models import variant_score
from ..diagnose.text_model import bound_profile_cache, text_stats
from ..diagnose.variants import ScoreVariant, TextVariant
from .progress import NoSteps, Steps

#: An exact bug model "reproduces" the implementation's corpus score within this (0..100).
MODEL_TOLERANCE = 1e-6
#: Bound on the n-gram profile cache of audit.diagnose.models while attributing (entries; ~40 kB each).
PROFILE_CACHE_LIMIT = 16384


def family_model(family: str, params: ChrfParams):
    """``(TextVariant, ScoreVariant)`` of ``family`` alone, or None when the family has no
    single exact model (outcome families, or families with several variants such as
    ``wrong-ngram-orders`` and ``unicode-normalization``).  Read from the deviation registry
    and checked against the models' own naming."""
    dev = deviations.get(family)
    if dev is None or dev.stage not in ("text", "score") or len(dev.models) != 1:
        return None
    [(fld, value)] = dev.models
    tv, sv = TextVariant(), ScoreVariant()
    if dev.stage == "text":
        tv = TextVariant(**{fld: value})
    else:
        sv = ScoreVariant(**{fld: value})
    if tv.families() + sv.families() != [family]:
        return None
    return tv, sv


def merge_models(models):
    """One variant with every model's deviation, or None when two set the same field
    differently."""
    changes: list[dict] = [{}, {}]
    for pair in models:
        for acc, part in zip(changes, pair):
            default = type(part)()
            for fl in fields(part):
                v = getattr(part, fl.name)
                if v == getattr(default, fl.name):
                    continue
                if acc.get(fl.name, v) != v:
                    return None
                acc[fl.name] = v
    return TextVariant(**changes[0]), ScoreVariant(**changes[1])


def order_flips(a: Mapping[str, float], b: Mapping[str, float]) -> int:
    """Pairs of systems whose order under ``b`` is reversed against ``a`` (a tie in ``a``
    never counts; a pair ordered under ``a`` and tied under ``b`` does)."""
    n = 0
    for x, y in itertools.combinations(sorted(a), 2):
        da, db = a[x] - a[y], b[x] - b[y]
        if da != 0 and (db == 0 or (da > 0) != (db > 0)):
            n += 1
    return n


def attribute_families(
    systems: Mapping[str, Sequence[str]], references: Sequence[Sequence[str]], params: ChrfParams,
    families: Sequence[str], implementation_scores: Mapping[str, float | None],
    steps: Steps | None = None,
) -> tuple[dict[str, dict], dict]:
    """Exact per-family attribution of the implementation's corpus scores.

    For each family with a single exact bug model (``family_model``), on every system:

    * ``alone``: the corpus score under that family's model alone (everything else as the
      definition says);
    * ``without``: the score under the models of all the implementation's *other* families
      (what the implementation would score if only this family were fixed), when every
      family has a model and they combine;
    * ``contribution`` = full model - ``without``: the part of the implementation's
      difference that fixing only this family removes.  Effects interact, so neither the
      ``alone`` differences nor the contributions need add up to the total difference.

    Returns ``(by_family, model_check)``; ``model_check`` says whether the combined model of
    all families reproduces the implementation's actual corpus scores.
    """
    steps = steps or NoSteps()
    families = list(dict.fromkeys(families))
    models = {f: family_model(f, params) for f in families}
    modelled = [f for f in families if models[f] is not None]
    full = merge_models([models[f] for f in modelled]) if modelled and len(modelled) == len(families) else None
    without = {}
    if full is not None:
        for f in modelled:
            rest = [models[g] for g in modelled if g != f]
            without[f] = merge_models(rest) if rest else (TextVariant(), ScoreVariant())
    variants = {("alone", f): models[f] for f in modelled}
    variants.update({("without", f): v for f, v in without.items()})
    if full is not None:
        variants[("full", "")] = full
    per_segment = {f: models[f] for f in modelled if not models[f][1].macro}

    names = list(systems)
    reference, scores, affected, segments_total = _model_scores(
        systems, references, params, variants, per_segment, steps)
    by_family: dict[str, dict] = {}
    for f in families:
        if models[f] is None:
            by_family[f] = {
                "family": f, "attributed": False,
                "reason": "no single exact bug model for this family: only the implementation's overall impact is given",
            }
            continue
        by_family[f] = _family_record(f, names, reference, scores, f in without, dict(
            level="corpus" if models[f][1].macro else "segment", segments_affected=affected.get(f),
            segments_total=segments_total))

    check: dict = {"families": modelled, "complete": full is not None}
    if full is None:
        check.update(reproduces=None, max_abs_error=None,
                     note=("the findings' families do not all have a single exact model (or their models "
                           "conflict): no combined model"))
    else:
        errs = [abs(scores[("full", "")][n] - v) for n, v in implementation_scores.items()
                if v is not None and n in scores[("full", "")]]
        check.update(reproduces=bool(errs) and max(errs) <= MODEL_TOLERANCE,
                     max_abs_error=max(errs) if errs else None)
    return by_family, check


def _model_scores(systems, references, params: ChrfParams, variants: dict, per_segment: dict, steps: Steps):
    """Per system: the reference's corpus score, every variant's corpus score, and per
    segment-level family the number of segments whose sentence score it changes.  One
    system at a time, so memory stays bounded on a real corpus."""
    names = list(systems)
    scores: dict[tuple, dict[str, float]] = {k: {} for k in variants}
    reference: dict[str, float] = {}
    affected = {f: 0 for f in per_segment}
    segments_total = 0
    plain_tv, plain_sv = TextVariant(), ScoreVariant()
    steps.stage("per-family exact models", len(names))
    for name in names:
        segs = list(zip(systems[name], references))
        raw_by_tv = {plain_tv: text_stats(segs, params, plain_tv)}
        for tv, _ in variants.values():
            if tv not in raw_by_tv:
                raw_by_tv[tv] = text_stats(segs, params, tv)
        reference[name] = float(variant_score(raw_by_tv[plain_tv], params, plain_sv, "corpus"))
        for key, (tv, sv) in variants.items():
            scores[key][name] = float(variant_score(raw_by_tv[tv], params, sv, "corpus"))
        if per_segment:
            base = raw_by_tv[plain_tv]
            ref_seg = [variant_score([c], params, plain_sv, "sentence") for c in base]
            for f, (tv, sv) in per_segment.items():
                raw = raw_by_tv[tv]
                affected[f] += sum(variant_score([c], params, sv, "sentence") != r for c, r in zip(raw, ref_seg))
        segments_total += len(segs)
        del raw_by_tv
        bound_profile_cache(PROFILE_CACHE_LIMIT)
        steps.advance()
    return reference, scores, affected, segments_total


def _family_record(f: str, names: list[str], reference: dict, scores: dict, has_without: bool,
                   scope: dict) -> dict:
    """One attributed family: per system its score alone (and without it), and summaries;
    ``scope`` (level, segments affected and total) goes after the model's name."""
    rows = []
    for name in names:
        alone = scores[("alone", f)][name]
        row = {"name": name, "reference_score": reference[name], "alone_score": alone,
               "alone_difference": alone - reference[name]}
        if has_without:
            w = scores[("without", f)][name]
            row.update(without_score=w, contribution=scores[("full", "")][name] - w)
        rows.append(row)
    diffs = [r["alone_difference"] for r in rows]
    rec = {
        "family": f, "attributed": True,
        "model": f"exact bug model of {f} alone on the reference's statistics",
        **scope,
        "alone_difference_min": min(diffs), "alone_difference_max": max(diffs),
        "alone_order_flips": order_flips(reference, scores[("alone", f)]),
        "pairs": len(names) * (len(names) - 1) // 2,
        "systems": rows,
    }
    if has_without:
        contrib = [r["contribution"] for r in rows]
        rec.update(contribution_min=min(contrib), contribution_max=max(contrib),
                   without_order_flips=order_flips(reference, scores[("without", f)]))
    return rec
