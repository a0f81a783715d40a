"""GET one document a service publishes (its machine-readable contract): bounded in time and
size, redacted, and every failure one ``UsageError`` line (the audit has not started).  The
request carries the user's headers only when ``url`` is at the audited service's origin
(``ServiceHeaders.for_url``); a redirect is not followed (it is the status it is)."""

from __future__ import annotations

import socket
import time
from typing import Optional

import httpx

from ..errors import UsageError
from .client import check_url, one_line, public_url
from .headers import ServiceHeaders
from .secrets import Redactor, url_secrets
from .transport import DeadlineTransport, deadline

#: the largest contract document read (the built-in one is ~12 kB)
MAX_DOCUMENT = 1024 * 1024


class NotServed(UsageError):
    """The server answered, but not the document: an HTTP status other than 200."""

    def __init__(self, message: str, status: int):
        super().__init__(message)
        self.status = status


def get_text(url: str, *, timeout: float, credentials: Optional[ServiceHeaders] = None,
             what: str = "--contract") -> str:
    """The body of ``GET url`` (status 200, UTF-8, at most ``MAX_DOCUMENT`` bytes, the whole
    answer within ``timeout`` seconds of the request), redacted of the ``credentials``' secrets;
    the request carries ``credentials.for_url(url)``."""
    parsed = check_url(url)
    shown = public_url(url)
    headers = credentials.for_url(parsed) if credentials is not None else {}
    redact = Redactor([*(credentials.secrets if credentials is not None else ()), *url_secrets(parsed)])
    transport = DeadlineTransport(limits=httpx.Limits(max_connections=1, max_keepalive_connections=0),
                                  socket_options=[(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)])
    raw = b""
    try:
        with httpx.Client(timeout=httpx.Timeout(timeout), headers=headers, transport=transport,
                          follow_redirects=False, trust_env=False) as client:
            with deadline(time.monotonic() + 2 * timeout):
                with client.stream("GET", str(parsed), headers={"Accept": "application/json"}) as r:
                    for chunk in r.iter_bytes():
                        raw += chunk
                        if len(raw) > MAX_DOCUMENT:
                            raise UsageError(f"{what} {shown}: the document is larger than {MAX_DOCUMENT} bytes")
                    status = r.status_code
    except httpx.TimeoutException:
        raise UsageError(f"{what} {shown}: no answer within {timeout:g} s") from None
    except (httpx.TransportError, httpx.DecodingError) as e:
        text = redact.text(one_line(str(e), 120)) or type(e).__name__
        raise UsageError(f"{what} {shown}: {'connection refused' if 'refused' in text.lower() else text}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise UsageError(f"{what} {shown}: HTTP {status}, the document is not UTF-8") from None
    if status != 200:
        raise NotServed(f"{what} {shown}: HTTP {status}: {redact.text(one_line(text, 120)) or '(empty body)'}", status)
    return redact.text(text)
