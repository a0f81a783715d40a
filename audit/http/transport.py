"""The client's transport: httpx's own, on a network backend whose reads and writes stop at a
deadline.

httpx's timeouts bound each socket operation: a service that sends a valid answer a byte at a
time, each byte within ``--timeout``, is never timed out.  ``deadline(t)`` (a context of the
calling thread, which is the thread httpx's synchronous client reads and writes in) makes
every read and write of the connection end by the monotonic time ``t``: the remaining time
becomes the operation's timeout, and once it is spent the operation raises httpcore's
``ReadTimeout``/``WriteTimeout``, which httpx maps to its own.  ``HttpClient`` sets one
deadline for sending a request and a fresh one, once it is written, for the whole answer
(status line, headers, body).

The backend is passed the documented way (``httpcore.ConnectionPool(network_backend=...)``);
httpx's ``HTTPTransport`` has no parameter for it, so ``DeadlineTransport`` replaces the pool
it built with an equal one on this backend (``tests/test_http_client.py`` holds a byte-a-time
server to the deadline).
"""

from __future__ import annotations

import contextlib
import threading
import time
from typing import Optional

import httpcore
import httpx

_local = threading.local()


@contextlib.contextmanager
def deadline(when: Optional[float]):
    """Reads and writes of this thread end by the monotonic time ``when`` (None: no deadline)."""
    old = getattr(_local, "deadline", None)
    _local.deadline = when
    try:
        yield
    finally:
        _local.deadline = old


def set_deadline(when: Optional[float]) -> None:
    """Move this thread's deadline (inside ``deadline``)."""
    _local.deadline = when


def _left(timeout: Optional[float], error) -> Optional[float]:
    when = getattr(_local, "deadline", None)
    if when is None:
        return timeout
    left = when - time.monotonic()
    if left <= 0:
        raise error("the deadline passed")
    return left if timeout is None else min(timeout, left)


class _Stream(httpcore.NetworkStream):
    def __init__(self, stream: httpcore.NetworkStream):
        self._stream = stream

    def read(self, max_bytes: int, timeout: Optional[float] = None) -> bytes:
        return self._stream.read(max_bytes, _left(timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: Optional[float] = None) -> None:
        self._stream.write(buffer, _left(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self._stream.close()

    def start_tls(self, ssl_context, server_hostname=None, timeout=None):
        return _Stream(self._stream.start_tls(ssl_context, server_hostname, _left(timeout, httpcore.ConnectTimeout)))

    def get_extra_info(self, info: str):
        return self._stream.get_extra_info(info)


class _Backend(httpcore.NetworkBackend):
    def __init__(self):
        self._backend = httpcore.SyncBackend()

    def connect_tcp(self, host, port, timeout=None, local_address=None, socket_options=None):
        return _Stream(self._backend.connect_tcp(host, port, _left(timeout, httpcore.ConnectTimeout), local_address,
                                                 socket_options))

    def connect_unix_socket(self, path, timeout=None, socket_options=None):  # pragma: no cover - no uds
        return _Stream(self._backend.connect_unix_socket(path, _left(timeout, httpcore.ConnectTimeout), socket_options))

    def sleep(self, seconds: float) -> None:  # pragma: no cover - httpcore's retries are off
        self._backend.sleep(seconds)


class DeadlineTransport(httpx.HTTPTransport):
    """``httpx.HTTPTransport`` (HTTP/1.1, no proxy, no retries) whose connections keep the
    calling thread's ``deadline``."""

    def __init__(self, *, limits: httpx.Limits, socket_options=None):
        super().__init__(retries=0, limits=limits, socket_options=socket_options)
        self._pool.close()
        self._pool = httpcore.ConnectionPool(
            ssl_context=httpx.create_ssl_context(), max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections, keepalive_expiry=limits.keepalive_expiry,
            http1=True, http2=False, retries=0, socket_options=socket_options, network_backend=_Backend())
