"""The planted bugs that are not a switch of ``base.Chrf``: hand-written faults around the
correct chrF (raise, die, hang, return a non-number, drift between calls, leave [0, 100]).

A ``Faulty`` wraps a ``Chrf``: ``before(hypotheses, references)`` runs first on the segments
of the call (a sentence call is one segment), and may raise, exit, hang or return a value
that replaces the score (``GO``: score normally); ``after(score)`` maps the score.  The rows
of ``catalogue.py`` name these objects; their triggers there are checked by
``tests/test_planted_catalogue.py`` (``crash`` and ``timeout`` with ``os._exit`` /
``time.sleep`` replaced, so the test process survives).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from typing import Callable

from .base import CHRF, Chrf

#: ``before`` returns this to let the call score normally.
GO = object()


def _go(hypotheses, references):
    return GO


def _same(score):
    return score


@dataclass(frozen=True)
class Faulty:
    impl: Chrf
    before: Callable = _go
    after: Callable = _same

    def sentence(self, hypothesis: str, references: list[str]):
        out = self.before([hypothesis], [list(references)])
        return self.after(self.impl.sentence(hypothesis, references)) if out is GO else out

    def corpus(self, hypotheses: list[str], references: list[list[str]]):
        out = self.before(list(hypotheses), [list(r) for r in references])
        return self.after(self.impl.corpus(hypotheses, references)) if out is GO else out


def _die(hypotheses, references):
    """The process dies (as a segfaulting native extension would) on an empty hypothesis or
    one containing "x"."""
    if any(not h or "x" in h for h in hypotheses):
        os._exit(1)
    return GO


def _reject(hypotheses, references):
    """A "validation" that rejects valid input: an empty hypothesis or a decimal digit."""
    for h in hypotheses:
        if not h or any(c.isdigit() for c in h):
            raise ValueError(f"unsupported hypothesis: {h!r}")
    return GO


def _hang(hypotheses, references):
    """Sleeps 600 s on an empty hypothesis: audit it only with a short per-call timeout."""
    if not all(hypotheses):
        time.sleep(600)
    return GO


def _invalid(hypotheses, references):
    """None on an empty hypothesis, NaN (0/0 in a "fast path") when it equals a reference."""
    if not all(hypotheses):
        return None
    if any(h in r for h, r in zip(hypotheses, references)):
        return float("nan")
    return GO


def _bump(score: float) -> float:
    """A perfect score comes out as 100.5 (an off-by-a-bit "bonus")."""
    return 100.5 if score >= 100.0 - 1e-9 else score


_calls = 0


def _jitter(score: float) -> float:
    """A per-process call counter leaks into the result: odd-numbered calls are off by 1e-3
    (upwards below 50, downwards from 50, so the score stays in [0, 100])."""
    global _calls
    _calls += 1
    if _calls % 2 == 0:
        return score
    return score + 1e-3 if score < 50 else score - 1e-3


CRASH = Faulty(CHRF, before=_die)
EXCEPTION = Faulty(CHRF, before=_reject)
TIMEOUT = Faulty(CHRF, before=_hang)
INVALID_OUTPUT = Faulty(CHRF, before=_invalid)
OUT_OF_RANGE = Faulty(CHRF, after=_bump)
NONDETERMINISM = Faulty(CHRF, after=_jitter)
