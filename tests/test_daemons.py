"""Processes an implementation daemonizes (fork, setsid, fork again) do not outlive the
audit (issue 19, item 10): the worker, the stats callable worker and external programs are
child subreapers (audit.processes.subreaper), so the daemons stay in their tree and are ended with it.
Without that, a daemon per call left 1,235 processes after a normal run.

The daemons' pids are written to a file; the only time limits are generous hang limits."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from audit.adapters import resolve
from tests.fixtures.procs import alive, until

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def _pids(path: Path, at_least: int = 0) -> list[int]:
    """The daemons' pids (waiting until ``at_least`` have written theirs: they do so
    after the call returned)."""
    def read():
        return [int(x) for x in path.read_text().splitlines() if x.strip()] if path.is_file() else []

    until(lambda: len(read()) >= at_least)
    return read()


def test_a_run_leaves_no_daemon(tmp_path):
    """`chrf-audit run` of an implementation that daemonizes on every call: after the run,
    every daemon is gone."""
    pids = tmp_path / "pids"
    (tmp_path / "cases").mkdir()
    env = dict(os.environ, CHRF_DAEMON_PIDS=str(pids), PYTHONPATH=os.pathsep.join([str(HERE), str(ROOT)]))
    env.pop("GITHUB_STEP_SUMMARY", None)
    proc = subprocess.run([sys.executable, "-m", "audit.cli", "run", "--impl", "planted_daemon:sentence",
                           "--max-examples", "5", "--quiet", "--cases", "cases", "--jobs", "1"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode in (0, 1), proc.stderr
    daemons = _pids(pids)
    assert len(daemons) >= 10  # one per call
    assert until(lambda: not [p for p in daemons if alive(p)], 30), [p for p in daemons if alive(p)]


def test_a_restarted_worker_takes_its_daemons_along(tmp_path, monkeypatch):
    """A worker killed for a hang (procs.stop: no exit of its own) ends its daemons too."""
    monkeypatch.setenv("CHRF_DAEMON_PIDS", str(tmp_path / "pids"))
    monkeypatch.chdir(HERE)
    [a] = resolve("planted_daemon:sentence", timeout=10.0)
    with a:
        [o] = a.sentence_scores([("ab", ["ab"])])
        assert o.kind == "value" and o.value == 100.0
        [daemon] = _pids(tmp_path / "pids", 1)
        assert alive(daemon)
        a._host.restart()  # what a crash or a hang costs: the worker killed from outside
        assert until(lambda: not alive(daemon), 30)


def test_an_external_program_that_daemonizes(tmp_path, monkeypatch):
    monkeypatch.setenv("CHRF_DAEMON_PIDS", str(tmp_path / "pids"))
    monkeypatch.setenv("PYTHONPATH", str(HERE))
    [a] = resolve(external=f"{sys.executable} {HERE / 'planted_daemon_external.py'}", timeout=10.0)
    with a:
        outs = a.sentence_scores([("a", ["a"]), ("bb", ["a"])])
        assert [o.value for o in outs] == [1.0, 2.0]
        daemons = _pids(tmp_path / "pids", 2)
        assert len(daemons) == 2 and all(alive(p) for p in daemons)
    assert until(lambda: not [p for p in daemons if alive(p)], 30)


def test_a_stats_callable_that_daemonizes(tmp_path, monkeypatch):
    from audit.stats import callables

    monkeypatch.setenv("CHRF_DAEMON_PIDS", str(tmp_path / "pids"))
    monkeypatch.chdir(ROOT)
    proc = callables.make("tests.planted_daemon:paired", "paired", timeout=30)
    try:
        out = proc.paired(["a b", "c d"], ["a c", "c d"], [["a b"], ["c d"]], resamples=50, seed=1)
        assert out.ok
        [daemon] = _pids(tmp_path / "pids", 1)
        assert alive(daemon)
    finally:
        proc.close()
    assert until(lambda: not alive(daemon), 30)


def test_exited_daemons_are_reaped_during_the_run(tmp_path):
    """A daemon that exits at once is a zombie child of the subreaper: reaped after each
    batch, so zombies do not pile up (the implementation's own children are not touched)."""
    code = f"""
import os, sys, time
sys.path.insert(0, {str(HERE)!r})
from audit.processes import subreaper
from planted_daemon import daemonize
assert subreaper.become_subreaper()
own = os.fork()
if own == 0:
    os._exit(3)
for _ in range(5):
    daemonize(0)
def zombies():
    return [p for p, (pp, st, _) in subreaper._table().items() if pp == os.getpid() and st == "Z"]
deadline = time.monotonic() + 60
while len(zombies()) < 6 and time.monotonic() < deadline:
    time.sleep(0.01)
print(len(zombies()), subreaper.reap_adopted(), len(zombies()), os.waitpid(own, 0)[1] >> 8)
"""
    out = subprocess.run([sys.executable, "-c", code], env=dict(os.environ, CHRF_DAEMON_PIDS=str(tmp_path / "p"),
                                                                PYTHONPATH=str(ROOT)),
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["6", "5", "1", "3"]  # 5 daemons reaped; its own child left to it
