"""Planted statistical procedures for tests/test_stats_audit.py: each has one known bug
(or none), written the way such bugs are written in real code.

All follow the callable conventions of ``chrf-audit stats --ci/--paired``.
"""

from __future__ import annotations

import numpy as np

from audit.impact import significance as sig
from audit.stats.data import make_corpus
from reference_impl import ChrfParams

P = ChrfParams.make()


def _stats(hyps, refs):
    return make_corpus(hyps, refs, P)


# --------------------------------------------------------------------------- intervals


def ci_correct(hypotheses, references, resamples=1000, alpha=0.05, seed=0):
    c = _stats(hypotheses, references)
    r = sig.bootstrap_ci(c.stats, P, resamples=resamples, alpha=alpha, seed=seed)
    return r.score, r.low, r.high


def ci_sentence_scores(hypotheses, references, resamples=1000, alpha=0.05, seed=0):
    """Bug: resamples sentence scores (the mean of sentence chrF), not summed statistics."""
    c = _stats(hypotheses, references)
    idx = np.random.default_rng(seed).choice(c.n, size=(resamples, c.n))
    means = c.sentence[idx].mean(axis=1)
    lo, hi = np.quantile(means, [alpha / 2, 1 - alpha / 2])
    return c.score(P), float(lo), float(hi)


def ci_float32(hypotheses, references, resamples=1000, alpha=0.05, seed=0):
    """Bug: the resampled scores are kept in float32 ("to save memory")."""
    c = _stats(hypotheses, references)
    scores = sig.bootstrap_scores(c.stats, P, resamples=resamples, seed=seed).astype(np.float32)
    lo, hi = np.quantile(scores, [alpha / 2, 1 - alpha / 2])
    return c.score(P), float(lo), float(hi)


def ci_float32_bounds(hypotheses, references, resamples=1000, alpha=0.05, seed=0):
    """Bug: bounds stored as float32 (its own draw, which the audit cannot replay)."""
    c = _stats(hypotheses, references)
    idx = np.random.default_rng(seed).integers(0, c.n, size=(resamples, c.n)) if seed is not None else None
    scores = sig.bootstrap_scores(c.stats, P, indices=idx)
    lo, hi = np.quantile(scores, [alpha / 2, 1 - alpha / 2])
    return c.score(P), float(np.float32(lo)), float(np.float32(hi))


def ci_crash_on_zero(hypotheses, references, resamples=1000, alpha=0.05, seed=0):
    """Bug: each resample's F-score is computed without guarding P + R = 0, so a resample
    that scores exactly 0 raises ZeroDivisionError."""
    c = _stats(hypotheses, references)
    idx = np.random.default_rng(seed).choice(c.n, size=(resamples, c.n))
    scores = []
    for row in idx:
        tot = c.stats[row].sum(axis=0)                      # (orders, 3): hyp, ref, match
        eff = [(h, r, m) for h, r, m in tot.tolist() if h > 0 and r > 0]
        if not eff:
            scores.append(0.0)
            continue
        prec = sum(m / h for h, _, m in eff) / len(eff)
        rec = sum(m / r for _, r, m in eff) / len(eff)
        scores.append(100 * 5 * prec * rec / (4 * prec + rec))
    lo, hi = np.quantile(scores, [alpha / 2, 1 - alpha / 2])
    return c.score(P), float(lo), float(hi)


def ci_ignores_alpha(hypotheses, references, resamples=1000, alpha=0.05, seed=0):
    """Bug: always a 95% interval, whatever alpha is asked for."""
    return ci_correct(hypotheses, references, resamples, 0.05, seed)


# --------------------------------------------------------------------------- paired tests


def paired_correct(hyps_a, hyps_b, references, resamples=1000, seed=0):
    a, b = _stats(hyps_a, references), _stats(hyps_b, references)
    return sig.paired_permutation(a.stats, b.stats, P, trials=resamples, seed=seed).p_value


def paired_wrong_pairing(hyps_a, hyps_b, references, resamples=1000, seed=0):
    """Bug: system B's segment statistics are paired in reverse order (an off-by-reversal
    when the second system's files are read back to front)."""
    a, b = _stats(hyps_a, references), _stats(hyps_b, references)
    return sig.paired_permutation(a.stats, b.stats[::-1], P, trials=resamples, seed=seed).p_value


def paired_sorted(hyps_a, hyps_b, references, resamples=1000, seed=0):
    """Bug: each system's segments are sorted by sentence score before pairing."""
    a, b = _stats(hyps_a, references), _stats(hyps_b, references)
    return sig.paired_permutation(a.stats[np.argsort(a.sentence, kind="stable")],
                                  b.stats[np.argsort(b.sentence, kind="stable")],
                                  P, trials=resamples, seed=seed).p_value


def paired_uncalibrated(hyps_a, hyps_b, references, resamples=1000, seed=0):
    """Bug: a one-sided p-value (half the two-sided one) reported as two-sided."""
    return paired_correct(hyps_a, hyps_b, references, resamples, seed) / 2


def paired_unseeded(hyps_a, hyps_b, references, resamples=1000, seed=0):
    """Bug: claims to take a seed but ignores it."""
    return paired_correct(hyps_a, hyps_b, references, resamples, None)


def paired_no_seed(hyps_a, hyps_b, references, resamples=1000):
    """Correct, and takes no seed (as evaluatio's chrf_permutation_test): each call draws its
    permutations from fresh operating-system entropy, so its p-values change every run."""
    return paired_correct(hyps_a, hyps_b, references, resamples, None)


def paired_moses(hyps_a, hyps_b, references, resamples=1000, seed=0):
    """Bug: sacreBLEU's (Moses) paired bootstrap statistic, |d_r| - mean|d_r| > |observed|:
    anti-conservative, and a system compared with itself gets p = 1/(N+1)."""
    a, b = _stats(hyps_a, references), _stats(hyps_b, references)
    idx = np.random.default_rng(seed).choice(a.n, size=(resamples, a.n))
    d = sig.bootstrap_scores(a.stats, P, indices=idx) - sig.bootstrap_scores(b.stats, P, indices=idx)
    observed = abs(a.score(P) - b.score(P))
    count = int(np.sum(np.abs(d) - np.abs(d).mean() > observed))
    return (count + 1) / (resamples + 1)
