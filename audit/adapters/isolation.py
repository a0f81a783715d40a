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
import sys
from pathlib import Path

from . import backends as B
from . import faults
from .backend_loader import load as load_backend
from .frames import BadFrame, _load_answer, _str, _take_frame, excerpt, valid_result
from .supervisor import LOAD_FLOOR, Supervisor
from .worker import encode

_AUDIT_ROOT = str(Path(__file__).resolve().parents[2])


class WorkerFailure(Exception):
    """The worker could not be (re)started or answered nonsense."""


def worker_env(cwd: str) -> dict:
    """The environment of a Python child that imports the user's code: ``cwd`` first on the
    path (as for ``python -m`` there), chrf-audit itself last."""
    env = dict(os.environ)
    parts = [cwd] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p] + [_AUDIT_ROOT]
    env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(parts))
    return env


class WorkerClient(Supervisor):
    """One warm worker process hosting any number of loaded backends.

    The process lifecycle (start, deadlines, kill, restart, close, sharing) is the
    ``Supervisor``'s; this class is the worker protocol: loads, signatures, streamed runs."""

    goodbye = encode(["exit"])
    standby = True

    def __init__(self, timeout: float, startup_timeout: float = LOAD_FLOOR):
        cwd = os.getcwd()
        super().__init__([sys.executable, "-m", "audit.adapters.worker"], _take_frame, timeout,
                         startup_timeout, cwd=cwd, env=worker_env(cwd))
        self.specs: dict[int, dict] = {}
        self.loaded: dict[int, tuple] = {}  # bid -> ("ok", description) | ("error", message)
        self._pending: list[int] = []  # bids whose load answer is still to be read
        self._live: set[int] = set()  # bids loaded in the current process
        self._reload_errors: dict[int, str] = {}
        self._ready = False
        self._standby_bids: list[int] = []

    # -- process state --------------------------------------------------------------
    def _spawned(self) -> None:
        """Queue the loads without waiting (resolve() starts several workers before reading
        any of them)."""
        self._ready = False
        self._pending = []
        self._live = set()
        for bid, spec in self.specs.items():
            self._send(["load", bid, spec])
            self._pending.append(bid)

    def _prepared(self, standby) -> None:
        """A standby worker loads every backend now, ahead of the restart that takes it."""
        self._standby_bids = list(self.specs)
        try:
            standby.stdin.write(b"".join(encode(["load", bid, spec]) for bid, spec in self.specs.items()))
        except OSError:
            pass  # it died: taking it reads its end (a restart failure, reported as such)

    def _promoted(self) -> None:
        self._ready = False
        self._pending = list(self._standby_bids)
        self._live = set()
        for bid, spec in self.specs.items():
            if bid not in self._pending:
                self._send(["load", bid, spec])
                self._pending.append(bid)

    def _stopped(self) -> None:
        self._ready = False
        self._pending = []

    def _send(self, msg) -> None:
        self.send(encode(msg))

    def _settle(self) -> None:
        """Read the ready frame and outstanding load answers."""
        self.ensure()
        try:
            if not self._ready:
                frame = self.read(self.startup_timeout)
                if not (isinstance(frame, list) and frame[0] == "ready"):
                    raise WorkerFailure(self._startup_problem(frame, "starting"))
                self._ready = True
            while self._pending:
                bid = self._pending[0]
                frame = _load_answer(raw := self.read(self.startup_timeout))
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
            self.kill()
            raise WorkerFailure(f"worker process failed: {e}") from None

    def _startup_problem(self, frame, what: str, bid=None) -> str:
        spec = self.specs.get(bid) if bid is not None else None
        target = f" {_spec_text(spec)}" if spec else ""
        lost = self.no_answer(frame, self.startup_timeout)
        if lost is not None:
            detail = lost[1]
        elif isinstance(frame, BadFrame):
            detail = f"{frame.why}: {frame.text[:80]!r}"
        else:
            detail = f"unexpected answer {json.dumps(frame)[:80]}"
        tail = self.stderr_tail()
        self.kill()
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
                    self.kill()
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
                frame = self.read(self.timeout)
            except (WorkerFailure, OSError):
                self.kill()
                return None
            if not (isinstance(frame, list) and len(frame) == 2 and frame[0] in ("ok", "error")):
                self.kill()  # not an answer: the stream cannot be trusted any more
                return None
            return frame[1] if frame[0] == "ok" and _str(frame[1]) else None

    def run(self, bid: int, op: str, claims: dict, items: list) -> list[tuple]:
        with self.lock:
            try:
                line = self.faults.line((bid, op))
                keys = [faults.item_key(claims, item) for item in items]
                return line.run(items, keys, lambda sub, limit: self._attempt(bid, op, claims, sub, limit))
            except BaseException:  # KeyboardInterrupt mid-batch: answers still in flight
                self.kill()
                raise

    def _attempt(self, bid: int, op: str, claims: dict, items: list, limit: float) -> list[tuple]:
        """Send ``items`` to a running worker and read their answers (``Supervisor.answers``),
        up to the first untrusted one."""
        send_failures = 0
        while True:
            try:
                self._settle()
                if bid not in self._live:
                    why = self._reload_errors.get(bid) or self.loaded.get(bid, ("", "?"))[1]
                    raise WorkerFailure(f"worker restart failed: {why}")
                self._send(["run", bid, op, claims, items])
            except (WorkerFailure, OSError) as e:
                if isinstance(e, OSError):  # the worker died before reading the batch
                    detail = self.exit_detail() if self.proc is not None else str(e)
                    self.restart()
                    send_failures += 1
                    if send_failures >= 2:  # twice in a row: blame the first item
                        return [(("crash", detail), False, 0.0)]
                    continue
                return [(("crash", B.one_line(str(e))), False, 0.0) for _ in items]
            return self.answers(len(items), lambda frame, k: self._judge(frame, k, limit), limit)

    def _judge(self, frame, k: int, limit: float) -> tuple:
        """(result, trusted) for the answer to item ``k`` of the batch sent."""
        lost = self.no_answer(frame, limit)
        if lost is not None:
            return lost, False
        ok = (isinstance(frame, list) and len(frame) == 3 and frame[0] == "item"
              and type(frame[1]) is int and frame[1] == k and valid_result(frame[2]))
        if ok:
            return ok, True
        # what the implementation wrote on the protocol descriptor, or a stream out of step:
        # data for an invalid-output finding, then a fresh worker
        if isinstance(frame, BadFrame):
            return ("invalid", frame.text, f"{frame.why}: {frame.excerpt}"), False
        text = B.one_line(json.dumps(frame), 200)
        return ("invalid", text, "the worker's answer is not a result frame for this item: "
                + excerpt(text)), False


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
        res = load_backend(spec)
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

    def raise_timeout(self, seconds: float) -> None:
        """No timeout in this process: nothing to raise."""

    def release(self) -> None:
        self.users -= 1

    def close(self) -> None:
        pass


def _spec_text(spec: dict) -> str:
    if spec.get("kind") == "callable":
        return " / ".join(s for s in (spec.get("sentence"), spec.get("corpus")) if s)
    return str(spec.get("kind"))
