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

This module is the comparison (what ``chrf-audit impact`` prints); the implementation's
side goes through ``implementation``, the ``--impact-data`` study builds on it in
``study`` and ``attribution``.
"""

from __future__ import annotations

import itertools
from dataclasses import asdict, dataclass, field
from typing import Any, Mapping, MutableMapping, Sequence

import numpy as np

from reference_impl import ChrfParams, corpus_score

from . import significance as sig
from ..errors import UsageError
from ..settings import options
from .implementation import corpus_values, segment_scores
from .progress import NoSteps, Steps

SCHEMA_VERSION = 1


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


def pair_call(diff: float | None, p: float | None, alpha: float) -> str | None:
    """"a>b", "a<b" or "n.s." for a difference a - b and its p-value (None: no test, the
    sign decides); None when there is no difference (a score is missing)."""
    if diff is None:
        return None
    if p is not None and p >= alpha:
        return "n.s."
    return "a>b" if diff > 0 else "a<b" if diff < 0 else "n.s."


def reference_corpus_results(
    systems: Mapping[str, Sequence[str]], references: Sequence[Sequence[str]], params: ChrfParams,
    cache: MutableMapping[str, Any] | None = None, steps: Steps | None = None,
) -> dict[str, Any]:
    """``reference_impl`` corpus results per system under ``params``; ``cache`` (system ->
    result, same params) is read and filled, so several studies share the exact work."""
    steps = steps or NoSteps()
    cache = {} if cache is None else cache
    refs = [list(r) for r in references]
    out = {}
    for name, hyps in systems.items():
        if name not in cache:
            cache[name] = corpus_score(list(hyps), refs, **params.kwargs())
        out[name] = cache[name]
        steps.advance()
    return out


def run_impact(
    systems: Mapping[str, Sequence[str]],
    references: Sequence[Sequence[str]],
    adapter,
    *,
    params: ChrfParams | None = None,
    resamples: int = options.RESAMPLES,
    alpha: float = options.ALPHA,
    seed: int = 0,
    implementation_tests: bool = True,
    steps: Steps | None = None,
    reference_results: Mapping[str, Any] | None = None,
) -> ImpactResult:
    """Score every system with the reference and with ``adapter``; compare conclusions.

    ``references[i]`` lists segment i's references.  ``params`` defaults to the parameters
    the adapter claims (``adapter.claims.params()``).  ``reference_results`` may hold
    already computed ``reference_impl`` corpus results per system (same params)."""
    steps = steps or NoSteps()
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

    # Reference: exact statistics, corpus score and bootstrap CI per system.
    steps.stage("reference statistics", len(names))
    results = reference_corpus_results(systems, references, params, dict(reference_results or {}), steps)
    stats = {name: sig.stats_array(results[name].segment_stats) for name in names}
    exact = {name: results[name].score_float for name in names}
    signature = results[names[-1]].signature
    steps.stage("bootstrap CIs", len(names))
    cis = {}
    for name in names:
        cis[name] = sig.bootstrap_ci(stats[name], params, resamples=resamples, alpha=alpha, seed=seed)
        steps.advance()

    notes: list[str] = []
    impl, seg_scores, method = _implementation_side(
        adapter, systems, references, implementation_tests, notes, steps)

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
        ref_call = pair_call(d_ref, pr.p_value, alpha)
        va, vb = impl[a][0], impl[b][0]
        d_impl = None if va is None or vb is None else va - vb
        p_impl = None
        if seg_scores is not None:
            p_impl = sig.paired_permutation_scores(
                seg_scores[a], seg_scores[b], trials=resamples, seed=seed).p_value
        impl_call = pair_call(d_impl, p_impl, alpha)
        change = change_of(ref_call, impl_call, d_ref, d_impl, p_impl is not None)
        pair_rows.append(PairCall(a, b, d_ref, pr.p_value, ref_call, d_impl, p_impl, impl_call,
                                  bool(change), change))
        steps.advance()

    return ImpactResult(
        implementation=adapter.name, reference_signature=signature, alpha=alpha,
        resamples=resamples, seed=seed, segments=n,
        references=nrefs.pop() if len(nrefs) == 1 else -1,
        implementation_significance=method, systems=system_rows, pairs=pair_rows, notes=notes,
    )


def _implementation_side(adapter, systems, references, implementation_tests: bool, notes: list[str],
                         steps: Steps):
    """The implementation's corpus scores per system, its one-segment scores when they give
    an exact significance test (else None), and how its calls are made; reasons go to
    ``notes``."""
    names = list(systems)
    supports_corpus = adapter.supports.corpus
    if not supports_corpus:
        notes.append(f"{adapter.name} has no corpus-level scoring: implementation scores omitted")
        impl = {name: (None, "unsupported", "no corpus level") for name in names}
    else:
        impl = corpus_values(adapter, systems, references, steps)

    # Its significance: exact AR over per-segment scores when decomposable.
    seg_scores: dict[str, np.ndarray] | None = None
    method = "none: ranking only (a reversal of a significant reference call counts as changed)"
    if implementation_tests and supports_corpus and len(names) > 1:
        if all(impl[nm][0] is not None for nm in names):
            seg_scores, why = segment_scores(adapter, systems, references, impl, steps)
            if seg_scores is not None:
                method = ("paired permutation over the implementation's one-segment scores "
                          "(its corpus score is their mean, so this is exact approximate "
                          "randomization of its corpus score)")
            else:
                notes.append(why)
        else:
            notes.append("some implementation scores are missing: no implementation significance calls")
    return impl, seg_scores, method


def change_of(ref_call, impl_call, d_ref, d_impl, impl_has_tests: bool) -> str:
    """How the implementation's call on a pair differs from the reference's ("" = same)."""
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
