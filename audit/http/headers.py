"""The headers chrf-audit sends on the user's behalf: from the environment
(``CHRF_AUDIT_HTTP_HEADERS``, ``CHRF_AUDIT_HTTP_TOKEN``) and the contract's ``request.headers``.

A header is checked before the audit (a one-line error that never echoes its value): a name
that is an HTTP token, a value of printable ASCII on one line, and not one of the headers
that frame the message (``Content-Length``, ``Transfer-Encoding``, ...: httpx sets them for
each request; a configured one made h11 refuse the request).  The values from the
environment are secrets (``secret_values``): never written anywhere, redacted from answers.
"""

from __future__ import annotations

import json
import re
from typing import Any

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
