"""Float64 models of what a procedure claims to compute, on the exact segment statistics.

Two kinds of model: over *summed segment statistics* (the correct one) and over *sentence
scores* (the classic bug), for intervals and for paired tests, with either a replayed draw
(the procedure's own resamples) or fresh draws (Monte Carlo replicates).
"""

from __future__ import annotations

import numpy as np

from reference_impl import ChrfParams
from .. import significance as sig
from .procedures import DRAWS, StatsClaims, interval_from


def p_count(count: int, trials: int) -> float:
    return (int(count) + 1) / (int(trials) + 1)


def ci_model(stats, sentence, claims: StatsClaims, alpha: float, idx: np.ndarray, over: str):
    """(low, high) of the claimed interval construction on resamples ``idx``."""
    if over == "statistics":
        scores = sig.bootstrap_scores(stats, claims.params, indices=idx)
    else:
        scores = np.asarray(sentence, dtype=np.float64)[idx].mean(axis=1)
    return interval_from(scores, alpha, claims.interval)


def ci_replicates(stats, sentence, claims, alpha, resamples, seeds, over):
    """Replicate (low, high) over fresh numpy-choice draws: array (len(seeds), 2)."""
    n = len(sentence)
    return np.array([ci_model(stats, sentence, claims, alpha, DRAWS["numpy-choice"](s, n, resamples), over)
                     for s in seeds])


def _perm_count(obs: float, diffs: np.ndarray, strict: bool) -> int:
    return int(np.sum(diffs > obs)) if strict else int(np.sum(diffs >= obs - 1e-9))


def paired_model(a, b, sa, sb, claims: StatsClaims, trials: int, seed, over: str) -> float:
    """p-value of the claimed statistic with the numpy draw of ``seed``.

    ``a``/``b``: statistics arrays; ``sa``/``sb``: sentence scores.  Permutation: segments
    swapped with probability 1/2 (``integers(2, size=(trials, n), dtype=bool)``); bootstrap
    on ``choice(n, (trials, n))``: ``"bootstrap"`` is sacreBLEU's Moses statistic
    (|d_r| - mean|d_r| > |observed|), ``"bootstrap-t"`` the studentized test of
    ``audit.significance.paired_bootstrap`` (|d_r - observed| / se_r >= |observed| / se)."""
    params: ChrfParams = claims.params
    n = a.shape[0]
    rng = np.random.default_rng(seed)
    if claims.statistic == "permutation":
        swap = rng.integers(2, size=(trials, n), dtype=bool)
        if over == "statistics":
            fa, fb = a.reshape(n, -1).astype(np.float64), b.reshape(n, -1).astype(np.float64)
            moved = swap.astype(np.float64) @ (fb - fa)
            k = a.shape[1]
            pa = sig.corpus_scores((fa.sum(0) + moved).reshape(trials, k, 3), params)
            pb = sig.corpus_scores((fb.sum(0) - moved).reshape(trials, k, 3), params)
            obs = abs(sig.corpus_score(a, params) - sig.corpus_score(b, params))
        else:
            d = np.asarray(sa, dtype=np.float64) - np.asarray(sb, dtype=np.float64)
            signs = np.where(swap, -1.0, 1.0)
            pa, pb = (signs * d).mean(axis=1), 0.0
            obs = abs(d.mean())
        return p_count(_perm_count(obs, np.abs(pa - pb), claims.strict), trials)
    if claims.statistic not in ("bootstrap", "bootstrap-t"):
        raise ValueError(f"unknown test statistic {claims.statistic!r}")
    idx = rng.choice(n, size=(trials, n), replace=True)
    if claims.statistic == "bootstrap-t":
        return p_count(_studentized(a, b, sa, sb, params, idx, over), trials)
    if over == "statistics":
        da = sig.bootstrap_scores(a, params, indices=idx) - sig.bootstrap_scores(b, params, indices=idx)
        obs = abs(sig.corpus_score(a, params) - sig.corpus_score(b, params))
    else:
        d = np.asarray(sa, dtype=np.float64) - np.asarray(sb, dtype=np.float64)
        da, obs = d[idx].mean(axis=1), abs(d.mean())
    centred = np.abs(da) - np.abs(da).mean()
    return p_count(_perm_count(obs, centred, claims.strict), trials)


def _studentized(a, b, sa, sb, params, idx, over: str) -> int:
    """The bootstrap-t count over summed statistics (audit.significance's own arithmetic)
    or over sentence scores (a t statistic of the mean sentence-score difference)."""
    if over == "statistics":
        d, se = sig.paired_resamples(a, b, params, idx)
        obs = sig.corpus_score(a, params) - sig.corpus_score(b, params)
        return sig.studentized_count(d, se, obs, sig.linear_se(a, b, params))
    delta = np.asarray(sa, dtype=np.float64) - np.asarray(sb, dtype=np.float64)
    n = delta.size
    rows = delta[idx]
    # plug-in standard error of a mean, sqrt(sum (x - mean)^2) / n, as linear_se
    return sig.studentized_count(rows.mean(axis=1), rows.std(axis=1) / np.sqrt(n), delta.mean(),
                                 float(delta.std()) / np.sqrt(n))
