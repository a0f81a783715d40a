"""The headers chrf-audit sends on the user's behalf: from the environment
(``CHRF_AUDIT_HTTP_HEADERS``, ``CHRF_AUDIT_HTTP_TOKEN``) and the contract's ``request.headers``.

A header is checked before the audit (a one-line error that never echoes its value): a name
that is an HTTP token, a value of printable ASCII on one line, and not one of the headers
that frame the message (``Content-Length``, ``Transfer-Encoding``, ...: httpx sets them for
each request; a configured one made h11 refuse the request).  The values from the
environment are secrets (``secret_values``): never written anywhere, redacted from answers.

**Where they go.**  ``ServiceHeaders`` holds them with the one origin they are for -- the
scheme, host and port of ``--http``/``--mcp`` (``origin``: default ports, host case and IPv6
spellings normalised) -- and ``for_url`` is the one place that decides which headers a
request to some URL carries: all of them to the service's origin, none anywhere else (a
``--contract URL`` on another host or port gets no credential).  Redirects are never
followed, so a request cannot carry them on to another origin either.
"""

from __future__ import annotations

import ipaddress
import json
import re
from typing import Any, Optional

from ..errors import UsageError

HEADERS_ENV = "CHRF_AUDIT_HTTP_HEADERS"
TOKEN_ENV = "CHRF_AUDIT_HTTP_TOKEN"
#: headers that frame the message: set by httpx for each request, never configured
FRAMING = frozenset({"content-length", "transfer-encoding", "connection", "keep-alive", "upgrade", "te",
                     "trailer", "expect", "proxy-connection"})
_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
_VALUE = re.compile(r"[\x20-\x7e\t]*")


def check_header(name: Any, value: Any, where: str) -> None:
    """A header chrf-audit may send: a token name that is not a framing header, a value of
    printable ASCII on one line.  A one-line UsageError naming ``where`` (never the value)."""
    if not isinstance(name, str) or not isinstance(value, str) or not _TOKEN.fullmatch(name):
        raise UsageError(f"{where}: header {name!r} is not a valid header (a name of letters, digits and "
                         "!#$%&'*+.^_`|~- and a string value)")
    if name.lower() in FRAMING:
        raise UsageError(f"{where}: header {name!r} frames the request and is set by chrf-audit; it cannot be "
                         "configured")
    if not _VALUE.fullmatch(value):
        raise UsageError(f"{where}: the value of header {name!r} is not one line of printable ASCII")


def headers_from_env(environ) -> dict:
    """Extra request headers: ``CHRF_AUDIT_HTTP_HEADERS`` (a JSON object of strings) and
    ``CHRF_AUDIT_HTTP_TOKEN`` (sent as ``Authorization: Bearer <token>``).  A malformed
    variable is a one-line error that does not echo its value."""
    out: dict = {}
    raw = environ.get(HEADERS_ENV)
    if raw:
        try:
            value = json.loads(raw)
        except (ValueError, RecursionError):
            raise UsageError(f"{HEADERS_ENV} must be a JSON object of header names to strings "
                             "(its value is not JSON)") from None
        if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
            raise UsageError(f"{HEADERS_ENV} must be a JSON object of header names to strings")
        for name, v in value.items():
            check_header(name, v, HEADERS_ENV)
        out.update(value)
    token = environ.get(TOKEN_ENV)
    if token:
        check_header("Authorization", f"Bearer {token}", TOKEN_ENV)
        out["Authorization"] = f"Bearer {token}"
    return out


def secret_values(headers: dict) -> list[str]:
    """What of ``headers`` must stay out of reports: each value and, of an Authorization
    header, its credentials without the scheme (the token of ``Bearer <token>``)."""
    out = list(headers.values())
    out += [v.partition(" ")[2] for k, v in headers.items() if k.lower() == "authorization" and " " in v]
    return out


_DEFAULT_PORTS = {"http": 80, "https": 443}


def origin(url) -> Optional[tuple]:
    """(scheme, host, port) of ``url`` (a string or httpx.URL): the host lower case (an IP
    address in its one canonical form), the port with the scheme's default filled in; None
    when ``url`` is not an http(s) URL with a host."""
    import httpx

    try:
        u = url if isinstance(url, httpx.URL) else httpx.URL(str(url))
        port = u.port
    except (httpx.InvalidURL, TypeError, ValueError):
        return None
    if u.scheme not in _DEFAULT_PORTS or not u.host:
        return None
    host = u.host.lower()
    try:
        host = ipaddress.ip_address(host).compressed
    except ValueError:
        pass
    return u.scheme, host, port if port is not None else _DEFAULT_PORTS[u.scheme]


class ServiceHeaders:
    """The headers sent on the user's behalf (``headers_from_env``) and the origin of the
    audited service, the only one they are sent to."""

    def __init__(self, service_url: str, headers: Optional[dict] = None, variables: tuple = ()):
        self.origin = origin(service_url)
        self.headers = dict(headers or {})
        self.variables = tuple(variables)  # the environment variables that gave them (never their values)

    @classmethod
    def from_env(cls, service_url: str, environ) -> "ServiceHeaders":
        return cls(service_url, headers_from_env(environ),
                   tuple(v for v in (HEADERS_ENV, TOKEN_ENV) if environ.get(v)))

    def for_url(self, url) -> dict:
        """The headers a request to ``url`` carries: all of them at the service's origin, none
        elsewhere."""
        same = self.origin is not None and origin(url) == self.origin
        return dict(self.headers) if same else {}

    @property
    def secrets(self) -> tuple:
        """What is redacted from every answer (wherever the request went)."""
        return tuple(secret_values(self.headers))
