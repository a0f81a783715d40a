"""``chrf-audit versions`` on the planted package (issue 33 items 4, 5): four releases as wheels
in a local index (the bug introduced in the 2nd, fixed in the 4th), audited on the embedded
Dask cluster and on a real `dask scheduler` with two `dask worker` processes, one of which is
killed while it audits a release: the unit runs again on the other worker and the matrix is
byte for byte the local one."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests import planted_versions as P
from tests.conftest import once_per_session


@pytest.fixture(scope="session")
def local_run(tmp_path_factory):
    """The 4-release matrix on the embedded cluster (2 workers), once per session: (its
    directory, the completed process as a dict, the JSON document)."""
    cache = P.shared_cache(tmp_path_factory)

    def make(where: Path) -> dict:
        url = P.build_index(where / "index", {**P.RELEASES, P.BROKEN: False})
        argv = P.argv(url, "1.0..1.3", "--jobs", "2", "--json", str(where / "local.json"),
                      "--markdown", str(where / "md"))
        proc = subprocess.run(argv, env=P.env(cache), capture_output=True, text=True, timeout=1800, cwd=where)
        kept = cache / "versions" / f"{P.DIST}.json"  # no machine-wide copy of the result (issue 39 item 10)
        return {"returncode": proc.returncode, "stdout": proc.stdout, "stderr": proc.stderr, "url": url,
                "cached": kept.read_text() if kept.is_file() else None}

    where, done = once_per_session(tmp_path_factory, "versions-local-run", make)
    doc = json.loads((where / "local.json").read_text()) if (where / "local.json").is_file() else None
    return where, done, doc


def test_local_matrix_gives_exactly_the_planted_pair(local_run):
    where, done, doc = local_run
    assert done["returncode"] == 0, done["stderr"][-3000:]  # 1.3, the newest, is clean
    assert "Traceback" not in done["stderr"]
    assert doc["package"] == P.DIST
    assert [(r["version"], r["status"], r["families"]) for r in doc["releases"]] == [
        ("1.0", "audited", []), ("1.1", "audited", [P.FAMILY]), ("1.2", "audited", [P.FAMILY]), ("1.3", "audited", [])]
    assert doc["families"] == {P.FAMILY: {"introduced": "1.1", "fixed": "1.3"}}
    intro = doc["diffs"][P.FAMILY]["introduced"]
    assert (intro["from"], intro["to"], intro["function"]) == ("1.0", "1.1", "sentence")
    assert f"-{P.CORRECT}\n+{P.BUGGY}\n" in intro["diff"]
    # the table, the report with its heat map, and no cached last result
    assert "requested-order-divisor" in done["stdout"] and "1.1" in done["stdout"]
    page = (where / "md" / f"{P.DIST}.md").read_text()
    assert f"| `{P.FAMILY}` | 1.1 (1.0 correct) | 1.3 |" in page and "```diff" in page
    svg = (where / "md" / "charts" / f"{P.DIST}-versions.svg").read_text()
    assert svg.count("<title>") == 4 and svg.count("shows the family</title>") == 0
    assert svg.count(f"{P.FAMILY} @ 1.1: present") == 1 and svg.count(": absent</title>") == 2
    assert done["cached"] is None


def _descendants(pid: int) -> list[int]:
    table = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat", "rb") as fh:
                    data = fh.read()
                table[int(name)] = int(data[data.rfind(b")") + 2:].split()[1])
            except (OSError, ValueError, IndexError):
                pass
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        kids = [c for c, parent in table.items() if parent == p]
        out += kids
        todo += kids
    return out


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return fh.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except OSError:
        return False


def test_a_cluster_that_loses_a_worker_mid_unit_gives_the_local_matrix(local_run, tmp_path, tmp_path_factory):
    _, done, local = local_run
    assert local is not None, done["stderr"][-2000:]
    cache = P.shared_cache(tmp_path_factory)
    env = P.env(cache)
    started = []

    def start(argv, log):
        proc = subprocess.Popen(argv, env=env, stdout=open(log, "wb"), stderr=subprocess.STDOUT,
                                start_new_session=True, cwd=tmp_path)
        started.append(proc)
        return proc

    sfile = tmp_path / "scheduler.json"
    try:
        start([sys.executable, "-m", "dask", "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
               "--scheduler-file", str(sfile)], tmp_path / "scheduler.log")
        deadline = time.monotonic() + 120
        while not sfile.is_file() and time.monotonic() < deadline:
            time.sleep(0.2)
        address = json.loads(sfile.read_text())["address"]
        workers = [start([sys.executable, "-m", "dask", "worker", address, "--nthreads", "1", "--no-nanny",
                          "--no-dashboard", "--name", f"w{i}"], tmp_path / f"worker{i}.log") for i in range(2)]
        run = subprocess.Popen(P.argv(done["url"], "1.0..1.3", "--scheduler", address,
                                      "--json", str(tmp_path / "cluster.json")),
                               env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path)
        # a worker in the middle of a unit has a child (its release's pip or protocol server)
        killed, orphans = None, []
        while killed is None and run.poll() is None and time.monotonic() < deadline + 600:
            for w in workers:
                orphans = _descendants(w.pid)
                if orphans:
                    os.killpg(w.pid, signal.SIGKILL)
                    killed = w
                    break
            time.sleep(0.05)
        out, err = run.communicate(timeout=1800)
        assert killed is not None, "no worker was seen in a unit"
        assert killed.wait(timeout=30) == -signal.SIGKILL
        assert run.returncode == 0, err[-3000:]
        assert (tmp_path / "cluster.json").read_bytes() == (local_run[0] / "local.json").read_bytes()
        cluster = json.loads((tmp_path / "cluster.json").read_text())
        assert cluster["families"] == {P.FAMILY: {"introduced": "1.1", "fixed": "1.3"}}
        assert all(r["status"] == "audited" for r in cluster["releases"])
        assert "Traceback" not in err
        # what the killed worker had started (in sessions of their own) ended with it: the
        # protocol server reads the end of its input, pip finishes into a build directory
        # that the unit's next build removed
        gone = time.monotonic() + 120
        while time.monotonic() < gone and any(_alive(p) for p in orphans):
            time.sleep(0.2)
        assert [p for p in orphans if _alive(p)] == []
    finally:
        for proc in started:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.wait(timeout=30)


def test_a_release_that_cannot_be_imported_and_one_not_on_the_index_are_skipped_with_their_reason(
        local_run, tmp_path, tmp_path_factory):
    """One line each, no traceback, nothing audited: exit 0.  (The machine's other interpreters
    are hidden, so that the release is not tried with each of them.)"""
    _, done, _ = local_run
    cache = P.shared_cache(tmp_path_factory)
    (tmp_path / "no-pyenv").mkdir()
    env = dict(P.env(cache), PYENV_ROOT=str(tmp_path / "no-pyenv"), PATH=str(Path(sys.executable).parent))
    proc = subprocess.run(P.argv(done["url"], f"{P.BROKEN},5.0", "--jobs", "1", "--json", str(tmp_path / "s.json")),
                          env=env, capture_output=True, text=True, timeout=1800, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr + proc.stdout
    doc = json.loads((tmp_path / "s.json").read_text())
    got = {r["version"]: (r["status"], r["reason"]) for r in doc["releases"]}
    assert got["5.0"] == ("skipped", "not on the package index")
    assert got[P.BROKEN][0] == "skipped"
    assert got[P.BROKEN][1].startswith(f"cannot import it: cannot import module '{P.MODULE}' for --impl {P.IMPL}: "
                                       "planted: release 0.9 cannot be imported"), got
    assert "\n" not in got[P.BROKEN][1] and doc["families"] == {}
    assert f"skipped {P.BROKEN}: cannot import it" in proc.stdout


def test_a_unit_leaves_no_process_behind(local_run, tmp_path_factory, monkeypatch):
    """A Dask worker runs unit after unit: each unit's protocol servers end with it, also those
    the audit's re-configured variants of the adapter still shared (seen: one nltk server per
    release left running in each worker until the end of the run)."""
    from audit.processes import owner
    from audit.versions.targets import targets
    from audit.versions.unit import run_unit

    _, done, _ = local_run
    monkeypatch.setenv("CHRF_AUDIT_CACHE", str(P.shared_cache(tmp_path_factory)))
    dist, specs = targets(P.DIST, impl=P.IMPL, max_refs=1, accepts="beta")  # the audit varies beta: variants
    before = {p.pid for p in owner.live()}
    result = run_unit({"distribution": dist, "targets": specs, "version": "1.1", "seed": 0, "max_examples": 10,
                       "tolerance": 1e-9, "timeout": 5.0, "cases": None, "hypothesis_profile": None, "pythons": [],
                       "index": {"index_url": done["url"], "find_links": []}})
    assert result["status"] == "audited" and result["families"] == [P.FAMILY]
    assert [p.args for p in owner.live() if p.pid not in before] == []
