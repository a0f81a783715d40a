"""The ``--impact-data`` study: what ``chrf-audit run --impact-data DIR`` adds to the
reports for an implementation with findings.

On a real corpus: the systems to compare (``closest_systems``), the comparison of
conclusions (``compare.run_impact``), the exact per-family attribution
(``attribution.attribute_families``), and the plain-data record the reports render
(``study_record``, ``skipped_record``; ``audit.render`` reads it, never this module).
"""

from __future__ import annotations

from typing import Mapping, Sequence

from ..errors import UsageError
from ..settings import options
from .attribution import attribute_families
from .compare import ImpactResult, reference_corpus_results, run_impact
from .progress import NoSteps, Steps

#: Kind and version of the record written into the reports (audit.json ``impact``).
STUDY_KIND = "impact"
STUDY_VERSION = 1


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


def verdict(res: ImpactResult) -> tuple[bool, str]:
    """(do conclusions change?, the one-sentence verdict the reports lead with)."""
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
    changes, sentence = verdict(res)
    d = res.to_dict()
    d.pop("schema_version", None)
    d.pop("kind", None)
    rec = {"kind": STUDY_KIND, "version": STUDY_VERSION, "status": "done", "data": data,
           "systems_total": systems_total, "systems_studied": len(res.systems), "selection": selection,
           "families": list(families), "changes_conclusions": changes, "verdict": sentence, **d}
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
    resamples: int = options.RESAMPLES, alpha: float = options.ALPHA, seed: int = options.default("seed"), steps: Steps | None = None,
    reference_cache: dict | None = None,
) -> dict:
    """The whole impact study of one implementation with findings: the systems chosen
    (``closest_systems``), ``run_impact`` and ``attribute_families``; the record to pass
    to ``audit.commands.writing.write_reports`` (the record in the enriched result).

    ``reference_cache`` (params -> {system: reference_impl result}) is shared between
    implementations claiming the same parameters."""
    steps = steps or NoSteps()
    params = adapter.claims.params()
    cache = reference_cache if reference_cache is not None else {}
    results = cache.setdefault(params, {})
    names = list(systems)
    if n_systems is not None and n_systems < len(names):
        steps.stage("reference scores (choosing systems)", len(names))
        reference_corpus_results(systems, references, params, results, steps)
        chosen = closest_systems({n: results[n].score_float for n in names}, n_systems)
        selection = (f"the {len(chosen)} of {len(names)} systems whose reference scores lie closest together "
                     f"({results[chosen[-1]].score_float:.2f} to {results[chosen[0]].score_float:.2f})")
    else:
        chosen = sorted(names)
        selection = f"all {len(names)} systems"
    chosen = sorted(chosen)
    sub = {n: systems[n] for n in chosen}
    # Filled here (not inside run_impact, which only reads) so that the next implementation
    # claiming the same parameters reuses the exact results.
    if any(n not in results for n in chosen):
        steps.stage("reference scores", len(chosen))
        reference_corpus_results(sub, references, params, results, steps)
    res = run_impact(sub, references, adapter, params=params, resamples=resamples, alpha=alpha,
                     seed=seed, steps=steps, reference_results=results)
    impl_scores = {s.name: s.implementation_score for s in res.systems}
    by_family, check = attribute_families(sub, references, params, families, impl_scores, steps=steps)
    return study_record(res, data=data, systems_total=len(names), selection=selection,
                        by_family=by_family, model_check=check, families=families)
