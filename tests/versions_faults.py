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


def _one_interpreter(ctx) -> None:
    """The machine's other interpreters hidden: a release is tried with chrf-audit's own."""
    import sys

    (ctx.tmp / "no-pyenv").mkdir(exist_ok=True)
    ctx.mp.setenv("PYENV_ROOT", str(ctx.tmp / "no-pyenv"))
    ctx.mp.setenv("PATH", os.path.dirname(sys.executable))


def _releases(ctx, releases: dict, spec: str, *extra):
    _one_interpreter(ctx)
    return _versions(ctx, "--jobs", "1", *extra, releases=releases, spec=spec)


def _install_hang(ctx):
    from tests.fixtures.slow_index import dripping

    _one_interpreter(ctx)
    ctx.mp.setenv("CHRF_AUDIT_CACHE", str(ctx.tmp / "cache"))
    ctx.mp.setenv("PIP_CONFIG_FILE", os.devnull)
    ctx.mp.setenv("CHRF_AUDIT_MAX_INSTALL_SECONDS", "5")
    P.build_index(ctx.tmp / "index", {"1.0": False})
    with dripping(ctx.tmp / "index") as url:
        return ctx.cli(*P.argv(url, "1.0", "--jobs", "1")[3:])


def _bisect_edge(ctx):
    """``all --bisect`` where the five oldest releases are for Python 2 only: it finishes,
    trying few of them, and says which range it could not see."""
    return _releases(ctx, {**{v: False for v in P.PY2_ONLY}, **P.RELEASES}, "all", "--bisect")


def _stopped_half_way(ctx):
    """SIGTERM once one of two releases is audited (the other's import hangs): what the run
    has is written."""
    import sys

    from tests.fixtures.on_terminal import signal_when_shown

    (ctx.tmp / "no-pyenv").mkdir()
    url = P.build_index(ctx.tmp / "index", {"1.0": False, P.HANGING: False})
    env = dict(P.env(ctx.tmp / "cache"), PYENV_ROOT=str(ctx.tmp / "no-pyenv"), COLUMNS="120",
               PATH=os.path.dirname(sys.executable))
    argv = [a for a in P.argv(url, f"1.0,{P.HANGING}", "--jobs", "2", "--timeout", "120", "--json",
                              str(ctx.tmp / "out.json")) if a != "--quiet"]
    code, _, _ = signal_when_shown(argv, env, ctx.tmp, b"1/2", signal.SIGTERM)
    written = (ctx.tmp / "out.json").read_text() if (ctx.tmp / "out.json").is_file() else "nothing written"
    return f"exit {code}", written


def _at(ctx, address: str, *extra):
    import dask
    import distributed  # noqa: F401 - its defaults loaded first: a config.set of a key under a
    # "distributed" not yet there deletes the whole subtree on exit, the defaults loaded inside
    # too (every later connection then fails: KeyError 'distributed.comm.require-encryption')

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

        def in_unit() -> bool:  # the unit's own child runs: its pip or the release's protocol server
            # (not any child: a worker may start a helper of its own before chrf-audit connects)
            return any(b"pip" in cmd or b"audit.versions" in cmd
                       for cmd in map(dask_peers.cmdline, dask_peers.descendants(worker.pid)))

        def kill_in_unit():
            while not done.is_set() and not in_unit():
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
    "versions-nothing-audited": lambda c: _releases(c, {P.BROKEN: False}, f"{P.BROKEN},5.0"),
    "versions-import-hang": lambda c: _releases(c, {P.HANGING: False}, P.HANGING, "--timeout", "1"),
    "versions-install-hang": _install_hang,
    "versions-package-name": lambda c: c.cli("versions", "--impl", P.IMPL, "--", "./chrf_planted_versions", "1.0"),
    "versions-bisect-uninstallable": _bisect_edge,
    "versions-stopped-half-way": _stopped_half_way,
}
