"""``python -m audit.processes.dask_worker SCHEDULER NAME``: one worker process of the embedded
Dask cluster (``audit.processes.cluster``), started by ``owner.spawn`` like every other child.

A ``distributed.Worker`` with one thread (one unit at a time) on 127.0.0.1, without a nanny
and without an HTTP server (``cluster.NoHttp``): this process is the worker.  It prints ``ready ADDRESS`` once the scheduler knows it.  It ends,
with every process it started (the release environments' pip and protocol servers, registered
with ``owner`` in *this* process), when the scheduler closes it, on SIGTERM (``owner.stop``),
or when chrf-audit dies without a word (its parent pid changes: SIGKILL, which no handler
sees), like the ``--jobs`` pool processes (``owner._pool_child``).
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import sys
import threading

from . import owner


def _end(code: int) -> None:
    owner.stop_all(final=True)
    os._exit(code)


async def _serve(scheduler: str, name: str) -> None:
    from distributed import Worker

    from .cluster import NoHttp

    class QuietWorker(NoHttp, Worker):
        """A worker on its Dask address only: no HTTP port."""

    async with QuietWorker(scheduler, nthreads=1, name=name, host="127.0.0.1", dashboard=False,
                           memory_limit=0) as worker:
        print(f"ready {worker.address}", flush=True)
        await worker.finished()


def main(argv=None) -> None:
    scheduler, name = (sys.argv[1:] if argv is None else argv)[:2]
    logging.getLogger("distributed").setLevel(logging.ERROR)
    parent = os.getppid()
    stop = threading.Event()

    def watch():
        while os.getppid() == parent and not stop.wait(0.5):
            pass
        _end(143 if stop.is_set() else 1)

    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the run's Ctrl-C reaches us as SIGTERM from owner
    threading.Thread(target=watch, name="chrf-audit-parent-watch", daemon=True).start()
    asyncio.run(_serve(scheduler, name))
    _end(0)


if __name__ == "__main__":
    main()
