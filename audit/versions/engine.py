"""Running the units (one release each) on Dask distributed.

By default on an embedded ``LocalCluster`` of ``--jobs`` worker processes, one thread each, whose
processes are chrf-audit's own children (``audit.processes.cluster``); with ``--scheduler
tcp://HOST:PORT`` on an existing cluster, whose workers need chrf-audit installed and the
package index reachable.  A unit's result is plain data computed from the unit alone
(``unit.run_unit``), so it is the same whichever worker runs it.

Failures: a worker lost mid-unit (killed, its machine gone) is Dask's to handle: the scheduler
runs the unit again on another worker, up to ``distributed.scheduler.allowed-failures`` times (3
by default), after which the unit is reported as skipped (its worker kept dying) instead of
tried forever.  A unit that fails for a reason of its own (an exception in chrf-audit) is
reported as skipped with that reason; it is not retried (``retries=0``).

Nobody to wait for: while nothing finishes, the scheduler is asked (within the connect timeout)
how many workers it has, every ``POLL`` seconds.  With none (an external scheduler none joined,
or whose last worker died) the progress says the run waits for one; after ``--worker-wait``
seconds without one the run stops with an error, at once when every process of the embedded
cluster has ended (nothing restarts them).  A scheduler that stops answering is an error too.
The address of ``--scheduler`` is checked before the client connects (``scheduler.py``).

Progress: one bar over the units (rich, on stderr, not with ``--quiet`` or when stderr is not
a terminal), naming the unit in hand: the workers log what they do to a Dask event topic.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import threading
import time
from concurrent.futures import CancelledError
from typing import Optional

from ..errors import UsageError
from ..processes.stderr_lines import one_line
from ..settings import options
from . import scheduler

TOPIC = "chrf-audit-versions"
POLL = 2.0  # seconds between looks at the cluster while waiting (not a timeout)


def task(unit: dict) -> dict:
    """What a Dask worker runs: one unit; its own failure is a skipped release, not an error."""
    from .unit import run_unit

    try:
        from distributed import get_worker

        worker = get_worker()
    except (ImportError, ValueError):  # pragma: no cover - called outside a worker
        worker = None

    def say(text: str) -> None:
        if worker is not None:
            worker.log_event(TOPIC, {"version": unit["version"], "text": text})

    try:
        return run_unit(unit, say)
    except Exception as exc:  # noqa: BLE001 - reported as the release's reason, never retried
        detail = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        return {"version": unit["version"], "status": "skipped", "reason": one_line(f"the audit failed: {detail}", 400),
                "families": [], "findings": [], "python": None, "sources": {}}


class Progress:
    """One bar over the units, with the unit in hand (what a worker said last)."""

    def __init__(self, enabled: bool, package: str, what: str = "releases"):
        self.bar = None
        self.enabled = enabled
        self.lock = threading.Lock()
        if not (enabled and sys.stderr.isatty()):
            return
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress as Bar, TextColumn, TimeElapsedColumn

        self.bar = Bar(TextColumn(f"{package} {what}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                       TextColumn("{task.description}"), console=Console(stderr=True), transient=True)
        self.task = self.bar.add_task("", total=0)

    def __enter__(self):
        if self.bar is not None:
            self.bar.__enter__()
        return self

    def __exit__(self, *exc):
        if self.bar is not None:
            self.bar.__exit__(*exc)
        return False

    def planned(self, n: int) -> None:
        if self.bar is not None:
            self.bar.update(self.task, total=(self.bar.tasks[0].total or 0) + n)

    def done(self) -> None:
        if self.bar is not None:
            self.bar.advance(self.task)

    def say(self, text: str) -> None:
        if self.bar is not None:
            self.bar.update(self.task, description=text)

    def notice(self, text: str) -> None:
        """What the run waits for: on the bar, or (stderr not a terminal) one line, never with
        ``--quiet``."""
        if self.bar is not None:
            self.say(text)
        elif self.enabled:
            print(f"chrf-audit: {text}", file=sys.stderr, flush=True)


def _silence_dask() -> None:
    """Dask's log lines are not chrf-audit's output (its shutdown chatter, the client's
    tracebacks of a lost scheduler): its loggers with a level of their own
    (``distributed.client``) are silenced too, not only their parent."""
    loggers = [name for name in list(logging.root.manager.loggerDict) if name.startswith("distributed.")]
    for name in ["distributed", *loggers]:
        logging.getLogger(name).setLevel(logging.CRITICAL)


class Engine:
    """A Dask client for the run: ``with Engine(scheduler, jobs, progress) as e: e.run(units)``.

    ``worker_wait``: how long (seconds) the run waits while the cluster has no worker (none
    joined yet, or the last one died) before it stops with an error (``--worker-wait``)."""

    def __init__(self, scheduler: Optional[str], jobs: int, progress: Progress,
                 worker_wait: float = options.default("worker_wait")):
        self.scheduler, self.jobs, self.progress, self.worker_wait = scheduler, jobs, progress, worker_wait
        self.cluster = self.client = None
        self.idle_since: Optional[float] = None  # since when no worker is there (monotonic)

    def __enter__(self):
        from distributed import Client

        _silence_dask()
        if self.scheduler:
            self.client = scheduler.client(self.scheduler)
        else:
            from ..processes.cluster import local_cluster

            try:
                self.cluster = local_cluster(self.jobs)
            except RuntimeError as exc:
                raise UsageError(str(exc)) from None
            self.client = Client(self.cluster, set_as_default=False)
        self.client.subscribe_topic(TOPIC, self._event)
        return self

    def __exit__(self, *exc):
        for closing in (self.client, self.cluster):
            if closing is not None:
                try:
                    closing.close(timeout=scheduler.connect_timeout())
                except Exception:  # noqa: BLE001 - a cluster already gone closes with complaints
                    pass
        return False

    def _event(self, event) -> None:
        msg = event[1] if isinstance(event, tuple) else event
        if isinstance(msg, dict) and msg.get("text"):
            self.progress.say(str(msg["text"]))

    @property
    def where(self) -> str:
        return f"the Dask scheduler at {self.scheduler}" if self.scheduler else "the embedded Dask cluster"

    def _workers(self) -> int:
        """How many workers the scheduler knows, asked within the connect timeout."""
        timeout = scheduler.connect_timeout()
        try:
            return len(self.client.nthreads(callback_timeout=timeout))
        except Exception as exc:  # noqa: BLE001 - a scheduler gone or stopped: said on one line
            why = f"no answer within {timeout:g} s" if isinstance(exc, TimeoutError) else (
                f"{type(exc).__name__}: {one_line(str(exc), 200)}" if str(exc) else type(exc).__name__)
            raise UsageError(f"{self.where} stopped answering ({why}); nothing can run the remaining releases") \
                from None

    def _watch_workers(self) -> None:
        """Nothing finished for a while: is any worker there?  None for ``worker_wait`` seconds
        (at once when every process of the embedded cluster has ended) is an error; the wait
        is said on the progress line."""
        if self._workers():
            if self.idle_since is not None:
                self.progress.say("a Dask worker joined")
            self.idle_since = None
            return
        if self.cluster is not None and not any(w.alive() for w in list(self.cluster.workers.values())):
            raise UsageError("every worker of the embedded Dask cluster is gone; nothing can run the remaining "
                             "releases")
        now = time.monotonic()  # a hang's timeout: no result depends on it
        if self.idle_since is None:
            self.idle_since = now
            self.progress.notice(f"waiting for a Dask worker: {self.where} has none (giving up after "
                                 f"{self.worker_wait:g} s, --worker-wait)")
        elif now - self.idle_since >= self.worker_wait:
            raise UsageError(f"{self.where} had no worker for {self.worker_wait:g} s (--worker-wait); nothing ran "
                             "the remaining releases")

    def run(self, units: list[dict], work=None, failed=None, on_result=None,
            into: Optional[dict] = None) -> dict[str, dict]:
        """version -> result of each unit (also put into ``into`` as each ends: a run stopped
        half-way keeps those).  ``work``: the function a worker runs on a unit (default
        ``task``: a release; ``chrf-audit survey`` gives its own), ``failed(unit, why)`` its
        result when the engine could not run it, keyed by ``unit["name"]`` when it has one;
        ``on_result(unit, result)`` is told of each result as it arrives."""
        from distributed import wait
        from distributed.client import FIRST_COMPLETED

        self.progress.planned(len(units))
        pending = {self.client.submit(work or task, u, key=f"{TOPIC}-{u['distribution']}-{u['version']}-{u['token']}",
                                      pure=False, retries=0): u for u in units}
        out: dict[str, dict] = {} if into is None else into
        try:
            while pending:
                try:
                    with self.client.as_current():  # not the process's default client
                        done, _ = wait(list(pending), timeout=POLL, return_when=FIRST_COMPLETED)
                    for fut in done:
                        unit = pending.pop(fut)
                        out[unit.get("name", unit["version"])] = result = self._result(fut, unit, failed)
                        if on_result is not None:
                            on_result(unit, result)
                        self.progress.done()
                except TimeoutError:  # nothing finished yet: a look at the workers
                    done = set()
                except (CancelledError, asyncio.CancelledError) as exc:  # the client cancelled them
                    raise UsageError(self._cancelled(exc)) from None
                if not done:
                    self._watch_workers()
        except BaseException:
            for fut in pending:
                fut.cancel()
            raise
        return out

    def _cancelled(self, exc: BaseException) -> str:
        """Why the client cancelled the units (the connection to the scheduler lost, ...)."""
        reasons = sorted({str(g.reason) for g in getattr(exc, "error_groups", ())}) or [
            str(getattr(exc, "reason", None) or "cancelled")]
        what = ("the connection to it was lost" if reasons == ["scheduler-connection-lost"]
                else f"it cancelled the releases ({one_line(', '.join(reasons), 200)})")
        return f"{self.where}: {what}; nothing can run the remaining releases"

    @staticmethod
    def _result(fut, unit: dict, failed=None) -> dict:
        try:
            return fut.result()
        except Exception as exc:  # noqa: BLE001 - KilledWorker, a worker without chrf-audit, ...
            name = type(exc).__name__
            why = ("the Dask workers running it died repeatedly (distributed.scheduler.allowed-failures)"
                   if name == "KilledWorker" else f"{name}: {exc}")
            if failed is not None:
                return failed(unit, one_line(f"the audit failed: {why}", 400))
            return {"version": unit["version"], "status": "skipped", "reason": one_line(f"the audit failed: {why}", 400),
                    "families": [], "findings": [], "python": None, "sources": {}}
