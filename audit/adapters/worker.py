"""Warm worker process: ``python -m audit.adapters.worker``.

Protocol (private to chrf-audit): JSON lines (one JSON array per line, ASCII only, so a
frame never contains a raw newline) on the process's original stdin/stdout.  Data only:
the implementation runs in this process and can write to any descriptor it finds, so the
parent parses every line as data and validates its shape (``frames._take_frame``);
nothing it receives can run code there.  The implementation's own prints go to stderr
(fd 1 is redirected there) so they cannot corrupt the protocol, and stdin is /dev/null for it.

Parent -> worker:
  ["load", bid, spec]                      -> ["ok", description] | ["error", message]
  ["signature", bid, claims]               -> ["ok", str | null]  | ["error", message]
  ["run", bid, op, claims, items]          -> ["item", i, result] for each item, streamed
  ["exit"]
On start the worker sends ["ready", pid].  The process chrf-audit starts is a child subreaper
(``audit.processes.subreaper.host_in_child``) that forks the worker and only waits for it: the
implementation's parent is that process, never chrf-audit (a SIGTERM or SIGSTOP to its parent
reaches nothing of the audit).  Processes the implementation daemonizes stay in that tree; they
(and the process group) are ended when the worker exits, when the parent stops it
(``procs.stop``), or, through watchdog threads, when chrf-audit goes away.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
import time


def encode(obj) -> bytes:
    """One frame: a JSON line, ASCII only (lone surrogates and newlines escaped)."""
    return (json.dumps(obj, ensure_ascii=True, separators=(",", ":"), default=str) + "\n").encode("ascii")


def _watch_parent(parent: int) -> None:
    """The parent died: end every process this one started, then this process group."""
    from audit.processes import subreaper

    while os.getppid() == parent:
        time.sleep(0.5)
    subreaper.kill_tree(os.getpid())
    os.killpg(0, signal.SIGKILL)


def main() -> None:
    from audit.processes import subreaper

    # The implementation runs in a child of this process, never in chrf-audit's own child:
    # what it does to its parent (SIGTERM, SIGSTOP) reaches this waiting subreaper only.
    subreaper.host_in_child()
    proto_in = os.fdopen(os.dup(0), "rb")
    proto_out = os.fdopen(os.dup(1), "wb")
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.dup2(2, 1)  # stray prints of the implementation go to stderr
    if "" not in sys.path and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())

    from audit.adapters import backends as B
    from audit.adapters.backend_loader import load as load_backend

    # its parent is the subreaper above (same group): when it goes, this process ends too
    threading.Thread(target=_watch_parent, args=(os.getppid(),), daemon=True).start()

    def send(obj) -> None:
        proto_out.write(encode(obj))
        proto_out.flush()

    def recv():
        line = proto_in.readline()
        return json.loads(line) if line.strip() else None

    if os.getpgid(0) == os.getpid():  # our own group (the parent starts us in a new session)
        threading.Thread(target=_watch_parent, args=(os.getppid(),), daemon=True).start()

    loaded: dict = {}
    send(("ready", os.getpid()))
    while True:
        msg = recv()
        if msg is None or msg[0] == "exit":
            break
        kind = msg[0]
        if kind == "load":
            _, bid, spec = msg
            res = load_backend(spec)
            if res[0] == "ok":
                loaded[bid] = res[1]
                send(("ok", res[2]))
            else:
                send(("error", res[1]))
        elif kind == "signature":
            _, bid, claims = msg
            try:
                send(("ok", loaded[bid].signature(claims)))
            except BaseException as e:  # noqa: BLE001
                send(("error", B.exception_detail(e)))
        elif kind == "run":
            _, bid, op, claims, items = msg
            backend = loaded[bid]
            for i, item in enumerate(items):
                send(("item", i, backend.call(op, claims, item)))
        else:  # pragma: no cover - protocol bug
            send(("error", f"unknown request {kind!r}"))
    sys.stdout.flush()
    subreaper.kill_tree(os.getpid())  # what it started ends with it (orphans would go to init)
    os._exit(0)  # skip interpreter teardown of whatever the implementation left behind


if __name__ == "__main__":
    main()
