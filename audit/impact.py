"""Impact of an implementation's deviations on system-level conclusions.

For a set of systems scored on the same references, compare what the exact reference says
(corpus score with a bootstrap CI, ranking, pairwise significance by paired permutation over
segment statistics) with what the implementation says (its corpus scores and ranking, and,
where it can be done exactly and cheaply, its own pairwise significance calls).

The implementation's significance calls.  An arbitrary implementation exposes no segment
statistics, and an approximate randomization test of *its* corpus score would need two
implementation calls on full swapped corpora per trial (for 16 systems: 120 pairs x 1000
trials x 2 corpus calls, hours with nltk).  Instead:

* each segment is also scored alone, as a one-segment corpus, through the same adapter;
* if the implementation's corpus score equals the mean of those per-segment scores (up to
  1e-6 on 0..100) -- the corpus score is then a macro-average, as nltk's ``corpus_chrf`` is --
  swapping a segment between two systems swaps exactly its segment score, so a paired
  permutation test over the per-segment scores *is* the approximate randomization test of
  the implementation's corpus score, exactly, at the cost of one extra pass over the data;
* otherwise (the corpus score is not decomposable into segment scores, e.g. an
  implementation that sums statistics the way chrF is defined) no significance call is made
  for the implementation: its ranking is compared with the reference's, and a pair whose
  order it reverses against a significant reference call is reported as a changed call.
"""

from __future__ import annotations

import itertools
from dataclasses import asdict, dataclass, field
from typing import Any, Mapping, Protocol, Sequence

import numpy as np

from reference_impl import ChrfParams, corpus_score

from . import significance as sig
from .errors import UsageError

SCHEMA_VERSION = 1
#: The implementation's corpus score must equal the mean of its one-segment scores within this
#: (0..100 scale) for the segment-score permutation test to be used.
DECOMPOSABLE_TOLERANCE = 1e-6


class Steps(Protocol):  # progress reporting, implemented by the CLI with rich
    def stage(self, description: str, total: int) -> None: ...
    def advance(self, n: int = 1) -> None: ...


class _NoSteps:
    def stage(self, description: str, total: int) -> None:
        pass

    def advance(self, n: int = 1) -> None:
        pass


@dataclass
class SystemImpact:
    name: str
    reference_score: float
    ci_low: float
    ci_high: float
    implementation_score: float | None
    implementation_outcome: str          # "value", or the adapter's outcome kind
    implementation_message: str | None
    difference: float | None             # implementation - reference
    rank_reference: int
    rank_implementation: int | None


@dataclass
class PairCall:
    a: str
    b: str
    reference_difference: float          # a - b
    reference_p: float
    reference_call: str                  # "a>b", "a<b" or "n.s."
    implementation_difference: float | None
    implementation_p: float | None
    implementation_call: str | None      # as above; None when no score
    changed: bool
    change: str                          # "" or a short description


@dataclass
class ImpactResult:
    implementation: str
    reference_signature: str
    alpha: float
    resamples: int
    seed: int
    segments: int
    references: int
    implementation_significance: str     # how the implementation's calls were made
    systems: list[SystemImpact] = field(default_factory=list)
    pairs: list[PairCall] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def changed_pairs(self) -> list[PairCall]:
        return [p for p in self.pairs if p.changed]

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d = {"schema_version": SCHEMA_VERSION, "kind": "impact", **d}
        d["changed_pairs"] = [asdict(p) for p in self.changed_pairs]
        return d


def ranks(scores: Sequence[float | None]) -> list[int | None]:
    """Competition ranks (1 = best; equal scores share the better rank); None stays None."""
    vals = [s for s in scores if s is not None]
    return [None if s is None else 1 + sum(v > s for v in vals) for s in scores]


def _call(diff: float | None, p: float | None, alpha: float) -> str | None:
    if diff is None:
        return None
    if p is not None and p >= alpha:
        return "n.s."
    return "a>b" if diff > 0 else "a<b" if diff < 0 else "n.s."


def _outcome_value(outcome) -> tuple[float | None, str, str | None]:
    kind = getattr(outcome, "kind", "invalid")
    value = getattr(outcome, "value", None)
    message = getattr(outcome, "message", None) or getattr(outcome, "detail", None)
    if kind == "value" and value is not None and np.isfinite(value):
        return float(value), "value", None
    if kind == "value":
        return None, "invalid", f"non-finite value {value!r}"
    return None, str(kind), None if message is None else str(message)


def run_impact(
    systems: Mapping[str, Sequence[str]],
    references: Sequence[Sequence[str]],
    adapter,
    *,
    params: ChrfParams | None = None,
    resamples: int = 1000,
    alpha: float = 0.05,
    seed: int = 0,
    implementation_tests: bool = True,
    steps: Steps | None = None,
    reference_results: Mapping[str, Any] | None = None,
) -> ImpactResult:
    """Score every system with the reference and with ``adapter``; compare conclusions.

    ``references[i]`` lists segment i's references.  ``params`` defaults to the parameters
    the adapter claims (``adapter.claims.params()``).  ``reference_results`` may hold
    already computed ``reference_impl`` corpus results per system (same params)."""
    steps = steps or _NoSteps()
    if not systems:
        raise UsageError("no system files given")
    if not (0 < alpha < 1):
        raise UsageError(f"--alpha must be between 0 and 1, got {alpha}")
    if resamples < 1:
        raise UsageError(f"--resamples must be a positive integer, got {resamples}")
    params = params or adapter.claims.params()
    names = list(systems)
    n = len(references)
    nrefs = {len(r) for r in references}
    p = params
    kw = dict(char_order=p.char_order, word_order=p.word_order, beta=p.beta,
              lowercase=p.lowercase, whitespace=p.whitespace, definition=p.definition)

    # Reference: exact statistics, corpus score and bootstrap CI per system.
    steps.stage("reference statistics", len(names))
    stats: dict[str, np.ndarray] = {}
    exact: dict[str, float] = {}
    signature = ""
    for name in names:
        res = (reference_results or {}).get(name)
        if res is None:
            res = corpus_score(list(systems[name]), [list(r) for r in references], **kw)
        stats[name] = sig.stats_array(res.segment_stats)
        exact[name] = res.score_float
        signature = res.signature
        steps.advance()
    steps.stage("bootstrap CIs", len(names))
    cis = {}
    for name in names:
        cis[name] = sig.bootstrap_ci(stats[name], params, resamples=resamples, alpha=alpha, seed=seed)
        steps.advance()

    # Implementation: corpus score per system (one adapter call per system, for progress).
    notes: list[str] = []
    supports_corpus = getattr(getattr(adapter, "supports", None), "corpus", True)
    impl: dict[str, tuple[float | None, str, str | None]] = {}
    if not supports_corpus:
        notes.append(f"{adapter.name} has no corpus-level scoring: implementation scores omitted")
        impl = {name: (None, "unsupported", "no corpus level") for name in names}
    else:
        steps.stage(f"{adapter.name} corpus scores", len(names))
        refs_list = [list(r) for r in references]
        for name in names:
            (outcome,) = _corpus_scores(adapter, [(list(systems[name]), refs_list)])
            impl[name] = _outcome_value(outcome)
            steps.advance()

    # Implementation's significance: exact AR over per-segment scores when decomposable.
    seg_scores: dict[str, np.ndarray] | None = None
    method = "none"
    if implementation_tests and supports_corpus and len(names) > 1:
        if all(impl[nm][0] is not None for nm in names):
            seg_scores, why = _segment_scores(adapter, systems, references, impl, steps)
            if seg_scores is not None:
                method = ("paired permutation over the implementation's one-segment scores "
                          "(its corpus score is their mean, so this is exact approximate "
                          "randomization of its corpus score)")
            else:
                notes.append(why)
        else:
            notes.append("some implementation scores are missing: no implementation significance calls")
    if seg_scores is None:
        method = "none: ranking only (a reversal of a significant reference call counts as changed)"

    # Systems table.
    ref_scores = [exact[nm] for nm in names]
    impl_scores = [impl[nm][0] for nm in names]
    rr, ri = ranks(ref_scores), ranks(impl_scores)
    system_rows = []
    for k, nm in enumerate(names):
        v, kind, msg = impl[nm]
        ci = cis[nm]
        system_rows.append(SystemImpact(
            nm, exact[nm], ci.low, ci.high, v, kind, msg,
            None if v is None else v - exact[nm], rr[k], ri[k],
        ))

    # Pairwise calls.
    pairs = list(itertools.combinations(names, 2))
    steps.stage("pairwise tests", len(pairs))
    pair_rows = []
    for a, b in pairs:
        pr = sig.paired_permutation(stats[a], stats[b], params, trials=resamples, seed=seed)
        d_ref = exact[a] - exact[b]
        ref_call = _call(d_ref, pr.p_value, alpha)
        va, vb = impl[a][0], impl[b][0]
        d_impl = None if va is None or vb is None else va - vb
        p_impl = None
        if seg_scores is not None:
            p_impl = sig.paired_permutation_scores(
                seg_scores[a], seg_scores[b], trials=resamples, seed=seed).p_value
        impl_call = _call(d_impl, p_impl, alpha)
        change = _change(ref_call, impl_call, d_ref, d_impl, p_impl is not None)
        pair_rows.append(PairCall(a, b, d_ref, pr.p_value, ref_call, d_impl, p_impl, impl_call,
                                  bool(change), change))
        steps.advance()

    return ImpactResult(
        implementation=adapter.name, reference_signature=signature, alpha=alpha,
        resamples=resamples, seed=seed, segments=n,
        references=nrefs.pop() if len(nrefs) == 1 else -1,
        implementation_significance=method, systems=system_rows, pairs=pair_rows, notes=notes,
    )


def _change(ref_call, impl_call, d_ref, d_impl, impl_has_tests: bool) -> str:
    if impl_call is None:
        return "no implementation score"
    if impl_has_tests:
        if ref_call == impl_call:
            return ""
        if ref_call == "n.s.":
            return "significant only under the implementation"
        if impl_call == "n.s.":
            return "significant only under the reference"
        return "significant in opposite directions"
    # Ranking only: the implementation's call is the sign of its difference.
    if ref_call != "n.s." and impl_call != ref_call:
        return "implementation reverses a significant difference"
    return ""


def _corpus_scores(adapter, items):
    """The adapter's corpus scores; what it refuses (e.g. several references) is a usage error."""
    try:
        return adapter.corpus_scores(items)
    except (ValueError, NotImplementedError) as exc:
        raise UsageError(f"{adapter.name}: {exc}") from None


def _segment_scores(adapter, systems, references, impl, steps):
    """One-segment corpus scores of every system; (None, reason) when unusable."""
    out: dict[str, np.ndarray] = {}
    steps.stage(f"{adapter.name} segment scores", len(systems))
    for name, hyps in systems.items():
        outcomes = _corpus_scores(adapter, [([h], [list(refs)]) for h, refs in zip(hyps, references)])
        vals = []
        for i, o in enumerate(outcomes):
            v, kind, _ = _outcome_value(o)
            if v is None:
                return None, (f"{adapter.name} gave no score ({kind}) for segment {i + 1} of "
                              f"{name} alone: no implementation significance calls")
            vals.append(v)
        arr = np.asarray(vals, dtype=np.float64)
        corpus_value = impl[name][0]
        if abs(float(arr.mean()) - corpus_value) > DECOMPOSABLE_TOLERANCE:
            return None, (f"{adapter.name}'s corpus score is not the mean of its segment scores "
                          f"({corpus_value:.6f} vs {arr.mean():.6f} on {name}): no exact cheap "
                          "significance test of its corpus score, ranking changes only")
        out[name] = arr
        steps.advance()
    return out, ""


# =========================================================================== impact study
# What ``chrf-audit run --impact-data DIR`` adds to the reports: for an implementation with
# findings, the comparison above on a real corpus, plus an exact per-family attribution.

#: Kind and version of the record written into the reports (audit.json ``impact``).
STUDY_KIND = "impact"
STUDY_VERSION = 1
#: An exact bug model "reproduces" the implementation's corpus score within this (0..100).
MODEL_TOLERANCE = 1e-6
#: Bound on the n-gram profile cache of audit.models while attributing (entries; ~40 kB each).
_PROFILE_CACHE_LIMIT = 16384


def load_impact_data(directory) -> tuple[dict[str, list[str]], list[list[str]]]:
    """``DIR/reference.txt`` and every other ``DIR/*.txt`` as a system (name = file stem),
    sorted by name.  All files must have the same number of lines."""
    from pathlib import Path

    from .textfiles import check_same_length, read_segments

    d = Path(directory)
    if not d.is_dir():
        raise UsageError(f"--impact-data {directory}: not a directory")
    ref_path = d / "reference.txt"
    if not ref_path.is_file():
        raise UsageError(f"--impact-data {directory}: no reference.txt in it")
    paths = sorted((p for p in d.glob("*.txt") if p.is_file() and p.name != "reference.txt"),
                   key=lambda p: p.name)
    if not paths:
        raise UsageError(f"--impact-data {directory}: no system file (*.txt besides reference.txt)")
    ref = read_segments(ref_path)
    systems = {p.stem: read_segments(p) for p in paths}
    check_same_length({str(ref_path): ref, **{str(p): systems[p.stem] for p in paths}})
    return systems, [[r] for r in ref]


def closest_systems(scores: Mapping[str, float], n: int | None) -> list[str]:
    """The ``n`` systems whose reference scores lie closest together (the narrowest window
    of ``n`` consecutive scores; ties go to the better-scoring window), best first.
    ``None`` or ``n >= len(scores)``: all of them."""
    order = sorted(scores, key=lambda s: (-scores[s], s))
    if n is None or n >= len(order):
        return order
    if n < 2:
        raise UsageError(f"--impact-systems must be at least 2, got {n}")
    widths = [scores[order[i]] - scores[order[i + n - 1]] for i in range(len(order) - n + 1)]
    start = widths.index(min(widths))
    return order[start:start + n]


# -- exact models of single families ------------------------------------------------------

def family_model(family: str, params: ChrfParams):
    """``(TextVariant, ScoreVariant)`` of ``family`` alone, or None when the family has no
    single exact model (outcome families, or families with several variants such as
    ``wrong-ngram-orders`` and ``unicode-normalization``).  Read from the deviation registry
    and checked against the models' own naming."""
    from . import deviations
    from .models import ScoreVariant, TextVariant

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


def _merge(models):
    """One variant with every model's deviation, or None when two set the same field
    differently."""
    from dataclasses import fields

    from .models import ScoreVariant, TextVariant

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


def _trim_profile_cache() -> None:
    from . import models

    cache = getattr(models, "_profile_cached", None)
    if cache is not None and hasattr(cache, "cache_info") and cache.cache_info().currsize > _PROFILE_CACHE_LIMIT:
        cache.cache_clear()


def _order_flips(a: Mapping[str, float], b: Mapping[str, float]) -> int:
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
    from .models import ScoreVariant, TextVariant, text_stats, variant_score

    steps = steps or _NoSteps()
    families = list(dict.fromkeys(families))
    models = {f: family_model(f, params) for f in families}
    modelled = [f for f in families if models[f] is not None]
    full = _merge([models[f] for f in modelled]) if modelled and len(modelled) == len(families) else None
    without = {}
    if full is not None:
        for f in modelled:
            rest = [models[g] for g in modelled if g != f]
            without[f] = _merge(rest) if rest else (TextVariant(), ScoreVariant())
    variants = {("alone", f): models[f] for f in modelled}
    variants.update({("without", f): v for f, v in without.items()})
    if full is not None:
        variants[("full", "")] = full
    per_segment = [f for f in modelled if not models[f][1].macro]

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
            for f in per_segment:
                tv, sv = models[f]
                raw = raw_by_tv[tv]
                affected[f] += sum(variant_score([c], params, sv, "sentence") != r for c, r in zip(raw, ref_seg))
        segments_total += len(segs)
        del raw_by_tv
        _trim_profile_cache()
        steps.advance()

    by_family: dict[str, dict] = {}
    for f in families:
        if models[f] is None:
            by_family[f] = {
                "family": f, "attributed": False,
                "reason": "no single exact bug model for this family: only the implementation's overall impact is given",
            }
            continue
        rows = []
        for name in names:
            alone = scores[("alone", f)][name]
            row = {"name": name, "reference_score": reference[name], "alone_score": alone,
                   "alone_difference": alone - reference[name]}
            if f in without:
                w = scores[("without", f)][name]
                row.update(without_score=w, contribution=scores[("full", "")][name] - w)
            rows.append(row)
        diffs = [r["alone_difference"] for r in rows]
        rec = {
            "family": f, "attributed": True,
            "model": f"exact bug model of {f} alone on the reference's statistics",
            "level": "corpus" if models[f][1].macro else "segment",
            "segments_affected": affected.get(f),
            "segments_total": segments_total,
            "alone_difference_min": min(diffs), "alone_difference_max": max(diffs),
            "alone_order_flips": _order_flips(reference, scores[("alone", f)]),
            "pairs": len(names) * (len(names) - 1) // 2,
            "systems": rows,
        }
        if f in without:
            contrib = [r["contribution"] for r in rows]
            rec.update(contribution_min=min(contrib), contribution_max=max(contrib),
                       without_order_flips=_order_flips(reference, scores[("without", f)]))
        by_family[f] = rec

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


# -- the record ------------------------------------------------------------------------------


def _verdict(res: ImpactResult) -> tuple[bool, str]:
    sys_rows = res.systems
    diffs = [s.difference for s in sys_rows if s.difference is not None]
    moved = [s for s in sys_rows if s.rank_implementation is not None and s.rank_implementation != s.rank_reference]
    flips = [p for p in res.pairs if p.implementation_difference is not None and p.reference_difference != 0
             and (p.implementation_difference == 0 or (p.implementation_difference > 0) != (p.reference_difference > 0))]
    changed = res.changed_pairs
    n_pairs = len(res.pairs)
    if not diffs:
        return False, f"{res.implementation} gave no corpus score on this data: no comparison."
    span = (f"{res.implementation}'s corpus scores differ from the reference by "
            f"{min(diffs):+.2f} to {max(diffs):+.2f} points")
    if not changed and not flips:
        return False, (f"No conclusion changes: {span}, but every system keeps its rank and all "
                       f"{n_pairs} pairwise significance calls (p < {res.alpha:g}) stay the same.")
    parts = []
    if flips:
        parts.append(f"{len(flips)} of {n_pairs} system pairs swap order ({len(moved)} systems change rank)")
    if changed:
        parts.append(f"{len(changed)} of {n_pairs} pairwise significance calls (p < {res.alpha:g}) change")
    return True, f"Conclusions change: {' and '.join(parts)}; {span}."


def study_record(
    res: ImpactResult, *, data: str, systems_total: int, selection: str,
    by_family: dict | None = None, model_check: dict | None = None, families: Sequence[str] = (),
) -> dict:
    """The impact record the reports render (plain data, deterministic)."""
    changes, verdict = _verdict(res)
    d = res.to_dict()
    d.pop("schema_version", None)
    d.pop("kind", None)
    rec = {"kind": STUDY_KIND, "version": STUDY_VERSION, "status": "done", "data": data,
           "systems_total": systems_total, "systems_studied": len(res.systems), "selection": selection,
           "families": list(families), "changes_conclusions": changes, "verdict": verdict, **d}
    rec["model_check"] = model_check
    rec["by_family"] = {f: {**r, "implementation": res.implementation, "data": data}
                        for f, r in (by_family or {}).items()}
    return rec


def skipped_record(implementation: str, reason: str) -> dict:
    return {"kind": STUDY_KIND, "version": STUDY_VERSION, "status": "skipped",
            "implementation": implementation, "reason": reason}


def study(
    adapter, families: Sequence[str], systems: Mapping[str, Sequence[str]],
    references: Sequence[Sequence[str]], *, data: str = "", n_systems: int | None = None,
    resamples: int = 1000, alpha: float = 0.05, seed: int = 0, steps: Steps | None = None,
    reference_cache: dict | None = None,
) -> dict:
    """The whole impact study of one implementation with findings: the systems chosen
    (``closest_systems``), ``run_impact`` and ``attribute_families``; the record to pass
    to ``audit.report.write_reports(impact={name: record})``.

    ``reference_cache`` (params -> {system: reference_impl result}) is shared between
    implementations claiming the same parameters."""
    steps = steps or _NoSteps()
    params = adapter.claims.params()
    kw = dict(char_order=params.char_order, word_order=params.word_order, beta=params.beta,
              lowercase=params.lowercase, whitespace=params.whitespace, definition=params.definition)
    cache = reference_cache if reference_cache is not None else {}
    results = cache.setdefault(params, {})
    names = list(systems)
    if n_systems is not None and n_systems < len(names):
        steps.stage("reference scores (choosing systems)", len(names))
        for name in names:
            if name not in results:
                results[name] = corpus_score(list(systems[name]), [list(r) for r in references], **kw)
            steps.advance()
        chosen = closest_systems({n: results[n].score_float for n in names}, n_systems)
        selection = (f"the {len(chosen)} of {len(names)} systems whose reference scores lie closest together "
                     f"({results[chosen[-1]].score_float:.2f} to {results[chosen[0]].score_float:.2f})")
    else:
        chosen = sorted(names)
        selection = f"all {len(names)} systems"
    chosen = sorted(chosen)
    sub = {n: systems[n] for n in chosen}
    res = run_impact(sub, references, adapter, params=params, resamples=resamples, alpha=alpha,
                     seed=seed, steps=steps, reference_results=results)
    impl_scores = {s.name: s.implementation_score for s in res.systems}
    by_family, check = attribute_families(sub, references, params, families, impl_scores, steps=steps)
    return study_record(res, data=data, systems_total=len(names), selection=selection,
                        by_family=by_family, model_check=check, families=families)
