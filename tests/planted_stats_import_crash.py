"""A module that kills its own process while being imported (for tests/test_stats_isolation.py)."""

import os

os.kill(os.getpid(), 9)


def paired(hyps_a, hyps_b, references, resamples=1000, seed=0):  # pragma: no cover
    return 0.5
