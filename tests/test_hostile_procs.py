"""One process-tree owner (issue 12, item 4): SIGTERM and SIGINT end every worker and every
child the implementation forked within a few seconds and remove the temporary directories;
a grandchild forked into the worker's group does not survive a normal exit either.

Processes are counted by a marker in their environment (inherited by every descendant, even
after it is re-parented to init).  The only time limits are generous hang limits."""

import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest

from audit.processes import owner as procs
from audit.adapters import resolve
from tests.fixtures.procs import alive as _alive, marked as _marked, until as _until

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent








def _start(argv, tmp_path, mark):
    env = dict(os.environ, CHRF_TEST_MARK=mark, CHRF_HOSTILE_PIDS=str(tmp_path / "pids"), TMPDIR=str(tmp_path),
               PYTHONPATH=os.pathsep.join([str(HERE), str(ROOT)]))
    env.pop("GITHUB_STEP_SUMMARY", None)
    return subprocess.Popen([sys.executable, "-m", "audit.cli", *argv], cwd=tmp_path, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


@pytest.mark.parametrize("sig, code", [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_signal_ends_workers_and_forked_children(tmp_path, sig, code):
    mark = uuid.uuid4().hex
    (tmp_path / "cases").mkdir()
    main = _start(["run", "--impl", "planted_hostile:fork_and_hang", "--timeout", "120", "--quiet",
                   "--max-examples", "5", "--cases", "cases"], tmp_path, mark)
    try:
        assert _until(lambda: (tmp_path / "pids").is_file() and (tmp_path / "pids").read_text().endswith("\n"))
        worker, grandchild = map(int, (tmp_path / "pids").read_text().split()[:2])
        assert _alive(worker) and _alive(grandchild) and len(_marked(mark)) >= 3
        main.send_signal(sig)
        main.wait(60)
        assert main.returncode == code, main.stderr.read()
        assert _until(lambda: not _marked(mark), 30), _marked(mark)
        assert not _alive(worker) and not _alive(grandchild)
    finally:
        main.kill()


def test_sigkill_of_the_audit_still_ends_its_workers(tmp_path):
    """No handler sees SIGKILL: the worker's watchdog notices its parent is gone and kills
    its own process group (the implementation's children included)."""
    mark = uuid.uuid4().hex
    (tmp_path / "cases").mkdir()
    main = _start(["run", "--impl", "planted_hostile:fork_and_hang", "--timeout", "120", "--quiet",
                   "--max-examples", "5", "--cases", "cases"], tmp_path, mark)
    try:
        assert _until(lambda: (tmp_path / "pids").is_file() and (tmp_path / "pids").read_text().endswith("\n"))
        worker, grandchild = map(int, (tmp_path / "pids").read_text().split()[:2])
        main.kill()
        main.wait(60)
        assert _until(lambda: not _marked(mark), 30), _marked(mark)
        assert not _alive(worker) and not _alive(grandchild)
    finally:
        main.kill()


@pytest.mark.parametrize("sig, code", [(signal.SIGTERM, 143), (signal.SIGKILL, -signal.SIGKILL)])
def test_signal_with_jobs_ends_the_pool_units_too(tmp_path, sig, code):
    """--jobs 2: one unit runs here, the other in a pool process whose worker hangs.  Before
    issue 13, SIGTERM stopped this process's worker and then waited for the pool process to
    finish its unit (--timeout per item: minutes), and after SIGKILL the pool process and its
    worker lived on (the worker watches the pool process, not the audit).  The pool processes
    now stop their workers and exit as soon as the audit is interrupted or gone."""
    mark = uuid.uuid4().hex
    (tmp_path / "cases").mkdir()
    main = _start(["run", "--impl", "planted_hostile:fork_and_hang", "--corpus-impl", "planted_hostile:fork_and_hang",
                   "--jobs", "2", "--timeout", "300", "--quiet", "--max-examples", "5", "--cases", "cases"],
                  tmp_path, mark)
    pids = tmp_path / "pids"
    try:
        # both units are hanging in their workers: this process's and the pool process's
        assert _until(lambda: pids.is_file() and len({ln.split()[0] for ln in pids.read_text().splitlines()}) >= 2)
        workers = {int(ln.split()[0]) for ln in pids.read_text().splitlines()}
        main.send_signal(sig)
        main.wait(60)  # hang detection: the hanging items have a 300 s timeout
        assert main.returncode == code, main.stderr.read()
        assert _until(lambda: not _marked(mark), 30), _marked(mark)
        assert not any(_alive(w) for w in workers)
    finally:
        main.kill()


def test_sigterm_during_validate_patch_leaves_nothing(tmp_path):
    """c994a20: 4 auditing processes and a /tmp/chrf-audit-validate-* directory were left."""
    mark = uuid.uuid4().hex
    (tmp_path / "slowpkg").mkdir()
    (tmp_path / "slowpkg" / "__init__.py").write_text("")
    (tmp_path / "slowpkg" / "m.py").write_text(
        "import time\nK = 0.0\n\ndef f(h, r):\n    time.sleep(0.3)\n    return K\n")
    (tmp_path / "p.diff").write_text("--- a/slowpkg/m.py\n+++ b/slowpkg/m.py\n@@ -2 +2 @@\n-K = 0.0\n+K = 1.0\n")
    (tmp_path / "cases").mkdir()
    main = _start(["validate-patch", "--impl", "slowpkg.m:f", "--patch", "p.diff", "--cases", "cases",
                   "--max-examples", "1000"], tmp_path, mark)
    try:
        # main, the before and after audits, and a worker each
        assert _until(lambda: len(_marked(mark)) >= 5), _marked(mark)
        assert list(tmp_path.glob("chrf-audit-validate-*"))
        main.send_signal(signal.SIGTERM)
        main.wait(60)
        assert main.returncode == 143, main.stderr.read()
        assert _until(lambda: not _marked(mark), 30), _marked(mark)
        assert not list(tmp_path.glob("chrf-audit-validate-*"))
    finally:
        main.kill()


def test_grandchild_in_worker_group_dies_on_normal_close(tmp_path, monkeypatch):
    monkeypatch.chdir(HERE)
    monkeypatch.setenv("CHRF_HOSTILE_PIDS", str(tmp_path / "pids"))
    [adapter] = resolve("planted_hostile:sentence", timeout=10.0)
    with adapter:
        assert adapter.sentence_scores([("fork", ["r"])])[0].value == 4.0
        worker, grandchild = map(int, (tmp_path / "pids").read_text().split())
        assert _alive(grandchild)
    assert _until(lambda: not _alive(grandchild), 30)
    assert not _alive(worker)


@pytest.mark.parametrize("during", ["block", "final wait"])
def test_interrupt_cancels_queued_jobs_and_stops_running_children(during):
    """What made Ctrl-C during patch verification take ~50 s: the pool waited for running
    re-audits and started the queued ones, also when Ctrl-C came while waiting at the end."""
    started = []
    running = threading.Event()

    def job(k):
        started.append(k)
        proc = procs.spawn([sys.executable, "-c", "import time; time.sleep(300)"])
        running.set()
        proc.wait()
        return proc.returncode

    def interrupt_later():
        assert running.wait(60)
        os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C: KeyboardInterrupt in the main thread

    t0 = time.monotonic()
    try:
        with pytest.raises(KeyboardInterrupt):
            with procs.owned_pool(1) as pool:
                futures = [pool.submit(job, k) for k in range(3)]
                if during == "block":
                    assert running.wait(60)
                    raise KeyboardInterrupt
                threading.Thread(target=interrupt_later, daemon=True).start()
        assert started == [0]
        assert futures[0].result(60) == -signal.SIGKILL
        assert all(f.cancelled() for f in futures[1:])
        assert not procs.live()
        with pytest.raises(procs.Terminated):  # and no new child can start
            procs.spawn([sys.executable, "-c", "pass"])
        assert time.monotonic() - t0 < 250  # hang detection only (the child sleeps 300 s)
    finally:
        procs.reopen()


def test_stop_kills_the_group_before_reaping():
    proc = procs.spawn([sys.executable, "-c",
                        "import subprocess, sys; p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(300)']);"
                        " print(p.pid, flush=True)"], stdout=subprocess.PIPE, text=True)
    grandchild = int(proc.stdout.readline())
    assert procs.exit_status(proc, 60) == 0  # the child exited normally, not reaped yet
    assert _alive(grandchild)
    procs.stop(proc)
    assert _until(lambda: not _alive(grandchild), 30)
    assert proc.returncode == 0 and proc not in procs.live()


#: a process that installs the owner, has its own interruption raised inside a garbage-
#: collector callback (where Python only prints an exception: Hypothesis registers such a
#: callback, and a SIGTERM'd run went on waiting for a hung implementation), then blocks in
#: a read that nothing will ever answer
SWALLOWED = """
import gc, os, signal, sys
sys.path.insert(0, {root!r})
from audit.processes import owner
owner.install()
sent = []

def callback(phase, info):
    if not sent:
        sent.append(1)
        os.kill(os.getpid(), signal.{sig})
        sent.append(2)  # the handler raises here, inside the callback: the exception is swallowed

gc.callbacks.append(callback)
try:
    gc.collect()
    os.read(os.pipe()[0], 1)
    print("not interrupted")
except KeyboardInterrupt as e:  # Terminated is one
    print(type(e).__name__)
"""


@pytest.mark.parametrize("sig, name", [("SIGTERM", "Terminated"), ("SIGINT", "KeyboardInterrupt")])
def test_an_interruption_swallowed_by_a_gc_callback_is_raised_again(sig, name):
    """Without the owner's unraisable hook the process would block in its read for ever
    (here: until this test's limit); with it the signal is sent again and interrupts the read."""
    proc = subprocess.run([sys.executable, "-c", SWALLOWED.format(root=str(ROOT), sig=sig)], capture_output=True,
                          text=True, timeout=60)
    assert proc.stdout.strip() == name, proc.stderr
    assert "Exception ignored" not in proc.stderr
