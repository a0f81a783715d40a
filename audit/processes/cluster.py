"""The embedded Dask cluster of ``chrf-audit versions``: a ``distributed.LocalCluster`` whose
worker processes are started and stopped by the one owner (``owner.spawn`` / ``owner.stop``).

Why not LocalCluster's own processes: its workers are started by ``multiprocessing`` through a
nanny, outside ``owner``, so SIGTERM, Ctrl-C or a killed chrf-audit would not end them and
what they started the same way as every other child.  LocalCluster takes the class that makes
a worker (``worker_class``): ``OwnedWorker`` is a ``ProcessInterface`` (the interface Dask's
cluster managers use for a process they start) whose process is ``python -m
audit.processes.dask_worker`` spawned here, in its own session, registered with ``owner``.
The scheduler runs in chrf-audit's own process (no child); everything else (the worker specs,
scaling, closing) is ``SpecCluster``'s, LocalCluster's base, which takes the scheduler's class.

No HTTP port: every Dask scheduler and worker starts an HTTP server (``dashboard_address=None``
only leaves out the dashboard's pages: the scheduler still listened on 8787 with its info,
JSON, prometheus and proxy routes, each worker on a port of its own).  Nothing of the run needs
one, so the embedded cluster's scheduler (``QuietScheduler``) and workers
(``audit.processes.dask_worker``) are ``NoHttp`` nodes: they listen on their Dask address only.
"""

from __future__ import annotations

import asyncio
import logging
import os
import select
import subprocess
import sys
import tempfile
from pathlib import Path

from distributed import Scheduler
from distributed.deploy.spec import ProcessInterface

from . import owner
from .stderr_lines import file_tail

#: hang detection of a worker's start (imports on a loaded machine take seconds, not minutes)
START_TIMEOUT = 300.0
ROOT = Path(__file__).resolve().parents[2]


class NoHttp:
    """A Dask server node that starts no HTTP server (its routes are never served)."""

    def start_http_server(self, *_args, **_kwargs) -> None:
        return None


class QuietScheduler(NoHttp, Scheduler):
    """The embedded cluster's scheduler: its Dask address, no HTTP port."""


class OwnedWorker(ProcessInterface):
    """One worker process of the embedded cluster (LocalCluster's ``worker_class``)."""

    def __init__(self, scheduler: str, name=None, **_options):
        self.scheduler, self.name = scheduler, name
        self.proc = None
        self.log = None
        super().__init__()

    async def start(self) -> None:
        self.address = await asyncio.get_running_loop().run_in_executor(None, self._spawn)
        await super().start()

    def _spawn(self) -> str:
        self.log = tempfile.TemporaryFile()  # its stderr: Dask's log, read only for a failed start
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
        self.proc = owner.spawn([sys.executable, "-m", "audit.processes.dask_worker", self.scheduler, str(self.name)],
                                grace=5.0, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=self.log, env=env)
        line = _first_line(self.proc, START_TIMEOUT)
        if not line.startswith("ready "):
            why = file_tail(self.log) or (f"exit status {self.proc.poll()}" if self.proc.poll() is not None
                                          else f"no answer within {START_TIMEOUT:g} s")
            owner.stop(self.proc)
            raise RuntimeError(f"a Dask worker did not start: {why}")
        return line.split()[1]

    async def close(self) -> None:
        if self.proc is not None:
            proc, self.proc = self.proc, None
            await asyncio.get_running_loop().run_in_executor(None, lambda: owner.stop(proc, term=True))
        if self.log is not None:
            self.log.close()
            self.log = None
        await super().close()

    def alive(self) -> bool:
        return self.proc is not None and not owner.exited(self.proc)


def _first_line(proc: subprocess.Popen, timeout: float) -> str:
    data = b""
    fd = proc.stdout.fileno()
    while b"\n" not in data:
        ready, _, _ = select.select([fd], [], [], timeout)
        chunk = os.read(fd, 4096) if ready else b""
        if not chunk:
            break
        data += chunk
    return data.decode("utf-8", "replace").split("\n", 1)[0].strip()


def local_cluster(workers: int):
    """A started cluster of ``workers`` owned worker processes, one thread each, its scheduler
    on 127.0.0.1 (what ``LocalCluster(n_workers=workers, threads_per_worker=1,
    worker_class=OwnedWorker, dashboard_address=None)`` makes, without the HTTP servers)."""
    from distributed import SpecCluster

    worker = {"cls": OwnedWorker, "options": {}}
    return SpecCluster(workers={i: worker for i in range(workers)}, worker=worker,
                       scheduler={"cls": QuietScheduler, "options": {"host": "127.0.0.1", "port": 0,
                                                                     "dashboard": False}},
                       silence_logs=logging.ERROR)
