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
* ``paired_bootstrap`` is a studentized (bootstrap-t) test: each resampled difference is
  centred on the observed one and divided by its own delta-method standard error.  It does
  *not* reproduce ``sacrebleu --paired-bs``, whose (Moses ``bootstrap-hypothesis-difference-
  significance.pl``) statistic ``|d_r| - mean_r |d_r| > |observed|`` is anti-conservative
  (type-I error ~0.16 at alpha 0.05, docs/stats.md) and gives a system compared with itself
  p = 1/(N+1).  That statistic is modelled only where sacreBLEU is audited
  (``audit.stats.models``).  The plain shift method (``|d_r - mean d_r| >= |observed|``) was
  measured too: type-I error 0.072 at alpha 0.05 on 30 segments, against 0.053 for the
  bootstrap-t and 0.058 for ``paired_permutation`` (2000 null datasets,
  ``benchmarks/bench_paired_type1.py``).
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

from ..settings.options import ALPHA, RESAMPLES

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
    stats, params: ChrfParams, *, resamples: int = RESAMPLES, seed: int | None = 0,
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

    def significant(self, alpha: float = ALPHA) -> bool:
        return self.p_value < alpha

    def to_dict(self) -> dict:
        return asdict(self)


def p_value(count: int, trials: int) -> float:
    """The (count + 1) / (trials + 1) convention."""
    return (int(count) + 1) / (int(trials) + 1)


# --------------------------------------------------------------------------- tests


def bootstrap_ci(
    stats, params: ChrfParams, *, resamples: int = RESAMPLES, alpha: float = ALPHA,
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
    stats_a, stats_b, params: ChrfParams, *, resamples: int = RESAMPLES, seed: int | None = 0,
    progress: Progress | None = None,
) -> PairedResult:
    """Paired bootstrap test of H0 "no difference in corpus score" (Koehn 2004's resampling,
    tested with the bootstrap-t of Efron & Tibshirani 1993, sec. 16.4 and 12.5).

    The same resampled segment indices are applied to both systems; d_r is the resampled
    difference A - B and se_r its delta-method standard error on that resample
    (``linear_se``).  Why studentized: the plain shift method (centre the d_r, compare with
    the observed difference) ignores that a resample's spread varies with its content and
    rejects a true null 7% of the time at alpha 0.05 on 30 segments; the studentized
    statistic is pivotal and its resampled distribution has the right (heavier) tails.
    p = (#{ |d_r - observed| / se_r >= |observed| / se } + 1) / (resamples + 1), ties count
    (up to 1e-9).  No variability (se = 0: identical systems, one segment) is no evidence of
    a difference: p = 1."""
    _check_count("resamples", resamples)
    a, b = _as_array(stats_a), _as_array(stats_b)
    _check_pair(a, b)
    n = a.shape[0]
    idx = np.random.default_rng(seed).choice(n, size=(resamples, n), replace=True)
    d, se = paired_resamples(a, b, params, idx, progress)
    score_a, score_b = corpus_score(a, params), corpus_score(b, params)
    observed = score_a - score_b
    count = studentized_count(d, se, observed, linear_se(a, b, params))
    lo, hi = np.quantile(d, [0.025, 0.975])
    return PairedResult(
        "paired-bootstrap", score_a, score_b, observed, p_value(count, resamples),
        int(resamples), seed, float(lo), float(hi),
    )


def studentized_count(d, se, observed: float, se_observed: float) -> int:
    """#{ |d_r - observed| / se_r >= |observed| / se_observed } (up to 1e-9); every resample
    counts when se_observed is 0 (no variability: p = 1).  A resample with se_r = 0 is
    extreme only if its difference moved."""
    d, se = np.asarray(d, dtype=np.float64), np.asarray(se, dtype=np.float64)
    if se_observed <= 1e-12:
        return int(d.size)
    dev = np.abs(d - observed)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(se > 1e-12, dev / np.where(se > 1e-12, se, 1.0), np.where(dev <= 1e-9, 0.0, np.inf))
    return int(np.sum(t >= abs(observed) / se_observed - 1e-9))


def score_gradients(totals: np.ndarray, params: ChrfParams) -> tuple[np.ndarray, np.ndarray]:
    """(scores, gradients) of corpus scores at ``totals`` (rows, k*3), by forward differences
    with a relative step of 1e-6 (chrF is a smooth function of positive totals).  A zero
    total gets gradient 0: every segment has 0 there, so it never enters ``x_i . g``."""
    t = np.asarray(totals, dtype=np.float64)
    rows, m = t.shape
    base = corpus_scores(t.reshape(rows, m // 3, 3), params)
    grad = np.zeros_like(t)
    for j in range(m):
        moved = t.copy()
        h = 1e-6 * np.maximum(t[:, j], 1.0)
        moved[:, j] += h
        step = (corpus_scores(moved.reshape(rows, m // 3, 3), params) - base) / h
        grad[:, j] = np.where(t[:, j] > 0, step, 0.0)
    return base, grad


def linear_se(stats_a, stats_b, params: ChrfParams) -> float:
    """Delta-method standard error of corpus(A) - corpus(B) under resampling of segments:
    sqrt(sum_i (u_i - mean u)^2) with u_i = g_A . x_Ai - g_B . x_Bi (g: score gradients at
    the totals).  For a metric that is a mean of segment scores it is the plug-in standard
    error of the mean difference."""
    a, b = _as_array(stats_a), _as_array(stats_b)
    n = a.shape[0]
    fa, fb = a.reshape(n, -1).astype(np.float64), b.reshape(n, -1).astype(np.float64)
    _, ga = score_gradients(fa.sum(axis=0)[None], params)
    _, gb = score_gradients(fb.sum(axis=0)[None], params)
    u = fa @ ga[0] - fb @ gb[0]
    return float(np.sqrt(np.sum((u - u.mean()) ** 2)))


def paired_resamples(a, b, params, idx, progress=None):
    """Resampled differences d_r and their delta-method standard errors se_r."""
    n = a.shape[0]
    fa, fb = a.reshape(n, -1).astype(np.float64), b.reshape(n, -1).astype(np.float64)
    d = np.empty(idx.shape[0])
    se = np.empty(idx.shape[0])
    for s, e in _blocks(idx.shape[0], n):
        offsets = (np.arange(e - s, dtype=np.int64)[:, None] * n + idx[s:e]).ravel()
        c = np.bincount(offsets, minlength=(e - s) * n).reshape(e - s, n).astype(np.float64)
        sa, ga = score_gradients(c @ fa, params)
        sb, gb = score_gradients(c @ fb, params)
        u = (ga @ fa.T) - (gb @ fb.T)                       # (rows, n): u_ri
        s1, s2 = (c * u).sum(axis=1), (c * u * u).sum(axis=1)
        d[s:e] = sa - sb
        se[s:e] = np.sqrt(np.maximum(s2 - s1 * s1 / n, 0.0))
        if progress:
            progress(e - s)
    return d, se


def paired_permutation(
    stats_a, stats_b, params: ChrfParams, *, trials: int = RESAMPLES, seed: int | None = 0,
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
    scores_a: Sequence[float], scores_b: Sequence[float], *, trials: int = RESAMPLES,
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
