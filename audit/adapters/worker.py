"""Warm worker process: ``python -m audit.adapters.worker``.

Protocol (private to chrf-audit): length-prefixed pickle frames on the process's original
stdin/stdout (4-byte big-endian length, then the pickle).  The implementation's own prints
go to stderr (fd 1 is redirected there) so they cannot corrupt the protocol, and stdin is
/dev/null for it.

Parent -> worker:
  ("load", bid, spec)                      -> ("ok", description) | ("error", message)
  ("signature", bid, claims)               -> ("ok", str | None)  | ("error", message)
  ("run", bid, op, claims, items)          -> ("item", i, result) for each item, streamed
  ("exit",)
On start the worker sends ("ready", pid).
"""

from __future__ import annotations

import os
import pickle
import struct
import sys

HEADER = struct.Struct(">I")


def main() -> None:
    proto_in = os.fdopen(os.dup(0), "rb")
    proto_out = os.fdopen(os.dup(1), "wb")
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.dup2(2, 1)  # stray prints of the implementation go to stderr
    if "" not in sys.path and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())

    from audit.adapters import backends as B

    def send(obj) -> None:
        data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
        proto_out.write(HEADER.pack(len(data)) + data)
        proto_out.flush()

    def recv():
        head = proto_in.read(HEADER.size)
        if len(head) < HEADER.size:
            return None
        (n,) = HEADER.unpack(head)
        body = proto_in.read(n)
        if len(body) < n:
            return None
        return pickle.loads(body)

    loaded: dict = {}
    send(("ready", os.getpid()))
    while True:
        msg = recv()
        if msg is None or msg[0] == "exit":
            break
        kind = msg[0]
        if kind == "load":
            _, bid, spec = msg
            res = B.load(spec)
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
    os._exit(0)  # skip interpreter teardown of whatever the implementation left behind


if __name__ == "__main__":
    main()
