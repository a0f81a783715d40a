"""Hostile statistical procedures for tests/test_stats_isolation.py: each misbehaves the way
code under audit can (a crash, a hang, a fork, garbage), on purpose.  chrf-audit must turn
each into a finding, keep running, and leave no process behind.

Most misbehave only on some inputs (a paired call on identical systems, say), so the audit
sees both the failure and the recovery (a fresh worker) in one run.
"""

from __future__ import annotations

import os
import sys
import time

from tests.planted_stats import ci_correct, paired_correct


def _identical(hyps_a, hyps_b) -> bool:
    return list(hyps_a) == list(hyps_b)


def paired_sigkill(hyps_a, hyps_b, references, resamples=1000, seed=0):
    """Dies by SIGKILL (as a segfault in an extension would) on identical systems."""
    if _identical(hyps_a, hyps_b):
        os.kill(os.getpid(), 9)
    return paired_correct(hyps_a, hyps_b, references, resamples, seed)


def paired_hang(hyps_a, hyps_b, references, resamples=1000, seed=0):
    """Never returns on identical systems."""
    if _identical(hyps_a, hyps_b):
        while True:
            time.sleep(60)
    return paired_correct(hyps_a, hyps_b, references, resamples, seed)


def paired_raises(hyps_a, hyps_b, references, resamples=1000, seed=0):
    if _identical(hyps_a, hyps_b):
        raise RuntimeError("planted: identical systems")
    return paired_correct(hyps_a, hyps_b, references, resamples, seed)


def paired_exits(hyps_a, hyps_b, references, resamples=1000, seed=0):
    """sys.exit() inside the callable: SystemExit is not an Exception."""
    if _identical(hyps_a, hyps_b):
        sys.exit(0)
    return paired_correct(hyps_a, hyps_b, references, resamples, seed)


class _Weird:
    def __float__(self):
        raise RuntimeError("no float here")

    def __repr__(self):
        return "<weird>"


def paired_garbage(hyps_a, hyps_b, references, resamples=1000, seed=0):
    """Returns a string on identical systems, an object whose __float__ raises otherwise
    on one-segment inputs."""
    if _identical(hyps_a, hyps_b):
        return "p < 0.05"
    if len(hyps_a) == 1:
        return _Weird()
    return paired_correct(hyps_a, hyps_b, references, resamples, seed)


def ci_nan(hypotheses, references, resamples=1000, alpha=0.05, seed=0):
    """NaN bounds on a one-segment corpus."""
    if len(hypotheses) == 1:
        return float("nan"), float("nan"), float("nan")
    return ci_correct(hypotheses, references, resamples, alpha, seed)


def paired_scribbles(hyps_a, hyps_b, references, resamples=1000, seed=0):
    """Prints to stdout (harmless: redirected) and, on identical systems, writes a fake
    answer to every descriptor it can find (the protocol pipe among them)."""
    print("debug output " * 1000)
    if _identical(hyps_a, hyps_b):
        for fd in range(3, 64):
            try:
                os.write(fd, b'{"id": -1, "p_value": 0.01}\ngarbage\n')
            except OSError:
                pass
        return 1.0
    return paired_correct(hyps_a, hyps_b, references, resamples, seed)


def paired_forks(hyps_a, hyps_b, references, resamples=1000, seed=0):
    """Leaves a sleeping child behind on every call; writes its pid where the test asks."""
    pid = os.fork()
    if pid == 0:
        try:
            time.sleep(3600)
        finally:
            os._exit(0)
    with open(os.environ["PLANTED_PID_FILE"], "a") as f:
        f.write(f"{pid}\n")
    with open("relative-write.txt", "w") as f:   # lands in the worker's temporary directory
        f.write("x")
    return paired_correct(hyps_a, hyps_b, references, resamples, seed)




def paired_floods(hyps_a, hyps_b, references, resamples=1000, seed=0):
    """On identical systems, 3 MiB without a newline on every descriptor it can find."""
    if _identical(hyps_a, hyps_b):
        blob = b"x" * (3 << 20)
        for fd in range(3, 64):
            try:
                os.write(fd, blob)
            except OSError:
                pass
        return 1.0
    return paired_correct(hyps_a, hyps_b, references, resamples, seed)
