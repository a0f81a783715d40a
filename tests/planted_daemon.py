"""Implementations that daemonize on every call (fork, setsid, fork again: the double fork),
so the daemon leaves the worker's process group and session (issue 19, item 10).

Each daemon appends its pid to $CHRF_DAEMON_PIDS, then sleeps (``sentence``, ``paired``) or
exits at once (``brief``: its zombie is the worker's to reap).  The scores are the correct
reference's, so the audit itself finds nothing.
"""

import os
import time


def daemonize(seconds: float) -> None:
    """The double fork; returns once the daemon's pid is on file (the middle process waits for
    the daemon's word), so a test never races a daemon that has not written yet."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.setsid()
            if os.fork() == 0:
                with open(os.environ["CHRF_DAEMON_PIDS"], "a") as fh:
                    fh.write(f"{os.getpid()}\n")
                os.write(w, b"x")
                time.sleep(seconds)
            else:
                os.read(r, 1)
        finally:
            os._exit(0)
    os.close(w)
    os.waitpid(pid, 0)
    os.close(r)


def _score(hypothesis, references):
    from reference_impl import sentence_score

    return float(sentence_score(hypothesis, list(references)).score)


def sentence(hypothesis, references):
    daemonize(300)
    return _score(hypothesis, references)


def brief(hypothesis, references):
    daemonize(0)
    return _score(hypothesis, references)


def paired(hyps_a, hyps_b, references, resamples=1000, seed=0):
    """A --paired callable for chrf-audit stats that daemonizes on every call."""
    daemonize(300)
    return 0.5
