"""The small statistical tests the checks use (pure, numpy only, no scipy).

Each returns the decision ingredients, not just a bool, so reports can quote the numbers.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

#: |z| above this is a finding (two-sided normal tail 2e-9, t(29) tail 1.6e-6).
Z = 6.0
#: Level of the calibration tests (KS, binomial): each false alarm <= 1e-3.
LEVEL = 1e-3


def binom_cdf(k: int, n: int, p: float) -> float:
    """P(X <= k) for X ~ Binomial(n, p), exact (n is small: a few hundred)."""
    if k < 0:
        return 0.0
    if k >= n:
        return 1.0
    return float(sum(math.comb(n, i) * p ** i * (1 - p) ** (n - i) for i in range(k + 1)))


def binom_interval(n: int, p: float, level: float = LEVEL) -> tuple[int, int]:
    """The acceptance region [lo, hi] of counts: each tail outside has mass <= level / 2."""
    lo = 0
    while binom_cdf(lo, n, p) <= level / 2:
        lo += 1
    hi = n
    while 1.0 - binom_cdf(hi - 1, n, p) <= level / 2:
        hi -= 1
    return lo, hi


def ks_uniform(ps: Sequence[float]) -> float:
    """Kolmogorov-Smirnov distance of a sample from Uniform(0, 1)."""
    x = np.sort(np.asarray(ps, dtype=np.float64))
    n = len(x)
    i = np.arange(1, n + 1)
    return float(max(np.max(i / n - x), np.max(x - (i - 1) / n)))


def ks_critical(n: int, level: float = LEVEL) -> float:
    """Asymptotic KS critical value sqrt(-ln(level / 2) / 2) / sqrt(n)."""
    return math.sqrt(-math.log(level / 2) / 2) / math.sqrt(n)


def z_score(value: float, mean: float, sd: float, floor: float = 1e-12) -> float:
    return abs(value - mean) / max(sd, floor)


def proportion_sd(p: float, n: int) -> float:
    """Binomial standard deviation of an estimated proportion; floored at one count."""
    q = min(max(p, 1.0 / n), 1 - 1.0 / n)
    return math.sqrt(q * (1 - q) / n)


def is_float32(v: float) -> bool:
    return float(np.float32(v)) == float(v)


#: A difference from the float64 replay of the procedure's own draw is rounding (and earns
#: ``low-precision``) when it is at most this many float32 ulps of the value: float32
#: arithmetic over summed counts errs by a few ulps; a different construction (another
#: quantile, standard error, statistic) moves a bound or p-value by Monte Carlo-sized amounts
#: (>= 1e-3 on the inputs the audit uses).
ROUNDING_ULPS = 64


def ulp32(v: float) -> float:
    """The spacing of float32 numbers at ``v`` (at least that at 1: values near 0 carry the
    rounding of the 0..100 scale's arithmetic)."""
    return float(np.spacing(np.float32(max(abs(v), 1.0))))


def rounding(diff: float, value: float) -> bool:
    """Is ``diff`` (> 0) of the size float32 rounding makes at ``value``?"""
    return diff <= ROUNDING_ULPS * ulp32(value)
