"""The rows of docs/fault-catalogue.md about ``chrf-audit versions`` (issue 39 items 3, 5, 11):
each case runs the fault on 127.0.0.1 (peers and Dask schedulers of tests/fixtures/dask_peers.py)
or on the planted package's local index (tests/planted_versions.py) and returns (outcome, text)
as tests/test_fault_catalogue.py expects; ``CASES`` is merged into its table.  Each run is
given a real index, so that it gets as far as the fault."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import threading
import time

from tests import planted_versions as P
from tests.fixtures import dask_peers

#: the connect timeout the scheduler cases run with (Dask's configuration; 30 s by default)
CONNECT = "5s"


def _versions(ctx, *extra, releases=None, spec="1.0"):
    """``chrf-audit versions`` of the planted package, in this process, --quiet."""
    ctx.mp.setenv("CHRF_AUDIT_CACHE", str(ctx.tmp / "cache"))
    ctx.mp.setenv("PIP_CONFIG_FILE", os.devnull)
    for name in [n for n in os.environ if n.startswith(("PIP_INDEX", "PIP_EXTRA", "PIP_FIND", "UV_"))]:
        ctx.mp.delenv(name)
    url = P.build_index(ctx.tmp / "index", releases or P.RELEASES)
    return ctx.cli(*P.argv(url, spec, *extra)[3:])  # without "python -m audit.cli"


def _at(ctx, address: str, *extra):
    import dask

    with dask.config.set({"distributed.comm.timeouts.connect": CONNECT}):
        return _versions(ctx, "--scheduler", address, *extra)


def _peer(ctx, kind: str):
    with dask_peers.hostile(kind) as address:
        return _at(ctx, address)


def _refused_then_unreachable(ctx):
    """The host's first address refuses, its second (IPv6, as ``localhost``'s ``::1`` where
    IPv6 is unusable) is unreachable: told at once, not after the connect timeout."""
    port = dask_peers.closed_port()
    real = socket.getaddrinfo

    def resolve(host, *args, **kwargs):
        if host == "scheduler.test":
            return real("127.0.0.1", port, type=socket.SOCK_STREAM) + [
                (socket.AF_INET6, socket.SOCK_STREAM, 6, "", ("ff02::1", port, 0, 0))]
        return real(host, *args, **kwargs)

    ctx.mp.setattr(socket, "getaddrinfo", resolve)
    return _at(ctx, f"tcp://scheduler.test:{port}")


@contextlib.contextmanager
def _cluster(ctx):
    cluster = dask_peers.Cluster(ctx.tmp, P.env(ctx.tmp / "cache"))
    try:
        yield cluster
    finally:
        cluster.close()


def _no_worker(ctx):
    with _cluster(ctx) as cluster:
        return _at(ctx, cluster.address, "--worker-wait", "3")


def _killed_mid_unit(ctx, victim: str):
    """The cluster's only worker, or its scheduler, is killed (or stopped) in the middle of the
    unit (the worker has a child then: its pip or the release's protocol server)."""
    with _cluster(ctx) as cluster:
        worker = cluster.worker("only")
        done = threading.Event()

        def kill_in_unit():
            while not done.is_set() and not dask_peers.descendants(worker.pid):
                time.sleep(0.05)
            with contextlib.suppress(ProcessLookupError):
                if victim == "stop scheduler":  # it hangs: its connections stay open, nothing answers
                    os.kill(cluster.scheduler.pid, signal.SIGSTOP)
                else:
                    os.killpg((worker if victim == "worker" else cluster.scheduler).pid, signal.SIGKILL)

        killer = threading.Thread(target=kill_in_unit, daemon=True)
        killer.start()
        try:
            return _at(ctx, cluster.address, "--worker-wait", "3")
        finally:
            done.set()
            killer.join(60)


def _embedded_ports(ctx):
    """The ports the embedded cluster listens on: its Dask addresses, nothing else (its
    scheduler listened on 8787 too, each worker on an HTTP port of its own)."""
    import psutil
    from distributed import Client

    from audit.processes.cluster import local_cluster

    cluster = local_cluster(1)
    try:
        with Client(cluster, set_as_default=False) as client:
            addresses = [cluster.scheduler_address, *client.nthreads()]
        pids = [os.getpid()] + [w.proc.pid for w in cluster.workers.values()]
        listening = sorted({c.laddr.port for pid in pids for c in psutil.Process(pid).net_connections(kind="inet")
                            if c.status == psutil.CONN_LISTEN})
    finally:
        cluster.close()
    dask_ports = sorted(int(a.rsplit(":", 1)[1]) for a in addresses)
    others = [p for p in listening if p not in dask_ports]
    return ("no port" if not others else "ports"), f"listening: the Dask addresses{' and ' if others else ''}" + \
        ", ".join(map(str, others))


CASES = {
    "versions-scheduler-silent": lambda c: _peer(c, "silent"),
    "versions-scheduler-http": lambda c: _peer(c, "http"),
    "versions-scheduler-http-400": lambda c: _peer(c, "http-400"),
    "versions-scheduler-garbage": lambda c: _peer(c, "garbage"),
    "versions-scheduler-huge-frame": lambda c: _peer(c, "huge-frame"),
    "versions-scheduler-ucx": lambda c: _at(c, f"ucx://127.0.0.1:{dask_peers.closed_port()}"),
    "versions-scheduler-tls": lambda c: _at(c, f"tls://127.0.0.1:{dask_peers.closed_port()}"),
    "versions-scheduler-inproc": lambda c: _at(c, "inproc://127.0.0.1/1/1"),
    "versions-scheduler-refused-then-unreachable": _refused_then_unreachable,
    "versions-scheduler-no-worker": _no_worker,
    "versions-scheduler-worker-dies": lambda c: _killed_mid_unit(c, "worker"),
    "versions-scheduler-dies": lambda c: _killed_mid_unit(c, "scheduler"),
    "versions-scheduler-stops": lambda c: _killed_mid_unit(c, "stop scheduler"),
    "versions-embedded-http-port": _embedded_ports,
}
