"""The fault budget of a supervised process: what the implementation's faults may cost.

A crash, a hang or a broken answer stream costs a restart of the worker (or program), and a
hang its timeout.  Before issue 29 every faulting call paid that in full, so an
implementation that crashed or hung on every call cost minutes (590 s at ``--timeout 1`` and
10 examples).  One ``FaultBudget`` per supervised process decides, per *line* -- one entry point:
(backend, level) of the worker, the level of an external program, so that a unit
(implementation x level) meets the same budget alone or beside others (``--jobs``) -- which
calls are made, with which timeout.  Its decisions count; they never read the clock (only
detecting the hang itself does, with the timeout the budget gives).

* **Faults in a row.**  ``IN_A_ROW`` faults (crashes, hangs, broken answers: of one kind or
  mixed, as an implementation killed for its memory may die or stall) with no answer between
  them *trip* the line: the calls after them are not made, and each gets the outcome of the
  fault that tripped it, marked ``SKIPPED`` (``Outcome.presumed``).  A presumed outcome
  is never evidence: no finding, repro or count is made of it (``audit.collect.search``).
  A *probe* is still made after 4, 16, 64 skipped calls (``PROBE_GAP``, ``MAX_PROBES`` per trip): an answer
  closes the line again, so a fault of some inputs does not silence the others.  A fault
  met while the line is tripped says so in its detail (the finding reports it).
* **Hangs.**  The first ``MAX_TIMEOUTS`` hangs of a line wait the full ``--timeout``; after
  them the line's calls wait a limit derived from its own answers (``DERIVED_FACTOR`` times
  the slowest answer it gave, at least ``DERIVED_FLOOR`` s, at most ``--timeout``).  A call
  that outlives it is a presumed hang, ``UNCONFIRMED``: never evidence by itself.
* **Memory.**  A fault really observed is remembered per input (the last ``MEMO`` inputs of a
  line): asking the same input again gives the same outcome without a call, so the repro a
  finding reports is one that was observed, and Hypothesis's replay of it agrees.
* **Shrinking** (``shrinking()``, entered by ``audit.collect.search.shrink``).  Inside a shrink
  run a tripped line is called again, and a line that hung waits the derived limit; an
  unconfirmed hang counts as the key failing (``counts``), so a hang shrinks in seconds.  At
  most ``SHRINK_FAULTS`` faulting calls are made per run; then every line that faulted
  skips.  The run's result, when it is an unconfirmed hang, is confirmed by one call with
  the full ``--timeout`` (``confirm``) before it may be reported.
"""

from __future__ import annotations

import contextlib
import contextvars
import json
from collections import OrderedDict
from typing import Callable, Optional

#: The faults (crashes, hangs, broken answers: what costs a restart) in a row that trip a line.
IN_A_ROW = 3
MAX_PROBES = 3
PROBE_GAP = 4
MAX_TIMEOUTS = 1
DERIVED_FACTOR = 10.0
DERIVED_FLOOR = 0.5
MEMO = 256
SHRINK_FAULTS = 16

#: ``Outcome.presumed``: the call was not made / it outlived a derived limit, not --timeout.
SKIPPED, UNCONFIRMED = "skipped", "unconfirmed"


class Presumed(tuple):
    """A result the budget gives without the implementation having given it (``why``)."""

    why: str

    def __new__(cls, result, why: str):
        self = super().__new__(cls, result)
        self.why = why
        return self


def presumed(result) -> str:
    """``SKIPPED``, ``UNCONFIRMED`` or "" (the implementation gave it) for a result tuple."""
    return getattr(result, "why", "")


def _detail(result, text: str) -> tuple:
    """``result`` (a crash or timeout tuple) with ``text`` as its detail, of the same type."""
    out = (result[0], text) + tuple(result[2:])
    return Presumed(out, result.why) if isinstance(result, Presumed) else out


class _Run:
    """One shrink run: its allowance of faulting calls and its unconfirmed hangs."""

    def __init__(self):
        self.faults_left = SHRINK_FAULTS
        self.tentative: dict = {}


_RUN: contextvars.ContextVar = contextvars.ContextVar("chrf_audit_shrink_run", default=None)
_CONFIRMING: contextvars.ContextVar = contextvars.ContextVar("chrf_audit_confirming", default=False)


@contextlib.contextmanager
def shrinking():
    """The calls inside are one shrink run (see the module docstring)."""
    token = _RUN.set(_Run())
    try:
        yield
    finally:
        _RUN.reset(token)


def confirm(recheck: Callable):
    """``recheck()`` with the full ``--timeout``, no memory and no skipping: the one call that
    turns an unconfirmed hang into an observed one (or shows that it answers)."""
    token = _CONFIRMING.set(True)
    try:
        return recheck()
    finally:
        _CONFIRMING.reset(token)


def reported(candidates: list, key, examine: Callable):
    """The first of ``candidates`` (observations of ``key``, best first) that the
    implementation really gave: an unconfirmed hang is asked again with the full timeout
    (``examine(observation)`` re-examines its input); None when none holds."""
    for cand in candidates:
        if observed(cand.outcome):
            return cand
        again = confirm(lambda: examine(cand))
        if again.key == key and observed(again.outcome):
            again.changes, again.replay_case = cand.changes, cand.replay_case
            return again
    return None


def observed(outcome) -> bool:
    """Whether the implementation really gave ``outcome`` (an ``Outcome``)."""
    return not getattr(outcome, "presumed", "")


def counts(outcome) -> bool:
    """Whether a shrink run may take ``outcome`` as the key failing again: observed, or an
    unconfirmed hang (confirmed before it is reported); a skipped call never."""
    return getattr(outcome, "presumed", "") != SKIPPED


def item_key(claims: dict, item) -> str:
    """What identifies one call: the claims and the input (lone surrogates escaped)."""
    return json.dumps([claims, item], sort_keys=True, ensure_ascii=True, default=str)


class Line:
    """The budget of one entry point of one process (see the module docstring)."""

    def __init__(self, budget: "FaultBudget"):
        self.budget = budget
        self.in_a_row = 0  # faults since the last answer
        self.tripped: Optional[tuple] = None  # the fault that tripped the line
        self.last_fault: Optional[tuple] = None
        self.skipped = 0  # calls skipped since the last probe
        self.gap = PROBE_GAP  # skipped calls before the next probe
        self.probes = 0
        self.timeouts = 0  # hangs that waited the full --timeout
        self.hung = False
        self.slowest = 0.0  # the slowest answer (seconds): the derived limit's measure
        self.memo: OrderedDict = OrderedDict()

    # -- decisions ------------------------------------------------------------------
    def limit(self) -> float:
        """How long the next call may take before it is a hang."""
        full = self.budget.timeout
        if not self.hung or _CONFIRMING.get() or (_RUN.get() is None and self.timeouts < MAX_TIMEOUTS):
            return full
        return min(full, max(DERIVED_FLOOR, DERIVED_FACTOR * self.slowest))

    def settled(self, key: str) -> Optional[tuple]:
        """The result of a call the budget answers itself, or None: make the call."""
        if _CONFIRMING.get():
            return None
        run = _RUN.get()
        if run is not None and (id(self), key) in run.tentative:
            return self._noted(run.tentative[(id(self), key)])
        if key in self.memo:
            return self._noted(self.memo[key])
        if run is not None:
            if run.faults_left <= 0 and self.last_fault is not None:
                return Presumed(self._noted(self.last_fault), SKIPPED)
            return None
        if self.tripped is None:
            return None
        if self.probes < MAX_PROBES and self.skipped >= self.gap:
            return None  # a probe
        self.skipped += 1
        return Presumed(self._noted(self.tripped), SKIPPED)

    def batchable(self) -> bool:
        """Whether several calls may be sent at once (not while probing a tripped line, nor
        inside a shrink run, where each fault is counted)."""
        return self.tripped is None and _RUN.get() is None

    def record(self, key: str, result: tuple, trusted: bool, seconds: float, limit: float,
               probe: Optional[bool] = None) -> tuple:
        """What a call gave (``trusted``: a real answer, ``seconds`` after the one before);
        returns the result as the caller gets it.  ``probe``: whether the call was made as a
        probe of a tripped line (default: whether the line is tripped; a service's requests
        sent together with the one that tripped it are not)."""
        if trusted:
            if result[0] in ("value", "exception"):
                self.slowest = max(self.slowest, seconds)
            self.in_a_row = 0
            self.tripped, self.skipped, self.gap, self.probes = None, 0, PROBE_GAP, 0
            return result
        kind = result[0]
        run = _RUN.get()
        if run is not None:
            run.faults_left -= 1
        if kind == "timeout" and limit < self.budget.timeout:
            self.hung = True
            result = Presumed(_detail(result, f"{result[1]} (a limit derived from its own answers; "
                                              f"not confirmed with the full {self.budget.timeout:g} s)"),
                              UNCONFIRMED)
            if run is not None:
                run.tentative[(id(self), key)] = result
        else:
            if kind == "timeout":
                self.timeouts += 1
                self.hung = True
            self.memo[key] = result
            while len(self.memo) > MEMO:
                self.memo.popitem(last=False)
        self.last_fault = tuple(result)
        self.in_a_row += 1
        if self.tripped is not None:
            # a probe that faulted again: the next one after PROBE_GAP times as many
            if run is None and (probe is None or probe):
                self.skipped, self.gap, self.probes = 0, self.gap * PROBE_GAP, self.probes + 1
        elif self.in_a_row >= IN_A_ROW:
            self.tripped = tuple(result)
        return self._noted(result)

    def _noted(self, result: tuple) -> tuple:
        """A crash or a hang met on a tripped line says so (the finding's detail)."""
        if self.tripped is None or result[0] not in ("crash", "timeout") or NOTE in result[1]:
            return result
        return _detail(result, f"{result[1]}{NOTE}")

    # -- the loop -----------------------------------------------------------------------
    def run(self, items: list, keys: list, attempt: Callable) -> list:
        """Results for ``items`` (whose ``keys`` are ``item_key``): the ones the budget settles
        are not sent; the others go in runs, ``attempt(sub_items, limit)`` answering a prefix
        of them as ``[(result, trusted, seconds)]`` that stops after the first untrusted one
        (that cost a restart)."""
        results: list = [None] * len(items)
        i = 0
        while i < len(items):
            settled = self.settled(keys[i])
            if settled is not None:
                results[i] = settled
                i += 1
                continue
            j = i + 1
            if self.batchable():
                while j < len(items) and keys[j] not in self.memo:
                    j += 1
            limit = self.limit()
            answered = attempt(items[i:j], limit) or [(("crash", "no answer"), False, 0.0)]
            for k, (result, trusted, seconds) in enumerate(answered):
                results[i + k] = self.record(keys[i + k], result, trusted, seconds, limit)
            i += len(answered)
        return results


NOTE = (f" (after {IN_A_ROW} such faults in a row chrf-audit stopped restarting it for every call: "
        "the calls after them were not made, but for a few probes)")


class FaultBudget:
    """The lines of one supervised process (``Supervisor.faults``).  ``timeout``: the full
    per-call timeout; setting another one (the impact study's) starts a fresh budget."""

    def __init__(self, timeout: float):
        self.timeout = float(timeout)
        self.lines: dict = {}

    def line(self, key) -> Line:
        if key not in self.lines:
            self.lines[key] = Line(self)
        return self.lines[key]
