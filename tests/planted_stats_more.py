"""More planted statistical procedures for tests/test_stats_families.py: each has one known
bug, written the way such bugs are written in real code.  Grouped by what they exercise:
exact containment and honest labels (a construction error is not "low-precision"), every
family reported after an invalid answer, side effects on the caller, corpus sizes (methods
that switch above a size), and statistical bugs the first catalogue (planted_stats.py) did
not describe.  All follow the ``chrf-audit stats --ci/--paired`` callable conventions.
"""

from __future__ import annotations

import random

import numpy as np

from audit.impact import significance as sig
from tests.planted_stats import P, _stats, ci_correct, paired_correct

Z975 = 1.959963984540054


# --------------------------------------------------------------------------- honest labels


def ci_wrong_standard_error(hypotheses, references, resamples=1000, alpha=0.05, seed=0):
    """Bug: a normal interval whose standard error is divided by sqrt(n) twice (the
    bootstrap SD already is the SE of the corpus score): far too narrow.  A construction
    error, not a precision problem."""
    c = _stats(hypotheses, references)
    scores = sig.bootstrap_scores(c.stats, P, resamples=resamples, seed=seed)
    se = float(scores.std()) / np.sqrt(c.n)
    s = c.score(P)
    return s, s - Z975 * se, s + Z975 * se


def paired_whole_system_swap(hyps_a, hyps_b, references, resamples=1000, seed=0):
    """Bug: each permutation trial swaps the *whole* systems (all segments or none) instead
    of each segment independently: every trial ties the observed difference, p = 1."""
    a, b = _stats(hyps_a, references), _stats(hyps_b, references)
    observed = abs(a.score(P) - b.score(P))
    swap = np.random.default_rng(seed).integers(2, size=resamples).astype(bool)
    diffs = np.where(swap, observed, observed)      # A - B or B - A: the same |difference|
    return (int(np.sum(diffs >= observed - 1e-9)) + 1) / (resamples + 1)


# --------------------------------------------------------------------------- every family reported


def paired_p_count_over_n(hyps_a, hyps_b, references, resamples=1000, seed=0):
    """Bug: p = count / N (no +1 on either side): a test with no resample as extreme as the
    observed difference answers p = 0, an invalid p-value."""
    a, b = _stats(hyps_a, references), _stats(hyps_b, references)
    r = sig.paired_permutation(a.stats, b.stats, P, trials=resamples, seed=seed)
    count = round(r.p_value * (resamples + 1)) - 1
    return count / resamples


def ci_bounds_reversed(hypotheses, references, resamples=1000, alpha=0.05, seed=0):
    """Bug: returns (score, high, low): every interval is 'unordered'."""
    s, lo, hi = ci_correct(hypotheses, references, resamples, alpha, seed)
    return s, hi, lo


# --------------------------------------------------------------------------- side effects


def ci_sorts_inputs(hypotheses, references, resamples=1000, alpha=0.05, seed=0):
    """Bug: sorts the caller's hypotheses (and references with them) in place, "to share a
    cache between calls".  The interval itself is right."""
    order = sorted(range(len(hypotheses)), key=lambda i: str(hypotheses[i]))
    hyps = [hypotheses[i] for i in order]
    refs = [list(references[i]) for i in order]
    hypotheses[:] = hyps
    for i, r in enumerate(refs):
        references[i][:] = r
    return ci_correct(hyps, refs, resamples, alpha, seed)


def ci_reseeds_numpy(hypotheses, references, resamples=1000, alpha=0.05, seed=0):
    """Bug: seeds numpy's *global* generator (np.random.seed) and draws from it: the
    caller's later np.random draws depend on this call."""
    c = _stats(hypotheses, references)
    np.random.seed(seed)
    idx = np.random.randint(0, c.n, size=(resamples, c.n))
    scores = sig.bootstrap_scores(c.stats, P, indices=idx)
    lo, hi = np.quantile(scores, [alpha / 2, 1 - alpha / 2])
    return c.score(P), float(lo), float(hi)


def paired_python_random(hyps_a, hyps_b, references, resamples=1000, seed=0):
    """Bug: approximate randomization drawn from Python's global ``random`` (random.seed)."""
    a, b = _stats(hyps_a, references), _stats(hyps_b, references)
    random.seed(seed)
    swap = np.array([[random.random() < 0.5 for _ in range(a.n)] for _ in range(resamples)])
    fa, fb = a.stats.reshape(a.n, -1).astype(float), b.stats.reshape(b.n, -1).astype(float)
    moved = swap.astype(float) @ (fb - fa)
    k = a.stats.shape[1]
    pa = sig.corpus_scores((fa.sum(0) + moved).reshape(-1, k, 3), P)
    pb = sig.corpus_scores((fb.sum(0) - moved).reshape(-1, k, 3), P)
    observed = abs(a.score(P) - b.score(P))
    return (int(np.sum(np.abs(pa - pb) >= observed - 1e-9)) + 1) / (resamples + 1)


def paired_sorts_arrays(hyps_a, hyps_b, references, resamples=1000, seed=0):
    """Bug: after the test, "sorts the systems for the report" through np.asarray(...).sort():
    a copy for lists, but the caller's own array when it passed numpy arrays."""
    p = paired_correct(list(hyps_a), list(hyps_b), [list(r) for r in references], resamples, seed)
    for x in (hyps_a, hyps_b):
        np.asarray(x).sort()
    return p


# --------------------------------------------------------------------------- sizes


def ci_normal_above_100(hypotheses, references, resamples=1000, alpha=0.05, seed=0):
    """Bug: above 100 segments "the normal approximation is good enough" -- with the SE of
    the mean sentence score divided by n instead of sqrt(n).  Correct (the percentile
    bootstrap) up to 100 segments."""
    if len(hypotheses) <= 100:
        return ci_correct(hypotheses, references, resamples, alpha, seed)
    c = _stats(hypotheses, references)
    se = float(c.sentence.std()) / c.n
    s = c.score(P)
    return s, s - Z975 * se, s + Z975 * se


def ci_resample_cap(hypotheses, references, resamples=1000, alpha=0.05, seed=0):
    """Bug: each resample draws at most 100 segments "for speed" (an m-out-of-n bootstrap
    without rescaling): intervals too wide by sqrt(n / 100) above 100 segments."""
    c = _stats(hypotheses, references)
    idx = np.random.default_rng(seed).choice(c.n, size=(resamples, min(c.n, 100)), replace=True)
    scores = sig.bootstrap_scores(c.stats, P, indices=idx)
    lo, hi = np.quantile(scores, [alpha / 2, 1 - alpha / 2])
    return c.score(P), float(lo), float(hi)


def paired_normal_above_100(hyps_a, hyps_b, references, resamples=1000, seed=0):
    """Bug: above 100 segments a z-test on the sentence-score differences, with the SD of a
    difference where the SE of their mean belongs (sqrt(n) forgotten): p ~ 1."""
    if len(hyps_a) <= 100:
        return paired_correct(hyps_a, hyps_b, references, resamples, seed)
    a, b = _stats(hyps_a, references), _stats(hyps_b, references)
    d = a.sentence - b.sentence
    sd = float(d.std())
    if sd == 0:
        return 1.0
    z = abs(float(d.mean())) / sd
    from math import erfc, sqrt
    return max(erfc(z / sqrt(2)), 1e-300)


def ci_subsample_above_1000(hypotheses, references, resamples=1000, alpha=0.05, seed=0):
    """Bug: above 1000 segments the estimate and the interval are computed on a random
    subset of 1000 segments "for speed"."""
    c = _stats(hypotheses, references)
    if c.n > 1000:
        keep = np.random.default_rng(seed).choice(c.n, size=1000, replace=False)
        c = c.take(keep)
    r = sig.bootstrap_ci(c.stats, P, resamples=resamples, alpha=alpha, seed=seed)
    return r.score, r.low, r.high


# --------------------------------------------------------------------------- more statistical bugs


def ci_one_sided_quantiles(hypotheses, references, resamples=1000, alpha=0.05, seed=0):
    """Bug: the percentile interval at [alpha, 1 - alpha] (alpha not halved): a 90%
    interval reported as 95%, a 40% one as 70%."""
    c = _stats(hypotheses, references)
    scores = sig.bootstrap_scores(c.stats, P, resamples=resamples, seed=seed)
    lo, hi = np.quantile(scores, [alpha, 1 - alpha])
    return c.score(P), float(lo), float(hi)


def ci_bootstrap_mean_estimate(hypotheses, references, resamples=1000, alpha=0.05, seed=0):
    """Bug: the point estimate reported is the mean of the bootstrap scores, not the corpus
    score (biased: chrF is a ratio of sums)."""
    c = _stats(hypotheses, references)
    scores = sig.bootstrap_scores(c.stats, P, resamples=resamples, seed=seed)
    lo, hi = np.quantile(scores, [alpha / 2, 1 - alpha / 2])
    return float(scores.mean()), float(lo), float(hi)


def paired_independent_resamples(hyps_a, hyps_b, references, resamples=1000, seed=0):
    """Bug: a "paired" bootstrap that resamples the two systems with independent indices
    (an unpaired test): the segment-level pairing, and with it most of the power, is lost.
    p = two-sided share of resampled differences on the other side of 0."""
    a, b = _stats(hyps_a, references), _stats(hyps_b, references)
    rng = np.random.default_rng(seed)
    da = sig.bootstrap_scores(a.stats, P, indices=rng.choice(a.n, size=(resamples, a.n)))
    db = sig.bootstrap_scores(b.stats, P, indices=rng.choice(b.n, size=(resamples, b.n)))
    d = da - db
    tail = min(int(np.sum(d <= 0)), int(np.sum(d >= 0)))
    return min(1.0, 2 * (tail + 1) / (resamples + 1))
