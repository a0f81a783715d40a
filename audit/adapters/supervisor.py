"""One child process under supervision: the lifecycle every warm child of chrf-audit shares.

The worker hosting Python implementations (``isolation.WorkerClient``), an external program
(``external.ExternalProcess``) and the stats procedures built on it all keep one untrusted
process warm and talk to it in JSON lines.  They differ only in what the lines mean; how the
process is started, read with a deadline, killed with everything it forked, replaced after a
crash or a hang, described when it dies and shared between adapters is the same, so it lives
here once (before issue 13 it was written twice, and drifted: one copy reaped a dead child
with ``poll`` before killing its group).

What this class guarantees, whatever the child does:

* it is started by ``audit.processes.owner.spawn`` (own session, registered), so ``kill`` ends it and
  every process it forked, and ``procs.stop_all`` finds it on Ctrl-C or SIGTERM;
* a supervisor that is dropped without ``close`` still kills its child (``weakref.finalize``
  on a state dict that does not refer back to the supervisor);
* ``read`` never waits longer than its timeout and never blocks on a partial frame: a half
  line followed by silence is ``TIMEOUT``, a closed stdout is ``EOF``;
* whatever a killed child left in the read buffer is discarded, so the next child's stream
  starts clean.

Subclasses add the protocol: ``_spawned`` (a fresh child runs: send it what it needs) and
``_stopped`` (the child is gone: forget what was in flight).
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
import weakref
from typing import Optional

from ..processes import owner as procs
from ..processes.stderr_lines import StderrTail, file_tail
from .faults import FaultBudget
from .frames import EOF, TIMEOUT, read_frame

#: Starting a worker and importing the implementation (or starting an external program and
#: its hello) is bounded by ``max(--timeout, LOAD_FLOOR)`` seconds: a module that sleeps on
#: import fails within that bound, while a heavy but honest import (numpy, torch) on a busy
#: machine is not mistaken for a hang by a short per-call --timeout.
LOAD_FLOOR = 15.0


def describe_exit(returncode) -> str:
    """The crash detail of a finding (docs/fault-catalogue.md quotes these words)."""
    if returncode is None:
        return "process died"
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = "unknown signal"
        return f"process died: signal {-returncode} ({name})"
    return f"process died: exit status {returncode}"


def stderr_tail(f, limit: int = 300) -> str:
    """What a child said on stderr, spooled to a file, for error messages: its last error
    line and its last line (``audit.processes.stderr_lines``)."""
    return file_tail(f, limit)


def _stop(state: dict, standby: bool = False) -> None:
    """End the child's process group (and the standby's with ``standby``) and wait for the
    writer thread (also the finalizer: it sees only ``state``, so it does not keep the
    supervisor alive)."""
    for key in ("proc", "standby") if standby else ("proc",):
        proc = state.get(key)
        state[key] = None
        if proc is not None:
            procs.stop(proc)
    writer = state.pop("writer", None)
    if writer is not None:
        writer.join(timeout=2)


class Supervisor:
    """One child process speaking lines on stdin/stdout, restarted on demand.

    ``take(buf)`` is the framing: it returns ``(frame, rest)`` or None while no frame is
    complete (``frames._take_frame`` for the worker, ``frames.take_line`` for programs)."""

    #: What ``close`` writes before closing the child's stdin (the worker's exit frame).
    goodbye = b""
    #: Whether a restart may take a *standby*: after the first restart a second child is
    #: started ahead of need (its set-up sent by ``_prepared``), so that the next
    #: restart costs no start-up (a second on a loaded machine; faults.py counts them).
    standby = False

    def __init__(self, argv, take, timeout: float, startup_timeout: float = LOAD_FLOOR,
                 cwd: Optional[str] = None, env: Optional[dict] = None):
        self.argv = list(argv)
        self.take = take
        self.faults = FaultBudget(timeout)  # what the implementation's faults may cost (faults.py)
        self.timeout = float(timeout)
        self.startup_timeout = max(float(startup_timeout), self.timeout)
        self.cwd = cwd or os.getcwd()
        self.env = env
        self.lock = threading.RLock()
        self.users = 0
        self.restarts = 0
        self._state: dict = {"proc": None, "standby": None}
        self._buf = b""
        self._stderr = None
        self._want_standby = False
        weakref.finalize(self, _stop, self._state, True)

    @property
    def proc(self) -> Optional[subprocess.Popen]:
        return self._state["proc"]

    @property
    def timeout(self) -> float:
        """The full per-call timeout; setting another one (the impact study's) starts a
        fresh fault budget."""
        return self.faults.timeout

    @timeout.setter
    def timeout(self, seconds: float) -> None:
        if float(seconds) != self.faults.timeout:
            self.faults = FaultBudget(seconds)

    # -- lifecycle ------------------------------------------------------------------
    def start(self) -> None:
        """Start the child unless one runs (OSError when it cannot be executed), then
        ``_spawned``; a standby started before is taken instead.  Does not wait for it:
        several children may start side by side."""
        with self.lock:
            if self.proc is not None:
                return
            ready = self._state["standby"]
            self._state["standby"] = None
            if ready is not None and procs.exited(ready):
                procs.stop(ready)
                ready = None
            self._state["proc"] = ready or self._spawn()
            self._buf = b""
            if ready is None:
                self._spawned()
            else:
                self._promoted()
            if self._want_standby:
                try:
                    self._state["standby"] = self._spawn()
                    self._prepared(self._state["standby"])
                except OSError:  # no standby: the next restart starts one itself
                    procs.stop(self._state["standby"])
                    self._state["standby"] = None

    def _spawn(self) -> subprocess.Popen:
        if self._stderr is None:
            self._stderr = StderrTail()  # a pipe, its end kept in memory: no file grows
        err = self._stderr.pipe()
        try:
            return procs.spawn(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err,
                               cwd=self.cwd, env=self.env, bufsize=0)
        finally:
            os.close(err)

    def ensure(self) -> None:
        """A running child for the next call: one that died between calls is replaced and
        counted as a restart (it is not the next call's fault), a missing one started."""
        if self.proc is not None and procs.exited(self.proc):
            self.restart()
        self.start()

    def kill(self) -> None:
        """End the child and everything it forked now; the next call starts a fresh one."""
        _stop(self._state)
        self._buf = b""
        self._stopped()

    def restart(self) -> None:
        """The child failed a call (crash, hang, broken stream): kill it and count it; from
        now on a standby is kept (when the class allows it)."""
        self.kill()
        self.restarts += 1
        self._want_standby = self.standby

    def close(self) -> None:
        """Say goodbye, close stdin, give the child a second to exit on its own, then end
        its group (children it forked too) and stop reading its stderr."""
        with self.lock:
            proc = self.proc
            if proc is not None:
                try:
                    if self.goodbye:
                        proc.stdin.write(self.goodbye)
                    proc.stdin.close()  # end of input: a program may exit on its own
                except OSError:
                    pass
                self._state["proc"] = None
                procs.stop(proc, wait=1.0)
                self._buf = b""
                self._stopped()
            _stop(self._state, True)  # the writer thread, the standby
            if self._stderr is not None:
                self._stderr.close()
                self._stderr = None

    def acquire(self):
        """One more adapter shares this child (variants of one implementation)."""
        with self.lock:
            self.users += 1
        return self

    def raise_timeout(self, seconds: float) -> None:
        """The per-call timeout raised to at least ``seconds``."""
        self.timeout = max(self.timeout, float(seconds))

    def release(self) -> None:
        """The last adapter to let go closes the child."""
        with self.lock:
            self.users -= 1
            if self.users <= 0:
                self.close()

    # -- hooks ----------------------------------------------------------------------
    def _spawned(self) -> None:
        """A fresh child runs (called under the lock); a protocol sends its set-up here."""

    def _prepared(self, standby: subprocess.Popen) -> None:
        """A standby was started: a protocol sends it its set-up here (``standby``)."""

    def _promoted(self) -> None:
        """The standby is the child now (its set-up was sent by ``_prepared``)."""

    def _stopped(self) -> None:
        """The child is gone; a protocol forgets what was in flight here."""

    # -- talking ------------------------------------------------------------------
    def send(self, data: bytes) -> None:
        """Write to the child's stdin (OSError when it has died: the caller decides whose
        fault that is)."""
        self.proc.stdin.write(data)

    def send_async(self, data: bytes) -> None:
        """Write from a thread, so that a batch can be pipelined while the answers are read
        (a program that answers before reading everything would otherwise deadlock us).
        The thread writes to its own duplicate of the pipe's descriptor: when the child is
        stopped and its stdin closed meanwhile, the number could be reused by a file this
        process opens next, and the rest of the batch must not land there."""
        fd = os.dup(self.proc.stdin.fileno())

        def write():
            view = memoryview(data)
            try:
                while view:
                    n = os.write(fd, view)
                    view = view[n:]
            except OSError:
                pass  # the child died or was killed; the reader reports it
            finally:
                os.close(fd)

        thread = threading.Thread(target=write, daemon=True)
        self._state["writer"] = thread
        thread.start()

    def read(self, timeout: float):
        """The next frame, or ``TIMEOUT`` (nothing complete within ``timeout`` seconds) or
        ``EOF`` (the child closed its stdout)."""
        frame, self._buf = read_frame(self.proc.stdout.fileno(), self._buf, self.take, timeout)
        return frame

    def answers(self, n: int, judge, limit: float) -> list[tuple]:
        """The answers to a batch of ``n`` items already sent, read in order, each within
        ``limit`` seconds of the previous one: ``[(result, trusted, seconds)]``.
        ``judge(frame, k)`` turns the k-th frame of the batch (or TIMEOUT / EOF) into
        ``(result, trusted)``.  The first untrusted one (a crash, a hang, a broken stream)
        costs a restart and ends the list there: the caller (``faults.Line.run``) decides
        what happens to the rest.  One bad item therefore never costs the batch."""
        out = []
        for k in range(n):
            start = time.monotonic()
            frame = self.read(limit)
            result, trusted = judge(frame, k)
            out.append((result, trusted, time.monotonic() - start))
            if not trusted:
                self.restart()
                break
        return out

    # -- describing failures ----------------------------------------------------------
    def exit_detail(self) -> str:
        """Why the stream ended: the exit status (waiting up to 2 s for it), or that the
        child closed its stdout and still runs."""
        rc = procs.exit_status(self.proc, 2)
        if rc is None:
            return "process closed its output but is still running"
        return describe_exit(rc)

    def no_answer(self, frame, timeout: float) -> Optional[tuple]:
        """The outcome when ``frame`` is not an answer: ("timeout", ...) for silence,
        ("crash", ...) for a closed stream or a child that died while something it forked
        keeps the pipe open; None for a real frame."""
        if frame is TIMEOUT:
            if procs.exited(self.proc):
                return ("crash", self.exit_detail() + ", its output held open by a process it started")
            return ("timeout", f"no answer within {timeout:g} s")
        if frame is EOF:
            return ("crash", self.exit_detail())
        return None

    def stderr_tail(self, limit: int = 300) -> str:
        return self._stderr.tail(limit) if self._stderr is not None else ""


class Tenant:
    """Mixin for an adapter that scores through a supervised process shared with its
    variants (``configure``): it holds one use of the process (``acquire``) from construction
    to ``close``, so the process outlives a closed variant but not the last adapter."""

    _closed = True

    def _occupy(self, host):
        self._host = host.acquire()
        self._closed = False
        return self._host

    def _open_host(self):
        if self._closed:
            raise RuntimeError(f"adapter {self.name} is closed")
        return self._host

    @property
    def restarts(self) -> int:
        """How often the process was restarted after a crash or a hang (diagnostics)."""
        return self._host.restarts

    def raise_timeout(self, seconds: float) -> None:
        self._host.raise_timeout(seconds)

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._host.release()
