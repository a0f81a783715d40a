"""The Dask scheduler of ``--scheduler``: reached in bounded time, or one line saying why not.

Why: ``distributed.Client`` trusts what answers at the address.  Its connect retries a refused
address until its timeout (30 s), then reads the peer's handshake with no time bound (an
address that accepts and stays silent hung for ever), and it allocates whatever length the
first 8 bytes announce (garbage, an HTTP server's ``HTTP/1.0``, a frame of 2**62 bytes: a
``MemoryError`` traceback); ``ucx://`` (not installed), ``tls://`` without certificates and
``inproc://`` (another process's memory) ended in ``TypeError`` tracebacks.  So, before the
client (``check``, also before the package index is asked):

* the transport is ``tcp://`` (the default) or ``tls://`` with Dask's TLS settings, the port
  1..65535;
* every address the host resolves to is tried: when each refuses or is unreachable at once
  (``localhost`` as ``127.0.0.1``, then as ``::1`` where IPv6 is unusable: the socket module
  raises the last error, so this one was left to the connect timeout, 33 s), the address is
  refused at once;
* the peer is asked Dask's ``identity`` through ``distributed.comm.connect``, not
  deserializing what it sends (no pickle of the peer's is loaded), within the connect timeout:
  silence, a closed connection, bytes that are not Dask's protocol, or a Dask server that is
  not a scheduler (a worker's address) is one line.

Then the client itself is made within the connect timeout (``client``).  The connect timeout is
Dask's own, ``distributed.comm.timeouts.connect`` (30 s unless the Dask configuration says
otherwise, e.g. ``DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT=10s``).  A scheduler that answers
Dask is trusted as Dask trusts it: its results are unpickled by the client.
"""

from __future__ import annotations

import asyncio
import errno
import socket
import threading
import time
from typing import Optional

from ..errors import UsageError
from ..processes.stderr_lines import one_line

TRANSPORTS = ("tcp", "tls")
#: errors of a connection attempt that say at once that nothing can be reached there
_AT_ONCE = {errno.ECONNREFUSED, errno.ENETUNREACH, errno.EHOSTUNREACH, errno.EADDRNOTAVAIL, errno.EAFNOSUPPORT}
#: the longest wait for one resolved address (a host that drops the connection attempt)
PER_ADDRESS = 5.0


def connect_timeout() -> float:
    """Dask's connect timeout in seconds (``distributed.comm.timeouts.connect``)."""
    import dask
    import distributed  # noqa: F401 - its import adds its defaults to Dask's configuration
    from dask.utils import parse_timedelta

    return float(parse_timedelta(dask.config.get("distributed.comm.timeouts.connect"), default="s"))


def _said(text) -> str:
    """Text from the peer or from Dask about it, printable and on one line."""
    return one_line("".join(c if c.isprintable() else "?" for c in str(text)), 200)


def _parts(address: str) -> tuple[str, str, int]:
    """(transport, host, port) of an address Dask's client can use, else UsageError."""
    from distributed.comm import parse_address, parse_host_port

    def bad(why: str) -> UsageError:
        return UsageError(f"--scheduler {_said(address)}: {why}")

    try:
        scheme, loc = parse_address(address)
    except (ValueError, TypeError) as exc:
        raise bad(f"not a Dask address ({_said(exc)})") from None
    if scheme not in TRANSPORTS:
        raise bad(f"the {scheme!r} transport is not supported (a scheduler is reached at tcp://HOST:PORT, or "
                  "tls://HOST:PORT with Dask's TLS settings)")
    try:
        host, port = parse_host_port(loc)
    except (ValueError, TypeError) as exc:
        raise bad(f"not HOST:PORT ({_said(exc)})") from None
    if not isinstance(port, int) or not 1 <= port <= 65535 or not host:
        raise bad(f"not HOST:PORT with a port in 1..65535 ({_said(loc)})")
    if scheme == "tls" and _connection_args().get("ssl_context") is None:
        raise bad("tls:// needs Dask's TLS settings (distributed.comm.tls.ca-file, .client.cert and .client.key "
                  "in the Dask configuration)")
    return scheme, host, port


def _connection_args() -> dict:
    from distributed.security import Security

    return Security().get_connection_args("client")


def refused(host: str, port: int, wait: float) -> Optional[str]:
    """Why nothing can be reached at ``host:port`` when every address of the host says so at
    once (refused, unreachable), else None: a connection was made, or an attempt was left
    unanswered (the connect timeout decides)."""
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        return f"no such host {host!r} ({exc.strerror or exc})"
    except (UnicodeError, ValueError) as exc:
        return f"not a host name {host!r} ({_said(exc)})"
    deadline = time.monotonic() + wait
    errors = []
    for family, kind, proto, _, sockaddr in found:
        try:
            with socket.socket(family, kind, proto) as sock:  # no IPv6 here: EAFNOSUPPORT
                sock.settimeout(max(0.1, min(PER_ADDRESS, deadline - time.monotonic())))
                sock.connect(sockaddr)
            return None
        except OSError as exc:
            errors.append(exc)
    if not errors or any(e.errno not in _AT_ONCE for e in errors):
        return None
    if any(e.errno == errno.ECONNREFUSED for e in errors):
        return f"nothing listens at {host}:{port} (connection refused)"
    return f"{host}:{port} cannot be reached ({errors[0].strerror})"


async def _identity(address: str, timeout: float, args: dict):
    from distributed.comm import connect

    comm = await connect(address, timeout=timeout, deserialize=False, **args)
    try:
        await comm.write({"op": "identity", "reply": True})
        return await comm.read()
    finally:
        comm.abort()


def _probe(address: str, timeout: float) -> Optional[str]:
    """Why the peer at ``address`` is not a Dask scheduler (one line), else None."""
    from distributed.comm.core import CommClosedError

    try:
        reply = asyncio.run(asyncio.wait_for(_identity(address, timeout, _connection_args()), timeout))
    except (asyncio.TimeoutError, TimeoutError):
        return f"it accepts connections but answers no Dask handshake within {timeout:g} s"
    except MemoryError:
        return "it does not speak Dask's protocol (its first message announces more bytes than can be held)"
    except CommClosedError:
        return "it closed the connection without a Dask handshake"
    except OSError as exc:
        return f"no Dask connection within {timeout:g} s ({_said(exc)})"
    except Exception as exc:  # noqa: BLE001 - whatever the peer's bytes make of Dask's decoder
        return f"it does not speak Dask's protocol ({type(exc).__name__}: {_said(exc)})"
    if not isinstance(reply, dict):
        return "it does not speak Dask's protocol (its answer to identity is not a mapping)"
    if not str(reply.get("type")).endswith("Scheduler"):  # Scheduler or a subclass (the embedded cluster's)
        return f"it is a Dask {_said(reply.get('type'))!s}, not a scheduler"
    return None


def check(address: str) -> None:
    """UsageError (one line) unless a Dask scheduler answers at ``address`` within the connect
    timeout."""
    scheme, host, port = _parts(address)
    timeout = connect_timeout()
    why = refused(host, port, timeout)
    if why:
        raise UsageError(f"--scheduler {_said(address)}: cannot reach the Dask scheduler: {why}")
    why = _probe(address, timeout)
    if why:
        raise UsageError(f"--scheduler {_said(address)}: not a Dask scheduler: {why}")


def client(address: str):
    """A ``distributed.Client`` of the scheduler at ``address`` (checked first), made within the
    connect timeout, else UsageError."""
    from distributed import Client

    check(address)
    timeout = connect_timeout()
    made: dict = {}

    def make() -> None:
        try:
            made["client"] = Client(address, timeout=timeout, set_as_default=False)
        except BaseException as exc:  # noqa: BLE001 - said on one line below
            made["error"] = exc

    worker = threading.Thread(target=make, name="chrf-audit-dask-client", daemon=True)
    worker.start()
    worker.join(timeout)
    if "client" in made:
        return made["client"]
    exc = made.get("error")
    why = (f"no client connection within {timeout:g} s" if exc is None
           else f"{type(exc).__name__}: {_said(exc)}" if str(exc) else type(exc).__name__)
    raise UsageError(f"--scheduler {_said(address)}: the Dask scheduler answered, but a client could not connect: "
                     f"{why}")
