"""``chrf-audit versions --scheduler`` answers in bounded time, in one line (issue 39 item 3).

Real peers on 127.0.0.1 (tests/fixtures/dask_peers.py): one that accepts and stays silent, one
that sends garbage, one announcing a frame of 2**62 bytes, Python's http.server; transports
the client cannot use; a real ``dask scheduler`` with no worker, and one whose last worker is
killed mid-unit.  Each run is given the planted package's local index, so that it gets as far
as the scheduler: exit 2, one line on stderr, no traceback, within a bound with a wide margin
(the machine is loaded; the faults used to hang for ever or end in a traceback)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time

import pytest

from audit.errors import UsageError
from tests import planted_versions as P
from tests.fixtures import dask_peers

#: added to every bound: interpreter start-up and `pip index versions` on a loaded machine
MARGIN = 90.0


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    return P.build_index(tmp_path_factory.mktemp("scheduler-index") / "index", P.RELEASES)


def _argv(index_url, scheduler, *extra, quiet=True):
    """The planted package's release 1.0 on ``scheduler`` (``quiet=False``: with progress)."""
    return [a for a in P.argv(index_url, "1.0", "--scheduler", scheduler, *extra) if quiet or a != "--quiet"]


def _versions(index_url, scheduler, tmp_path, *extra, env=None, timeout=300, quiet=True):
    argv = _argv(index_url, scheduler, *extra, quiet=quiet)
    started = time.monotonic()
    proc = subprocess.run(argv, env=env or P.env(tmp_path / "cache"), capture_output=True, text=True,
                          timeout=timeout, cwd=tmp_path)
    return proc, time.monotonic() - started


def _one_line_exit_2(proc) -> str:
    assert proc.returncode == 2, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr + proc.stdout
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("chrf-audit: error: --scheduler "), proc.stderr
    return lines[0]


@pytest.mark.parametrize("kind,said", [
    ("garbage", "not a Dask scheduler: it does not speak Dask's protocol"),
    ("huge-frame", "not a Dask scheduler: it does not speak Dask's protocol (its first message announces more"),
    ("http-400", "not a Dask scheduler: it does not speak Dask's protocol"),
    ("http", "not a Dask scheduler: it accepts connections but answers no Dask handshake within 5 s"),
    ("silent", "not a Dask scheduler: it accepts connections but answers no Dask handshake within 5 s"),
    ("closing", "not a Dask scheduler: it closed the connection without a Dask handshake"),
])
def test_a_peer_that_does_not_speak_dask_is_one_line_within_the_connect_timeout(kind, said, index, tmp_path):
    """Dask's connect timeout (docs/versions.md: 30 s unless the Dask configuration says
    otherwise), here set to 5 s.  A silent peer (or http.server, waiting for a request line)
    used to be waited for for ever; garbage, a 2**62-byte frame and an HTTP answer ended in a
    MemoryError traceback."""
    env = dict(P.env(tmp_path / "cache"), DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT="5s")
    with dask_peers.hostile(kind) as address:
        proc, took = _versions(index, address, tmp_path, env=env)
    assert said in _one_line_exit_2(proc)
    assert took < 5 + MARGIN


def test_the_connect_timeout_is_dasks_30_s_unless_configured(monkeypatch):
    import dask

    from audit.versions.scheduler import connect_timeout

    monkeypatch.delenv("DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT", raising=False)
    assert connect_timeout() == 30.0
    with dask.config.set({"distributed.comm.timeouts.connect": "7s"}):
        assert connect_timeout() == 7.0


@pytest.mark.parametrize("address,said", [
    ("ucx://127.0.0.1:{port}", "the 'ucx' transport is not supported"),
    ("inproc://127.0.0.1/1/1", "the 'inproc' transport is not supported"),
    ("tls://127.0.0.1:{port}", "tls:// needs Dask's TLS settings"),
    ("tcp://127.0.0.1:99999", "with a port in 1..65535"),
    ("tcp://127.0.0.1:{port}",
     "cannot reach the Dask scheduler: nothing listens at 127.0.0.1:{port} (connection refused)"),
])
def test_transports_and_addresses_the_client_cannot_use_are_one_line(address, said, index, tmp_path):
    port = dask_peers.closed_port()
    proc, took = _versions(index, address.format(port=port), tmp_path)
    assert said.format(port=port) in _one_line_exit_2(proc)
    assert took < MARGIN


@pytest.mark.parametrize("unreachable_first", [False, True])
def test_a_refused_host_is_told_at_once_when_one_of_its_addresses_is_unreachable(unreachable_first, monkeypatch):
    """``localhost`` resolving to ``127.0.0.1`` where nothing listens and to ``::1`` where IPv6
    is unusable (in either order): every address says no at once, so the address is refused
    at once (when the unusable one came last, it was left to Dask's 30 s connect timeout: 33
    s).  The resolver is the test's; the connections are real."""
    from audit.versions.engine import Engine, Progress

    port = dask_peers.closed_port()
    real = socket.getaddrinfo
    unreachable = [(socket.AF_INET6, socket.SOCK_STREAM, 6, "", ("ff02::1", port, 0, 0))]

    def resolve(host, *args, **kwargs):
        if host == "scheduler.test":
            refusing = real("127.0.0.1", port, type=socket.SOCK_STREAM)
            return unreachable + refusing if unreachable_first else refusing + unreachable
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", resolve)
    started = time.monotonic()
    with pytest.raises(UsageError, match=f"cannot reach the Dask scheduler: nothing listens at scheduler.test:{port} "
                                         r"\(connection refused\)"):
        with Engine(f"tcp://scheduler.test:{port}", 1, Progress(False, "x")):
            pass
    assert time.monotonic() - started < 20


@pytest.fixture
def cluster(tmp_path):
    c = dask_peers.Cluster(tmp_path, P.env(tmp_path / "cache"))
    try:
        yield c
    finally:
        c.close()


def test_a_scheduler_with_no_worker_says_it_waits_then_stops(index, cluster, tmp_path):
    proc, took = _versions(index, cluster.address, tmp_path, "--worker-wait", "4", quiet=False)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr[-3000:]
    assert lines[0] == (f"chrf-audit: waiting for a Dask worker: the Dask scheduler at {cluster.address} has none "
                        "(giving up after 4 s, --worker-wait)")
    assert lines[1:] == [f"chrf-audit: error: the Dask scheduler at {cluster.address} had no worker for 4 s "
                         "(--worker-wait); nothing ran the remaining releases"]
    assert 4 <= took < 4 + MARGIN


def test_with_quiet_a_scheduler_with_no_worker_is_one_line(index, cluster, tmp_path):
    proc, took = _versions(index, cluster.address, tmp_path, "--worker-wait", "3", "--quiet")
    assert proc.returncode == 2 and proc.stderr.strip().count("\n") == 0, proc.stderr[-3000:]
    assert "had no worker for 3 s (--worker-wait)" in proc.stderr
    assert took < 3 + MARGIN


def _kill_mid_unit(index, cluster, tmp_path, victim: str):
    """A run on ``cluster``'s only worker, whose ``victim`` (worker, scheduler, or "stop
    scheduler": SIGSTOP) is killed in the middle of the unit, with a connect timeout of 5 s:
    (the run's stderr lines, its exit status, seconds after the kill)."""
    worker = cluster.worker("only")
    env = dict(P.env(tmp_path / "cache"), DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT="5s")
    run = subprocess.Popen(_argv(index, cluster.address, "--worker-wait", "4", quiet=False), env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    try:
        deadline = time.monotonic() + 600
        while run.poll() is None and time.monotonic() < deadline and not dask_peers.descendants(worker.pid):
            time.sleep(0.05)  # a worker in the middle of the unit has a child: its pip or protocol server
        assert run.poll() is None, run.communicate()[1][-3000:]
        if victim == "stop scheduler":  # it hangs: its connections stay open, nothing answers
            os.kill(cluster.scheduler.pid, signal.SIGSTOP)
        else:
            os.killpg((worker if victim == "worker" else cluster.scheduler).pid, signal.SIGKILL)
        killed = time.monotonic()
        _, err = run.communicate(timeout=300)
    finally:
        run.kill()
    assert "Traceback" not in err, err[-3000:]
    return err.strip().splitlines(), run.returncode, time.monotonic() - killed


def test_a_scheduler_whose_last_worker_dies_mid_unit_stops_after_the_wait(index, cluster, tmp_path):
    lines, code, took = _kill_mid_unit(index, cluster, tmp_path, "worker")
    assert code == 2, lines
    assert lines[-2].startswith("chrf-audit: waiting for a Dask worker: the Dask scheduler at ")
    assert lines[-1] == (f"chrf-audit: error: the Dask scheduler at {cluster.address} had no worker for 4 s "
                         "(--worker-wait); nothing ran the remaining releases")
    assert took < 4 + MARGIN


def test_a_scheduler_killed_mid_unit_is_one_line(index, cluster, tmp_path):
    lines, code, took = _kill_mid_unit(index, cluster, tmp_path, "scheduler")
    assert code == 2, lines
    assert lines == [f"chrf-audit: error: the Dask scheduler at {cluster.address}: the connection to it was lost; "
                     "nothing can run the remaining releases"]
    assert took < MARGIN


def _listening(pids) -> set:
    import psutil

    out = set()
    for pid in pids:
        try:
            conns = psutil.Process(pid).net_connections(kind="inet")
        except psutil.Error:
            continue
        out |= {(pid, c.laddr.port) for c in conns if c.status == psutil.CONN_LISTEN}
    return out


def test_the_embedded_cluster_listens_on_its_dask_addresses_only():
    """No HTTP port (the scheduler used to listen on 8787, each worker on a port of its own):
    the listening sockets of chrf-audit's process and its workers are the scheduler's and the
    workers' Dask addresses, nothing else."""
    from distributed import Client

    from audit.processes.cluster import local_cluster

    cluster = local_cluster(2)
    try:
        with Client(cluster, set_as_default=False) as client:
            workers = client.nthreads()
        procs = [w.proc.pid for w in cluster.workers.values()]
        dask_ports = {int(a.rsplit(":", 1)[1]) for a in [cluster.scheduler_address, *workers]}
        assert len(dask_ports) == 3
        assert {port for _, port in _listening([os.getpid(), *procs])} == dask_ports
        assert cluster.dashboard_link == ""
    finally:
        cluster.close()


def test_a_dask_worker_address_is_not_a_scheduler():
    from distributed import Client

    from audit.processes.cluster import local_cluster
    from audit.versions.scheduler import check

    cluster = local_cluster(1)
    try:
        with Client(cluster, set_as_default=False) as client:
            [worker] = client.nthreads()
        check(cluster.scheduler_address)  # the scheduler itself passes
        with pytest.raises(UsageError, match=f"--scheduler {worker}: not a Dask scheduler: it is a Dask "
                                             "(Quiet)?Worker, not a scheduler"):
            check(worker)
    finally:
        cluster.close()


def test_a_scheduler_stopped_mid_unit_is_one_line_within_the_connect_timeout(index, cluster, tmp_path):
    """SIGSTOP: its connections stay open and nothing answers (it used to be waited for for
    ever); the scheduler is asked for its workers within the connect timeout."""
    lines, code, took = _kill_mid_unit(index, cluster, tmp_path, "stop scheduler")
    assert code == 2, lines
    assert lines == [f"chrf-audit: error: the Dask scheduler at {cluster.address} stopped answering (no answer "
                     "within 5 s); nothing can run the remaining releases"]
    assert took < 5 + MARGIN
