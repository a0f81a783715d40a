"""Running implementations: a warm worker subprocess with per-call timeouts, or in-process.

``WorkerClient`` keeps one ``python -m audit.adapters.worker`` process warm and sends it
whole batches; the worker streams back one result per item.  Each item must answer within
``timeout`` seconds of the previous answer.  When an item hangs the process group is killed
(the item becomes a ``timeout``); when the process dies (``os._exit``, a segfault in an
extension) the item becomes a ``crash``; either way a fresh worker is started, the loaded
backends are re-loaded, and the rest of the batch continues.  A hanging item therefore costs
one timeout plus one worker start, never more.

``InProcessClient`` has the same surface and calls the backends directly (``isolate=False``:
benchmarks, trusted code); exceptions and non-numbers are still Outcomes, but a crash or a
hang takes the audit with it.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import weakref
from pathlib import Path

from .. import procs
from . import backends as B
from .frames import EOF, TIMEOUT, BadFrame, _load_answer, _str, _take_frame, read_frame, valid_result
from .worker import encode

_AUDIT_ROOT = str(Path(__file__).resolve().parents[2])

#: Starting a worker and importing the implementation (or starting an external program and
#: its hello) is bounded by ``max(--timeout, LOAD_FLOOR)`` seconds: a module that sleeps on
#: import fails within that bound, while a heavy but honest import (numpy, torch) on a busy
#: machine is not mistaken for a hang by a short per-call --timeout.
LOAD_FLOOR = 15.0


class WorkerFailure(Exception):
    """The worker could not be (re)started or answered nonsense."""


def describe_exit(returncode) -> str:
    if returncode is None:
        return "process died"
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = "unknown signal"
        return f"process died: signal {-returncode} ({name})"
    return f"process died: exit status {returncode}"


def kill_group(proc: subprocess.Popen) -> None:
    """End the worker and everything in its process group (audit.procs.stop)."""
    procs.stop(proc)


def _finalize(holder: dict) -> None:
    proc = holder.get("proc")
    if proc is not None:
        kill_group(proc)


def stderr_tail(f, limit: int = 300) -> str:
    if f is None:
        return ""
    try:
        f.flush()
        f.seek(0, os.SEEK_END)
        size = f.tell()
        f.seek(max(0, size - 4000))
        text = f.read().decode("utf-8", "replace")
        f.seek(0, os.SEEK_END)
    except (OSError, ValueError):
        return ""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return B.one_line(lines[-1], limit) if lines else ""


def worker_env(cwd: str) -> dict:
    env = dict(os.environ)
    parts = [cwd] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p] + [_AUDIT_ROOT]
    env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(parts))
    return env


class WorkerClient:
    """One warm worker process hosting any number of loaded backends."""

    def __init__(self, timeout: float, startup_timeout: float = LOAD_FLOOR):
        self.timeout = float(timeout)
        self.startup_timeout = max(float(startup_timeout), self.timeout)
        self.cwd = os.getcwd()
        self.lock = threading.RLock()
        self.specs: dict[int, dict] = {}
        self.loaded: dict[int, tuple] = {}  # bid -> ("ok", description) | ("error", message)
        self._pending: list[int] = []  # bids whose load answer is still to be read
        self._live: set[int] = set()  # bids loaded in the current process
        self._reload_errors: dict[int, str] = {}
        self._ready = False
        self._buf = b""
        self._holder: dict = {"proc": None}
        self._stderr = None
        self.users = 0
        self.restarts = 0
        weakref.finalize(self, _finalize, self._holder)

    # -- process management ---------------------------------------------------------
    @property
    def proc(self):
        return self._holder["proc"]

    def start(self) -> None:
        """Spawn the process and queue the loads (non-blocking: resolve() starts several
        workers before waiting for any of them)."""
        with self.lock:
            if self.proc is not None:
                return
            if self._stderr is None:
                self._stderr = tempfile.TemporaryFile()
            proc = procs.spawn(
                [sys.executable, "-m", "audit.adapters.worker"],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr,
                cwd=self.cwd, env=worker_env(self.cwd), bufsize=0,
            )
            self._holder["proc"] = proc
            self._buf = b""
            self._ready = False
            self._pending = []
            self._live = set()
            for bid, spec in self.specs.items():
                self._send(["load", bid, spec])
                self._pending.append(bid)

    def _kill(self) -> None:
        proc = self.proc
        self._holder["proc"] = None
        self._ready = False
        self._pending = []
        if proc is not None:
            kill_group(proc)

    def _send(self, msg) -> None:
        self.proc.stdin.write(encode(msg))

    def _recv(self, timeout: float):
        """Next frame, or TIMEOUT / EOF."""
        frame, self._buf = read_frame(self.proc.stdout.fileno(), self._buf, _take_frame, timeout)
        return frame

    def _exit_detail(self) -> str:
        return describe_exit(procs.exit_status(self.proc, 2))

    def _settle(self) -> None:
        """Read the ready frame and outstanding load answers."""
        if self.proc is not None and procs.exited(self.proc):
            self._kill()  # died between calls (not any item's fault): start afresh
            self.restarts += 1
        if self.proc is None:
            self.start()
        try:
            if not self._ready:
                frame = self._recv(self.startup_timeout)
                if not (isinstance(frame, list) and frame[0] == "ready"):
                    raise WorkerFailure(self._startup_problem(frame, "starting"))
                self._ready = True
            while self._pending:
                bid = self._pending[0]
                frame = _load_answer(raw := self._recv(self.startup_timeout))
                if frame is None:
                    raise WorkerFailure(self._startup_problem(raw, "loading", bid))
                self._pending.pop(0)
                if frame[0] == "ok":
                    self._live.add(bid)
                else:
                    self._reload_errors[bid] = frame[1]
                if bid not in self.loaded or self.loaded[bid][0] != "ok":
                    self.loaded[bid] = frame
        except (BrokenPipeError, OSError) as e:
            self._kill()
            raise WorkerFailure(f"worker process failed: {e}") from None

    def _startup_problem(self, frame, what: str, bid=None) -> str:
        spec = self.specs.get(bid) if bid is not None else None
        target = f" {_spec_text(spec)}" if spec else ""
        if frame is TIMEOUT:
            detail = f"no answer within {self.startup_timeout:g} s"
        elif frame is EOF:
            detail = self._exit_detail()
        elif isinstance(frame, BadFrame):
            detail = f"{frame.why}: {frame.text[:80]!r}"
        else:
            detail = f"unexpected answer {json.dumps(frame)[:80]}"
        tail = stderr_tail(self._stderr)
        self._kill()
        return f"worker {what}{target} failed: {detail}" + (f" ({tail})" if tail else "")

    # -- public surface -------------------------------------------------------------
    def add(self, spec: dict) -> int:
        with self.lock:
            bid = len(self.specs)
            self.specs[bid] = spec
            if self.proc is not None:
                try:
                    self._send(["load", bid, spec])
                    self._pending.append(bid)
                except OSError:
                    self._kill()
            return bid

    def describe(self, bid: int) -> dict:
        """The backend's description, or B.SpecError with the user-facing message."""
        with self.lock:
            while bid not in self.loaded:
                try:
                    self._settle()
                except WorkerFailure as e:
                    if bid in self._pending or bid not in self.loaded:
                        self.loaded[bid] = ("error", str(e))
            status = self.loaded[bid]
            if status[0] != "ok":
                raise B.SpecError(status[1])
            return status[1]

    def signature(self, bid: int, claims: dict):
        with self.lock:
            try:
                self._settle()
                self._send(["signature", bid, claims])
                frame = self._recv(self.timeout)
            except (WorkerFailure, OSError):
                self._kill()
                return None
            if not (isinstance(frame, list) and len(frame) == 2 and frame[0] in ("ok", "error")):
                self._kill()  # not an answer: the stream cannot be trusted any more
                return None
            return frame[1] if frame[0] == "ok" and _str(frame[1]) else None

    def run(self, bid: int, op: str, claims: dict, items: list) -> list[tuple]:
        with self.lock:
            try:
                return self._run(bid, op, claims, items)
            except BaseException:  # KeyboardInterrupt mid-batch: answers still in flight
                self._kill()
                raise

    def _run(self, bid: int, op: str, claims: dict, items: list) -> list[tuple]:
        results: list = [None] * len(items)
        start = 0
        send_failures = 0
        while start < len(items):
            try:
                self._settle()
                if bid not in self._live:
                    why = self._reload_errors.get(bid) or self.loaded.get(bid, ("", "?"))[1]
                    raise WorkerFailure(f"worker restart failed: {why}")
                self._send(["run", bid, op, claims, items[start:]])
            except (WorkerFailure, OSError) as e:
                if isinstance(e, OSError):  # the worker died before reading the batch
                    detail = self._exit_detail() if self.proc is not None else str(e)
                    self._kill()
                    self.restarts += 1
                    send_failures += 1
                    if send_failures >= 2:  # twice in a row: blame the first item
                        results[start] = ("crash", detail)
                        start += 1
                        send_failures = 0
                    continue
                for i in range(start, len(items)):
                    results[i] = ("crash", B.one_line(str(e)))
                break
            for i in range(start, len(items)):
                frame = self._recv(self.timeout)
                if frame is TIMEOUT:
                    results[i] = ("timeout", f"no answer within {self.timeout:g} s")
                elif frame is EOF:
                    results[i] = ("crash", self._exit_detail())
                else:
                    ok = (isinstance(frame, list) and len(frame) == 3 and frame[0] == "item"
                          and type(frame[1]) is int and frame[1] == i - start and valid_result(frame[2]))
                    if ok:
                        results[i] = ok
                        continue
                    # what the implementation wrote on the protocol descriptor, or a stream
                    # out of step: data for an invalid-output finding, then a fresh worker
                    if isinstance(frame, BadFrame):
                        results[i] = ("invalid", frame.text, frame.why)
                    else:
                        results[i] = ("invalid", B.one_line(json.dumps(frame), 200),
                                      "the worker's answer is not a result frame for this item")
                self._kill()
                self.restarts += 1
                start = i + 1
                break
            else:
                start = len(items)
        return results

    def acquire(self) -> "WorkerClient":
        with self.lock:
            self.users += 1
        return self

    def release(self) -> None:
        with self.lock:
            self.users -= 1
            if self.users <= 0:
                self.close()

    def close(self) -> None:
        with self.lock:
            proc = self.proc
            if proc is None:
                return
            try:
                self._send(["exit"])
                proc.stdin.close()
            except OSError:
                pass
            self._holder["proc"] = None
            self._ready = False
            self._pending = []
            # a second to exit on its own, then its group (children it forked) is killed too
            procs.stop(proc, wait=1.0)
            if self._stderr is not None:
                self._stderr.close()
                self._stderr = None


class InProcessClient:
    """Same surface as WorkerClient, calling the backends in this process."""

    def __init__(self):
        self.backends: dict[int, object] = {}
        self.loaded: dict[int, tuple] = {}
        self.users = 0
        self.restarts = 0

    def start(self) -> None:
        pass

    def add(self, spec: dict) -> int:
        bid = len(self.loaded)
        res = B.load(spec)
        if res[0] == "ok":
            self.backends[bid] = res[1]
            self.loaded[bid] = ("ok", res[2])
        else:
            self.loaded[bid] = res
        return bid

    def describe(self, bid: int) -> dict:
        status = self.loaded[bid]
        if status[0] != "ok":
            raise B.SpecError(status[1])
        return status[1]

    def signature(self, bid: int, claims: dict):
        try:
            return self.backends[bid].signature(claims)
        except Exception:
            return None

    def run(self, bid: int, op: str, claims: dict, items: list) -> list[tuple]:
        backend = self.backends[bid]
        return [backend.call(op, claims, item) for item in items]

    def acquire(self):
        self.users += 1
        return self

    def release(self) -> None:
        self.users -= 1

    def close(self) -> None:
        pass


def _spec_text(spec: dict) -> str:
    if spec.get("kind") == "callable":
        return " / ".join(s for s in (spec.get("sentence"), spec.get("corpus")) if s)
    return str(spec.get("kind"))
