"""The separate Python processes of a patch validation.

Each side of a validation (before, after, a replay) runs in its own process,
``python -m audit.patches REQUEST.json`` (``worker.py``), because the after side
must import the patched copy and the before side the installed package, and one Python
process can hold only one of them.  The process runs in its own temporary directory (so
nothing of the caller's current directory, such as a ``cases/``, leaks into it), writes
its result as JSON, and is owned by ``audit.processes.owner`` (stopped with its workers on SIGTERM /
Ctrl-C of this process).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Optional

from ..processes import owner as procs


def worker_env(first: Optional[Path], *, with_cwd: bool = True) -> dict:
    """The worker's environment: PYTHONPATH = [``first``] [+ the caller's current directory,
    where ``validate-patch`` finds ``mypkg.mod:fn``] + the inherited PYTHONPATH; no bytecode
    written into a checkout or site-packages; no step summary written by a sub-audit."""
    env = dict(os.environ)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.pop("GITHUB_STEP_SUMMARY", None)
    parts = ([str(first)] if first is not None else []) + ([os.getcwd()] if with_cwd else [])
    parts += [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    if parts:
        env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(parts))
    else:
        env.pop("PYTHONPATH", None)
    return env


class Job:
    """One worker process: ``python -m audit.patches REQUEST`` -> RESULT json."""

    def __init__(self, request: dict, workdir: Path, name: str, first: Optional[Path], *,
                 with_cwd: bool = True, timeout: Optional[float] = None):
        self.name = name
        self.timeout = timeout
        self.dir = workdir / name
        self.dir.mkdir(parents=True, exist_ok=True)
        self.out = self.dir / "result.json"
        req = dict(request, out=str(self.out))
        (self.dir / "request.json").write_text(json.dumps(req), encoding="utf-8")
        # owned by audit.processes.owner: on SIGTERM/Ctrl-C it gets SIGTERM (it then closes its own
        # workers) and a short grace period, then its process group is killed
        self.proc = procs.spawn(
            [sys.executable, "-m", "audit.patches", str(self.dir / "request.json")],
            grace=3.0, cwd=self.dir, env=worker_env(first, with_cwd=with_cwd),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )

    def wait(self) -> tuple[int, Optional[dict], str]:
        """(exit status, the result or None, the last line of stderr).  A process that
        outlives ``timeout`` (a hang) is stopped and reported with status -1."""
        try:
            _, err = self.proc.communicate(timeout=self.timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            return -1, None, f"{self.name} took more than {self.timeout:g} s"
        rc = self.proc.returncode
        data = json.loads(self.out.read_text(encoding="utf-8")) if rc == 0 and self.out.is_file() else None
        msg = ""
        for ln in reversed(err.splitlines()):
            if ln.strip():
                msg = ln.strip()
                break
        if msg.startswith("chrf-audit: error: "):
            msg = msg[len("chrf-audit: error: "):]
        return rc, data, msg

    def kill(self) -> None:
        procs.stop(self.proc, term=not procs.exited(self.proc))


def run_pair(before: tuple, after: tuple, done=None) -> tuple[tuple, tuple]:
    """Start both jobs (``Job`` arguments), wait for both; a usage error of the before side
    stops the after one.  ``done()`` is called as each one ends (progress)."""
    jb, ja = Job(*before), Job(*after)
    done = done or (lambda: None)
    try:
        rb = jb.wait()
        done()
        if rb[0] == 2:
            ja.kill()
        ra = ja.wait()
        done()
    finally:
        jb.kill()
        ja.kill()
    return rb, ra


def run_all(jobs: list[tuple], done=None, **kw) -> list[tuple]:
    """Start every job (``(request, workdir, name, first)``), wait for each in turn; all are
    stopped on the way out, whatever happens.  ``done()`` is called as each one ends."""
    running = [Job(*job, **kw) for job in jobs]
    done = done or (lambda: None)
    try:
        out = []
        for job in running:
            out.append(job.wait())
            done()
        return out
    finally:
        for job in running:
            job.kill()
