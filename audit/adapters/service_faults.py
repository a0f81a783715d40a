"""The fault budget of a service (``--http``, ``--mcp``): its requests meet the budget a
callable's calls meet (``faults.py``), one line per service.

* A service that times out, drips or fails (a 5xx or a dropped connection, after its retries)
  ``IN_A_ROW`` requests in a row *trips* the line: the requests after them are not sent, but
  for probes after 4, 16 and 64 of them, and each gets the reply of the fault that tripped the
  line, marked ``SKIPPED`` (``Reply.presumed``): never evidence.  An answer -- a score, a
  refusal, even garbage: it came, at once -- closes the line.
* After its first hang a request waits a limit derived from the service's own answers (10
  times its slowest, at least 0.5 s, at most ``--timeout``); one that outlives it is
  ``UNCONFIRMED``, never evidence by itself (the search confirms a repro with the full
  timeout, ``faults.reported``; the contract checks' ``confirmed`` while the line is not tripped).
* A fault observed is remembered for its request body (the same request is not sent again).

So a service that answers the request before the audit and then drips costs one full
``--timeout``, a few derived limits and the confirmation of one repro, not ``--timeout`` per
request.  Every decision is made in the calling thread, in request order, from the replies;
requests sent together (``map``, up to ``--http-concurrency``) are recorded in their order once
all are back, the faults after the one that tripped the line counting as faults, not probes.
``BudgetedClient`` wraps an ``HttpClient`` or ``McpClient``: the request before the audit, the
search (``HttpAdapter._score``) and the contract checks all go through it.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import threading
import time
from typing import Any, Callable, Optional

from . import faults

#: what a service's reply is for the line: untrusted kinds and the result kind they stand for
_FAULTS = {"timeout": "timeout", "dropped": "crash", "server-error": "crash"}
NOTE = (f" (after {faults.IN_A_ROW} such faults in a row chrf-audit stopped sending it every request: the "
        "requests after them were not sent, but for a few probes)")


def _key(body: Any) -> str:
    data = body if isinstance(body, bytes) else json.dumps(body, sort_keys=True, ensure_ascii=True).encode("ascii")
    return hashlib.sha256(data).hexdigest()


def _result(reply) -> tuple[tuple, bool]:
    """(the line's result tuple for ``reply``, whether it is an answer)."""
    kind = _FAULTS.get(reply.kind)
    if kind is None:
        return ("value", reply), True
    return (kind, reply.detail, reply), False


def _reply(result: tuple):
    """The reply a caller gets for the line's ``result`` (presumed, with its note, or as it came)."""
    if result[0] == "value":
        return result[1]
    reply = result[2]
    detail = result[1].replace(faults.NOTE, NOTE)
    why = faults.presumed(result)
    if detail == reply.detail and not why:
        return reply
    return dataclasses.replace(reply, detail=detail, presumed=why)


class BudgetedClient:
    """A service's client whose requests meet the fault budget; otherwise the client itself
    (its counters, its ``close``)."""

    def __init__(self, client, timeout: float):
        self.client = client
        self.line = faults.FaultBudget(timeout).line("requests")
        self._lock = threading.RLock()  # the line's decisions, one caller at a time

    def __getattr__(self, name: str):
        return getattr(self.client, name)

    @property
    def tripped(self) -> bool:
        return self.line.tripped is not None

    def send(self, body: Any, headers: Optional[dict] = None, on_written: Optional[Callable[[], Any]] = None):
        """One request, unless the budget answers it (``on_written`` then never runs)."""
        return self.map([body], headers, on_written)[0]

    def confirmed(self, body: Any, on_written: Optional[Callable[[], Any]] = None):
        """The reply to ``body`` that may be judged (the contract checks'): a hang of a limit
        derived from the service's answers is sent again with the full timeout
        (``faults.confirm``) unless the line is tripped (then the reply stays presumed)."""
        reply = self.send(body, on_written=on_written)
        if reply.presumed == faults.UNCONFIRMED and not self.tripped:
            reply = faults.confirm(lambda: self.send(body, on_written=on_written))
        return reply

    def map(self, bodies: list, headers: Optional[dict] = None, on_written: Optional[Callable[[], Any]] = None):
        """Replies to ``bodies``, in order: those the budget settles are not sent, the others go
        in runs of up to the client's concurrency (``on_written``: with one body only)."""
        keys = [_key(b) for b in bodies]
        out: list = [None] * len(bodies)
        line = self.line
        with self._lock:
            i = 0
            while i < len(bodies):
                settled = line.settled(keys[i])
                if settled is not None:
                    out[i], i = _reply(settled), i + 1
                    continue
                j = i + 1
                if line.batchable():
                    while j < len(bodies) and j - i < self.client.concurrency and keys[j] not in line.memo:
                        j += 1
                limit, probing, started = line.limit(), self.tripped, time.monotonic()
                if j - i == 1:
                    replies = [self.client.send(bodies[i], headers, on_written=on_written, timeout=limit)]
                else:
                    replies = self.client.map(bodies[i:j], headers, timeout=limit)
                seconds = time.monotonic() - started  # the derived limit's measure (hang detection only)
                for k, reply in enumerate(replies):
                    result, trusted = _result(reply)
                    out[i + k] = _reply(line.record(keys[i + k], result, trusted, seconds, limit,
                                                    probe=probing and k == 0))
                i = j
        return out
