"""Float64 models of what a procedure claims to compute, on the exact segment statistics.

Two kinds of model: over *summed segment statistics* (the correct one) and over *sentence
scores* (the classic bug), for intervals and for paired tests, with either a replayed draw
(the procedure's own resamples: ``ci_replay``, ``paired_replay``) or fresh draws (Monte
Carlo replicates).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from reference_impl import ChrfParams
from ..impact import significance as sig
from .procedures import DRAWS, StatsClaims, interval_from

#: tie tolerance of a ``>=`` count (as audit.impact.significance)
TIE = 1e-9


def p_count(count: int, trials: int) -> float:
    return (int(count) + 1) / (int(trials) + 1)


def ci_model(stats, sentence, claims: StatsClaims, alpha: float, idx: np.ndarray, over: str):
    """(low, high) of the claimed interval construction on resamples ``idx``."""
    return interval_from(ci_scores(stats, sentence, claims.params, idx, over), alpha, claims.interval)


def ci_scores(stats, sentence, params: ChrfParams, idx: np.ndarray, over: str) -> np.ndarray:
    """The resampled scores: corpus chrF of summed statistics, or the mean sentence score.
    Small draws sum the int64 statistics directly (exact, and faster than
    ``bootstrap_scores``' count matrix, which large draws use)."""
    if over != "statistics":
        return np.asarray(sentence, dtype=np.float64)[idx].mean(axis=1)
    if idx.size * stats.shape[1] <= 500_000:
        return sig.corpus_scores(stats[idx].sum(axis=1), params)
    return sig.bootstrap_scores(stats, params, indices=idx)


def ci_replay(corpus, claims: StatsClaims, draw: str, rec: dict, over: str = "statistics"):
    """(low, high) of the claimed construction on the procedure's own resamples: the draw
    ``draw`` with the call's seed and resample count."""
    idx = DRAWS[draw](rec["seed"], corpus.n, rec["resamples"])
    return ci_model(corpus.stats, corpus.sentence, claims, rec["alpha"], idx, over)


@dataclass(frozen=True)
class Null:
    """A paired test's resampled statistics and the observed value they are counted
    against: p = (#{stat >= observed} + 1) / (trials + 1), ``>`` when ``strict``."""

    stat: np.ndarray
    observed: float
    strict: bool

    def count(self) -> int:
        if self.strict:
            return int(np.sum(self.stat > self.observed))
        return int(np.sum(self.stat >= self.observed - TIE))

    def near(self, tol: float) -> int:
        """How many resamples lie within ``tol`` of the observed value: the counts that a
        rounding error of that size can flip."""
        return int(np.sum(np.abs(self.stat - self.observed) <= tol))

    @property
    def p(self) -> float:
        return p_count(self.count(), self.stat.size)


def paired_null(a, b, sa, sb, claims: StatsClaims, trials: int, seed, over: str) -> Null:
    """The claimed test statistic under the numpy draw of ``seed``.

    ``a``/``b``: statistics arrays; ``sa``/``sb``: sentence scores.  Permutation: segments
    swapped with probability 1/2 (``integers(2, size=(trials, n), dtype=bool)``); bootstrap
    on ``choice(n, (trials, n))``: ``"bootstrap"`` is sacreBLEU's Moses statistic
    (|d_r| - mean|d_r| > |observed|), ``"bootstrap-t"`` the studentized test of
    ``audit.impact.significance.paired_bootstrap`` (|d_r - observed| / se_r >= |observed| / se)."""
    params: ChrfParams = claims.params
    n = len(sa) if sa is not None else a.shape[0]
    rng = np.random.default_rng(seed)
    if claims.statistic == "permutation":
        swap = rng.integers(2, size=(trials, n), dtype=bool)
        if over == "statistics":
            fa, fb = a.reshape(n, -1).astype(np.float64), b.reshape(n, -1).astype(np.float64)
            moved = swap.astype(np.float64) @ (fb - fa)
            k = a.shape[1]
            pa = sig.corpus_scores((fa.sum(0) + moved).reshape(trials, k, 3), params)
            pb = sig.corpus_scores((fb.sum(0) - moved).reshape(trials, k, 3), params)
            return Null(np.abs(pa - pb), abs(sig.corpus_score(a, params) - sig.corpus_score(b, params)),
                        claims.strict)
        d = np.asarray(sa, dtype=np.float64) - np.asarray(sb, dtype=np.float64)
        return Null(np.abs(np.where(swap, -1.0, 1.0) @ d) / n, abs(d.mean()), claims.strict)
    if claims.statistic not in ("bootstrap", "bootstrap-t"):
        raise ValueError(f"unknown test statistic {claims.statistic!r}")
    idx = rng.choice(n, size=(trials, n), replace=True)
    if claims.statistic == "bootstrap-t":
        return _studentized(a, b, sa, sb, params, idx, over)
    if over == "statistics":
        da = ci_scores(a, None, params, idx, over) - ci_scores(b, None, params, idx, over)
        obs = abs(sig.corpus_score(a, params) - sig.corpus_score(b, params))
    else:
        d = np.asarray(sa, dtype=np.float64) - np.asarray(sb, dtype=np.float64)
        da, obs = d[idx].mean(axis=1), abs(d.mean())
    return Null(np.abs(da) - np.abs(da).mean(), obs, claims.strict)


def paired_model(a, b, sa, sb, claims: StatsClaims, trials: int, seed, over: str) -> float:
    """p-value of the claimed statistic with the numpy draw of ``seed``."""
    return paired_null(a, b, sa, sb, claims, trials, seed, over).p


def paired_replay(ans, claims: StatsClaims, over: str = "statistics") -> Null:
    """The claimed test on the procedure's own draw (the call's seed and trial count)."""
    a, b = ans.corpus, ans.other
    return paired_null(a.stats, b.stats, a.sentence, b.sentence, claims, ans.rec["resamples"],
                       ans.rec["seed"], over)


def _studentized(a, b, sa, sb, params, idx, over: str) -> Null:
    """The bootstrap-t statistic over summed statistics (audit.impact.significance's arithmetic,
    ``studentized_count``) or over sentence scores (a t statistic of the mean sentence-score
    difference)."""
    if over == "statistics":
        d, se = sig.paired_resamples(a, b, params, idx)
        obs = sig.corpus_score(a, params) - sig.corpus_score(b, params)
        se_obs = sig.linear_se(a, b, params)
    else:
        delta = np.asarray(sa, dtype=np.float64) - np.asarray(sb, dtype=np.float64)
        rows = delta[idx]
        # plug-in standard error of a mean, sqrt(sum (x - mean)^2) / n, as linear_se
        d, se = rows.mean(axis=1), rows.std(axis=1) / np.sqrt(delta.size)
        obs, se_obs = float(delta.mean()), float(delta.std()) / np.sqrt(delta.size)
    if se_obs <= 1e-12:   # no variability: every resample counts (p = 1)
        return Null(np.full(len(d), np.inf), 0.0, False)
    dev = np.abs(d - obs)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(se > 1e-12, dev / np.where(se > 1e-12, se, 1.0), np.where(dev <= TIE, 0.0, np.inf))
    return Null(t, abs(obs) / se_obs, False)
