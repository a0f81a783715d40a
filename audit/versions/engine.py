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
reported as skipped with that reason; it is not retried (``retries=0``).  When every worker of
the embedded cluster is gone, the run stops with an error instead of waiting for nobody.

Progress: one bar over the units (rich, on stderr, not with ``--quiet`` or when stderr is not
a terminal), naming the unit in hand: the workers log what they do to a Dask event topic.
"""

from __future__ import annotations

import logging
import sys
import threading
from typing import Optional

from ..errors import UsageError
from ..processes.stderr_lines import one_line

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


def _refused(address: str) -> Optional[str]:
    """Why a TCP scheduler address refuses a connection outright (nothing listens there, no
    such host), else None.  Dask's client retries such an address until its 30 s timeout;
    a mistyped ``--scheduler`` is a user's mistake, told at once.  An address that accepts
    the connection, or one of another transport, is left to the client."""
    import socket

    from distributed.comm import parse_address, parse_host_port

    try:
        scheme, loc = parse_address(address)
        if scheme != "tcp":
            return None
        host, port = parse_host_port(loc)
    except (ValueError, TypeError):
        return None  # the client says what is wrong with it
    try:
        with socket.create_connection((host, port), timeout=5):  # a hang's timeout: the one clock
            return None
    except ConnectionRefusedError:
        return f"nothing listens at {host}:{port} (connection refused)"
    except socket.gaierror as exc:
        return f"no such host {host!r} ({exc.strerror or exc})"
    except OSError:
        return None  # unreachable or slow: the client's own timeout decides


class Engine:
    """A Dask client for the run: ``with Engine(scheduler, jobs, progress) as e: e.run(units)``."""

    def __init__(self, scheduler: Optional[str], jobs: int, progress: Progress):
        self.scheduler, self.jobs, self.progress = scheduler, jobs, progress
        self.cluster = self.client = None

    def __enter__(self):
        from distributed import Client

        logging.getLogger("distributed").setLevel(logging.CRITICAL)  # its shutdown chatter is not ours
        if self.scheduler:
            refused = _refused(self.scheduler)
            if refused:
                raise UsageError(f"--scheduler {self.scheduler}: cannot reach the Dask scheduler: {refused}")
            try:
                self.client = Client(self.scheduler, timeout=30)
            except (OSError, TimeoutError, ValueError) as exc:
                raise UsageError(f"--scheduler {self.scheduler}: cannot reach the Dask scheduler: "
                                 f"{one_line(str(exc) or type(exc).__name__, 200)}") from None
        else:
            from ..processes.cluster import local_cluster

            try:
                self.cluster = local_cluster(self.jobs)
            except RuntimeError as exc:
                raise UsageError(str(exc)) from None
            self.client = Client(self.cluster)
        self.client.subscribe_topic(TOPIC, self._event)
        return self

    def __exit__(self, *exc):
        for closing in (self.client, self.cluster):
            if closing is not None:
                try:
                    closing.close()
                except Exception:  # noqa: BLE001 - a cluster already gone closes with complaints
                    pass
        return False

    def _event(self, event) -> None:
        msg = event[1] if isinstance(event, tuple) else event
        if isinstance(msg, dict) and msg.get("text"):
            self.progress.say(str(msg["text"]))

    def _workers_gone(self) -> bool:
        if self.cluster is None:
            return False
        return not any(w.alive() for w in list(self.cluster.workers.values()))

    def run(self, units: list[dict], work=None, failed=None, on_result=None) -> dict[str, dict]:
        """version -> result of each unit.  ``work``: the function a worker runs on a unit
        (default ``task``: a release; ``chrf-audit survey`` gives its own), ``failed(unit, why)``
        its result when the engine could not run it, keyed by ``unit["name"]`` when it has one;
        ``on_result(unit, result)`` is told of each result as it arrives."""
        from distributed import wait
        from distributed.client import FIRST_COMPLETED

        self.progress.planned(len(units))
        pending = {self.client.submit(work or task, u, key=f"{TOPIC}-{u['distribution']}-{u['version']}-{u['token']}",
                                      pure=False, retries=0): u for u in units}
        out: dict[str, dict] = {}
        try:
            while pending:
                try:
                    done, _ = wait(list(pending), timeout=POLL, return_when=FIRST_COMPLETED)
                except TimeoutError:  # nothing finished yet: a look at the workers
                    done = set()
                for fut in done:
                    unit = pending.pop(fut)
                    out[unit.get("name", unit["version"])] = result = self._result(fut, unit, failed)
                    if on_result is not None:
                        on_result(unit, result)
                    self.progress.done()
                if not done and self._workers_gone():
                    raise UsageError("every worker of the embedded Dask cluster is gone; nothing can run the "
                                     "remaining releases")
        except BaseException:
            for fut in pending:
                fut.cancel()
            raise
        return out

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
