"""A planted interval procedure for the hypothesis-n-grams convention (reference_impl.conventions):
its point estimate and bounds count the hypothesis n-grams of a segment whose reference has
none of that order (the literal reading of "sums per-order counts"), where the claimed
definition, sacreBLEU 2.x's, does not (tests/test_contract_readings.py)."""

from __future__ import annotations

import numpy as np

from audit.impact import significance as sig
from reference_impl import TextProfile
from tests.planted_stats import P, _stats


def ci_counts_hypothesis_ngrams(hypotheses, references, resamples=1000, alpha=0.05, seed=0):
    """Bug (a reading): hypothesis n-grams of orders the reference lacks are counted."""
    c = _stats(hypotheses, references)
    st = c.stats.copy()
    for i, h in enumerate(hypotheses):
        for o, total in enumerate(TextProfile(h, P).totals):
            if st[i, o, 1] == 0:
                st[i, o, 0] = total
    scores = sig.bootstrap_scores(st, P, resamples=resamples, seed=seed)
    lo, hi = np.quantile(scores, [alpha / 2, 1 - alpha / 2])
    return float(sig.corpus_score(st, P)), float(lo), float(hi)
