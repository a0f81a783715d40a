"""Corpus significance over sufficient statistics: bootstrap CI, paired bootstrap, paired
permutation (approximate randomization).

A corpus chrF score is a function of the *summed* per-segment integer statistics (per order:
hypothesis, reference and clipped-match n-gram counts), never a mean of sentence scores.  So
every resample here is a multiset of segments whose statistics are summed and then scored
once, exactly like the corpus score itself.  Sentence scores are never resampled.

Pure computation, no I/O.  Counts are held as int64 and scored in float64 (never float32):

* sums over resampled segments are computed as ``counts @ stats`` where ``counts[r, i]`` is how
  often segment i occurs in resample r.  Both factors are integers below 2**53, so the float64
  matrix product is exact (every partial sum is an integer that float64 represents);
* the chrF formula per definition is then evaluated vectorized over all resamples at once.
  It mirrors ``reference_impl.scoring`` case for case; the result equals the exact reference
  score to ~1e-13 on the 0..100 scale.

Conventions (and where they differ from sacreBLEU 2.x ``sacrebleu/significance.py``):

* p-values are ``(count + 1) / (trials + 1)`` (as sacreBLEU / multeval).
* ``paired_permutation`` counts trials with ``|diff| >= |observed|`` (up to 1e-9 for float
  noise); sacreBLEU counts ``>`` strictly, which gives a system compared with itself the
  smallest possible p-value (every trial ties at 0) instead of p = 1.
* ``paired_bootstrap`` uses sacreBLEU's (Moses ``bootstrap-hypothesis-difference-
  significance.pl``) statistic: ``|d_r| - mean_r |d_r|`` compared with ``|observed|``, so its
  p-values are comparable with ``sacrebleu --paired-bs``.
* sacreBLEU's bootstrap converts the statistics to float32 (``_bootstrap_resample``,
  ``_paired_bs_test``) and, under numpy 2 (NEP 50), ``_compute_f_score`` then runs in float32
  (numpy float32 scalars stay float32 when combined with Python floats): its resampled scores
  carry ~1e-6 relative error (~1e-5 on the 0..100 scale).  Its approximate randomization
  multiplies a bool mask with the int statistics (int64) and so stays in float64.  Here all
  arithmetic is float64.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Callable, Sequence

import numpy as np

from reference_impl import EPSILON, ChrfParams, SegmentStats

_EPS = float(EPSILON)  # 1e-16, as the upstream float code uses
#: Rows per block of resamples: bounds the (rows x segments) float64 count matrix to ~32 MB.
_BLOCK_CELLS = 4_000_000

Progress = Callable[[int], None]  # called with the number of resamples just finished


# --------------------------------------------------------------------------- statistics


def stats_array(stats: Sequence[SegmentStats]) -> np.ndarray:
    """Per-segment statistics as an int64 array of shape (n_segments, n_orders, 3), the last
    axis being (hyp, ref, match)."""
    if isinstance(stats, np.ndarray):
        arr = np.asarray(stats, dtype=np.int64)
        if arr.ndim != 3 or arr.shape[2] != 3:
            raise ValueError(f"statistics array must have shape (n, orders, 3), got {arr.shape}")
        return arr
    stats = list(stats)
    if not stats:
        raise ValueError("no segment statistics: the corpus is empty")
    arr = np.array([(s.hyp, s.ref, s.match) for s in stats], dtype=np.int64)  # (n, 3, k)
    return np.ascontiguousarray(arr.transpose(0, 2, 1))


def _as_array(stats) -> np.ndarray:
    return stats_array(stats)


def corpus_scores(totals: np.ndarray, params: ChrfParams) -> np.ndarray:
    """Corpus scores (0..100, float64) of summed statistics ``totals`` of shape (..., k, 3).

    Vectorized over the leading axes; mirrors ``reference_impl.scoring.corpus_fscore``.
    """
    t = np.asarray(totals, dtype=np.float64)
    if t.shape[-2:] != (params.order, 3):
        raise ValueError(
            f"statistics have {t.shape[-2]} orders x {t.shape[-1]}, expected {params.order} x 3"
        )
    h, r, m = t[..., 0], t[..., 1], t[..., 2]
    b2 = float(params.beta * params.beta)
    with np.errstate(divide="ignore", invalid="ignore"):
        if params.definition == "sacrebleu":
            eff = (h > 0) & (r > 0)
            k = eff.sum(axis=-1)
            p_sum = np.where(eff, m / np.where(eff, h, 1.0), 0.0).sum(axis=-1)
            r_sum = np.where(eff, m / np.where(eff, r, 1.0), 0.0).sum(axis=-1)
            kk = np.maximum(k, 1)
            p, rc = p_sum / kk, r_sum / kk
            ok = (k > 0) & (p > 0) & (rc > 0)
            f = np.where(ok, (1 + b2) * p * rc / np.where(ok, b2 * p + rc, 1.0), 0.0)
            return 100.0 * f
        # sacrebleu-eps and chrfpp: the corpus score is the mean over all orders of per-order
        # F, with the 1e-16 substitute where F has a zero denominator.
        den = b2 * r + h
        f_match = (1 + b2) * m / np.where(m > 0, den, 1.0)
        f = np.where(m > 0, f_match, np.where((h > 0) == (r > 0), _EPS, 0.0))
        return 100.0 * f.mean(axis=-1)


def corpus_score(stats, params: ChrfParams) -> float:
    """Float64 corpus score of per-segment statistics (sum, then score once)."""
    arr = _as_array(stats)
    return float(corpus_scores(arr.sum(axis=0), params))


def _blocks(n_rows: int, n_segments: int):
    step = max(1, _BLOCK_CELLS // max(1, n_segments))
    for start in range(0, n_rows, step):
        yield start, min(n_rows, start + step)


def _resampled_totals(flat: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """Summed statistics of each resample: ``idx`` (rows, n) segment indices -> (rows, k*3).

    Built as (occurrence counts) @ (statistics): exact in float64 (integers < 2**53)."""
    rows, n = idx.shape
    offsets = (np.arange(rows, dtype=np.int64)[:, None] * flat.shape[0] + idx).ravel()
    counts = np.bincount(offsets, minlength=rows * flat.shape[0]).reshape(rows, flat.shape[0])
    return counts.astype(np.float64) @ flat


def bootstrap_scores(
    stats, params: ChrfParams, *, resamples: int = 1000, seed: int | None = 0,
    indices: np.ndarray | None = None, progress: Progress | None = None,
) -> np.ndarray:
    """Corpus scores of ``resamples`` bootstrap resamples (segments drawn with replacement).

    The indices are ``numpy.random.default_rng(seed).choice(n, size=(resamples, n))``, the
    same draw as sacreBLEU's for the same seed; ``indices`` overrides them."""
    arr = _as_array(stats)
    n, k, _ = arr.shape
    if indices is None:
        _check_count("resamples", resamples)
        indices = np.random.default_rng(seed).choice(n, size=(resamples, n), replace=True)
    flat = arr.reshape(n, k * 3).astype(np.float64)
    out = np.empty(indices.shape[0], dtype=np.float64)
    for a, b in _blocks(indices.shape[0], n):
        out[a:b] = corpus_scores(_resampled_totals(flat, indices[a:b]).reshape(b - a, k, 3), params)
        if progress:
            progress(b - a)
    return out


def _check_count(name: str, value: int) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")


def _check_alpha(alpha: float) -> None:
    if not (0.0 < float(alpha) < 1.0):
        raise ValueError(f"alpha must be between 0 and 1, got {alpha!r}")


def _check_pair(a: np.ndarray, b: np.ndarray) -> None:
    if a.shape != b.shape:
        raise ValueError(
            f"the two systems' statistics differ in shape: {a.shape} vs {b.shape} "
            "(same segments and the same orders are needed)"
        )


# --------------------------------------------------------------------------- results


@dataclass(frozen=True)
class BootstrapCI:
    """Percentile bootstrap interval of a corpus score (0..100)."""

    score: float       # corpus score of the full corpus (float64, from the summed statistics)
    low: float
    high: float
    resamples: int
    alpha: float
    seed: int | None
    mean: float        # mean of the resampled corpus scores (diagnostic)

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class PairedResult:
    """A paired test between systems A and B (difference = A - B, on 0..100)."""

    test: str          # "paired-bootstrap" or "paired-permutation"
    score_a: float
    score_b: float
    difference: float
    p_value: float
    trials: int
    seed: int | None
    # paired bootstrap only: percentile interval of the resampled difference (95%)
    diff_low: float | None = None
    diff_high: float | None = None

    def significant(self, alpha: float = 0.05) -> bool:
        return self.p_value < alpha

    def to_dict(self) -> dict:
        return asdict(self)


def p_value(count: int, trials: int) -> float:
    """The (count + 1) / (trials + 1) convention."""
    return (int(count) + 1) / (int(trials) + 1)


# --------------------------------------------------------------------------- tests


def bootstrap_ci(
    stats, params: ChrfParams, *, resamples: int = 1000, alpha: float = 0.05,
    seed: int | None = 0, progress: Progress | None = None,
) -> BootstrapCI:
    """Percentile bootstrap confidence interval of the corpus score.

    Resamples segments with replacement, sums their statistics, scores each resample once."""
    _check_alpha(alpha)
    arr = _as_array(stats)
    scores = bootstrap_scores(arr, params, resamples=resamples, seed=seed, progress=progress)
    low, high = np.quantile(scores, [alpha / 2, 1 - alpha / 2])
    return BootstrapCI(
        score=corpus_score(arr, params), low=float(low), high=float(high),
        resamples=int(resamples), alpha=float(alpha), seed=seed, mean=float(scores.mean()),
    )


def paired_bootstrap(
    stats_a, stats_b, params: ChrfParams, *, resamples: int = 1000, seed: int | None = 0,
    progress: Progress | None = None,
) -> PairedResult:
    """Paired bootstrap resampling test (Koehn 2004; sacreBLEU ``--paired-bs``).

    The same resampled segment indices are applied to both systems.  With d_r the resampled
    difference, p = (#{ |d_r| - mean|d| > |observed| } + 1) / (resamples + 1), sacreBLEU's
    statistic (testing H0: the expected absolute difference is what chance alone produces)."""
    _check_count("resamples", resamples)
    a, b = _as_array(stats_a), _as_array(stats_b)
    _check_pair(a, b)
    n = a.shape[0]
    idx = np.random.default_rng(seed).choice(n, size=(resamples, n), replace=True)
    sa = bootstrap_scores(a, params, indices=idx, progress=progress)
    sb = bootstrap_scores(b, params, indices=idx)
    score_a, score_b = corpus_score(a, params), corpus_score(b, params)
    observed = score_a - score_b
    d = sa - sb
    centred = np.abs(d) - np.abs(d).mean()
    count = int(np.sum(centred > abs(observed)))
    lo, hi = np.quantile(d, [0.025, 0.975])
    return PairedResult(
        "paired-bootstrap", score_a, score_b, observed, p_value(count, resamples),
        int(resamples), seed, float(lo), float(hi),
    )


def paired_permutation(
    stats_a, stats_b, params: ChrfParams, *, trials: int = 1000, seed: int | None = 0,
    progress: Progress | None = None,
) -> PairedResult:
    """Paired approximate randomization test (Noreen 1989; Riezler & Maxwell 2005).

    In each trial every segment's statistics are swapped between the two systems with
    probability 1/2; both pseudo-systems' corpus scores are recomputed from summed statistics.
    p = (#{ |diff_t| >= |observed| } + 1) / (trials + 1)."""
    _check_count("trials", trials)
    a, b = _as_array(stats_a), _as_array(stats_b)
    _check_pair(a, b)
    n, k, _ = a.shape
    swap = np.random.default_rng(seed).integers(2, size=(trials, n), dtype=bool)
    fa = a.reshape(n, k * 3).astype(np.float64)
    fb = b.reshape(n, k * 3).astype(np.float64)
    delta = fb - fa                      # swapping segment i moves A's total by +delta_i
    tot_a, tot_b = fa.sum(axis=0), fb.sum(axis=0)
    score_a = float(corpus_scores(tot_a.reshape(k, 3), params))
    score_b = float(corpus_scores(tot_b.reshape(k, 3), params))
    observed = abs(score_a - score_b)
    diffs = np.empty(trials, dtype=np.float64)
    for s, e in _blocks(trials, n):
        moved = swap[s:e].astype(np.float64) @ delta        # exact: integer sums < 2**53
        pa = corpus_scores((tot_a + moved).reshape(e - s, k, 3), params)
        pb = corpus_scores((tot_b - moved).reshape(e - s, k, 3), params)
        diffs[s:e] = np.abs(pa - pb)
        if progress:
            progress(e - s)
    count = int(np.sum(diffs >= observed - 1e-9))
    return PairedResult(
        "paired-permutation", score_a, score_b, score_a - score_b, p_value(count, trials),
        int(trials), seed,
    )


def paired_permutation_scores(
    scores_a: Sequence[float], scores_b: Sequence[float], *, trials: int = 1000,
    seed: int | None = 0,
) -> PairedResult:
    """Approximate randomization for a metric whose corpus score is the *mean* of per-segment
    scores (e.g. nltk's ``corpus_chrf``).  For such a metric this is the exact analogue of
    ``paired_permutation``: swapping segments swaps their segment scores.  Not valid for
    chrF proper (use ``paired_permutation`` on statistics)."""
    _check_count("trials", trials)
    sa = np.asarray(scores_a, dtype=np.float64)
    sb = np.asarray(scores_b, dtype=np.float64)
    if sa.shape != sb.shape or sa.ndim != 1 or sa.size == 0:
        raise ValueError(f"segment scores must be two equal-length vectors, got {sa.shape}, {sb.shape}")
    n = sa.size
    swap = np.random.default_rng(seed).integers(2, size=(trials, n), dtype=bool)
    delta = sb - sa
    # pseudo A - pseudo B = (sum a - sum b + 2 * swap @ delta) / n
    base = float(sa.sum() - sb.sum())
    diffs = np.abs(base + 2.0 * (swap.astype(np.float64) @ delta)) / n
    observed = abs(base) / n
    count = int(np.sum(diffs >= observed - 1e-9))
    return PairedResult(
        "paired-permutation-segment-scores", float(sa.mean()), float(sb.mean()),
        float(sa.mean() - sb.mean()), p_value(count, trials), int(trials), seed,
    )
