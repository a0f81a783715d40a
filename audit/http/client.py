"""The HTTP client of ``--http``: a scoring service is untrusted, so every way a request can
go wrong becomes a ``Reply`` (never an exception), except a user mistake (a bad URL, bad
headers, an exhausted ``--max-requests`` budget), which is one ``UsageError`` line.

* **Timeouts**: ``timeout`` seconds to connect, write, read and wait for a pooled
  connection; a service that does not answer in time gives a ``timeout`` reply (hang
  detection, the only decision here that reads the clock).  Timeouts are not retried.
* **Retries** of 429 and 5xx answers and of dropped or refused connections, at most
  ``retries`` times per request, after an exponential backoff or the ``Retry-After`` the
  service asked for (capped).  How *many* attempts a request gets depends only on what the
  service answered, never on how long anything took: a slow machine sees the same replies.
* **Concurrency**: ``map`` sends up to ``concurrency`` requests at once and returns the
  replies in request order.
* **Work while the service works**: ``send(..., on_written=f)`` calls ``f`` in the sending
  thread once the request is written and before the answer is read, so the caller's own
  computation overlaps the service's with no thread and no lock (the answer waits in the
  socket; the read timeout starts after ``f``).
* **Budget**: ``max_requests`` requests (retries not counted: a flapping service must not
  change what an audit sends) then ``RequestBudgetExhausted``.
* **Hostile answers**: a body over ``MAX_BODY`` bytes or not JSON is a ``garbage`` reply.

Headers come from the environment (``headers_from_env``) and are never written anywhere.
"""

from __future__ import annotations

import email.utils
import json
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Callable, Optional

import httpx

from ..settings import options
from ..errors import UsageError

MAX_BODY = 16 * 1024 * 1024
HEADERS_ENV = "CHRF_AUDIT_HTTP_HEADERS"
TOKEN_ENV = "CHRF_AUDIT_HTTP_TOKEN"


class RequestBudgetExhausted(UsageError):
    """``--max-requests`` was reached before the audit was done."""


@dataclass(frozen=True)
class Reply:
    """What one request came to."""

    #: "json" (2xx, a JSON document), "refused" (4xx but 429), "server-error" (5xx or 429
    #: after the retries), "timeout", "dropped" (no HTTP answer: connection refused, reset or
    #: closed), "garbage" (2xx that is not JSON, an unexpected status, an oversized body)
    kind: str
    status: Optional[int]
    body: Any  # the parsed JSON ("json", and "refused" when its body is JSON), else None
    text: str  # the start of the body, for reports
    detail: str  # one line
    attempts: int = 1

    @property
    def refusal(self) -> bool:
        return self.kind == "refused"


def one_line(text: str, limit: int = 200) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def check_url(url: str) -> httpx.URL:
    """The service URL, or a one-line UsageError (not http(s), no host, unparsable)."""
    try:
        parsed = httpx.URL(url)
    except (httpx.InvalidURL, TypeError, ValueError) as e:
        raise UsageError(f"--http {url!r}: not a URL ({e})") from None
    if parsed.scheme not in ("http", "https") or not parsed.host:
        raise UsageError(f"--http {url!r}: not an http:// or https:// URL with a host")
    return parsed


def public_url(url: str) -> str:
    """The URL as reports write it: no user name, password, query or fragment (they may
    hold credentials; put those in the headers, docs/http.md)."""
    u = httpx.URL(url)
    port = f":{u.port}" if u.port else ""
    return f"{u.scheme}://{u.host}{port}{u.path}"


def headers_from_env(environ) -> dict:
    """Extra request headers: ``CHRF_AUDIT_HTTP_HEADERS`` (a JSON object of strings) and
    ``CHRF_AUDIT_HTTP_TOKEN`` (sent as ``Authorization: Bearer <token>``).  A malformed
    variable is a one-line error that does not echo its value."""
    out: dict = {}
    raw = environ.get(HEADERS_ENV)
    if raw:
        try:
            value = json.loads(raw)
        except ValueError:
            raise UsageError(f"{HEADERS_ENV} must be a JSON object of header names to strings "
                             "(its value is not JSON)") from None
        if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
            raise UsageError(f"{HEADERS_ENV} must be a JSON object of header names to strings")
        out.update(value)
    token = environ.get(TOKEN_ENV)
    if token:
        out["Authorization"] = f"Bearer {token}"
    for name, v in out.items():
        if not name or any(c in name for c in ":\r\n ") or any(c in v for c in "\r\n"):
            raise UsageError(f"{HEADERS_ENV}/{TOKEN_ENV}: header {name!r} is not a valid header")
    return out


def _retry_after(value: Optional[str]) -> Optional[float]:
    """Seconds a Retry-After header asks for (delta-seconds or an HTTP date), or None."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    return max(0.0, when.timestamp() - time.time())


class HttpClient:
    """One service endpoint, shared by every request of an audit."""

    def __init__(self, url: str, *, method: str = "POST", timeout: float = options.default("timeout"), concurrency: int = options.default("http_concurrency"),
                 retries: int = options.default("http_retries"), max_requests: Optional[int] = None, headers: Optional[dict] = None,
                 backoff: float = 0.05, backoff_cap: float = 2.0, retry_after_cap: float = 10.0,
                 sleep: Callable[[float], None] = time.sleep, transport: Optional[httpx.BaseTransport] = None):
        self.url = str(check_url(url))
        self.method = method
        self.timeout = float(timeout)
        self.concurrency = max(1, int(concurrency))
        self.retries = max(0, int(retries))
        self.max_requests = max_requests
        self.backoff, self.backoff_cap, self.retry_after_cap = backoff, backoff_cap, retry_after_cap
        self.sleep = sleep
        self.requests = 0  # logical requests sent (the budget)
        self.attempts = 0  # including retries
        self.retried = 0
        self._lock = threading.Lock()
        if transport is None:
            # headers and body leave in two writes: without TCP_NODELAY the second waits for
            # the peer's delayed ACK (~40 ms a request on Linux loopback)
            transport = httpx.HTTPTransport(retries=0, limits=httpx.Limits(
                max_connections=self.concurrency, max_keepalive_connections=self.concurrency),
                socket_options=[(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)])
        self._client = httpx.Client(
            timeout=httpx.Timeout(self.timeout), headers=dict(headers or {}), transport=transport,
            limits=httpx.Limits(max_connections=self.concurrency, max_keepalive_connections=self.concurrency),
            follow_redirects=False, trust_env=False)

    # -- sending ------------------------------------------------------------------------------
    def send(self, body: Any, headers: Optional[dict] = None, on_written: Optional[Callable[[], Any]] = None) -> Reply:
        """One request (``body`` as JSON, or raw bytes) with its retries.  ``on_written`` is
        called at most once: when the first attempt's request is written, before its answer
        is read (not at all if that attempt fails before, so the caller's work must not
        depend on it having run; what it raises, ``send`` raises)."""
        with self._lock:
            if self.max_requests is not None and self.requests >= self.max_requests:
                raise RequestBudgetExhausted(
                    f"--max-requests {self.max_requests} reached before the audit was done (retries not "
                    f"counted); raise it or lower --max-examples")
            self.requests += 1
        data = body if isinstance(body, bytes) else json.dumps(body, ensure_ascii=True).encode("ascii")
        attempt = 0
        while True:
            attempt += 1
            with self._lock:
                self.attempts += 1
            reply, wait = self._attempt(data, headers or {}, attempt, on_written if attempt == 1 else None)
            if wait is None or attempt > self.retries:
                return reply
            with self._lock:
                self.retried += 1
            self.sleep(wait)

    def map(self, bodies: list, headers: Optional[dict] = None) -> list[Reply]:
        """Replies to ``bodies``, in order, up to ``concurrency`` requests in flight."""
        if len(bodies) <= 1 or self.concurrency == 1:
            return [self.send(b, headers) for b in bodies]
        with ThreadPoolExecutor(max_workers=min(self.concurrency, len(bodies))) as pool:
            return list(pool.map(lambda b: self.send(b, headers), bodies))

    def _backoff(self, attempt: int, retry_after: Optional[str] = None) -> float:
        asked = _retry_after(retry_after)
        if asked is not None:
            return min(asked, self.retry_after_cap)
        return min(self.backoff * 2 ** (attempt - 1), self.backoff_cap)

    def _attempt(self, data: bytes, headers: dict, attempt: int,
                 on_written: Optional[Callable[[], Any]] = None) -> tuple[Reply, Optional[float]]:
        """(reply, seconds to wait before a retry or None: final)."""
        h = {"Content-Type": "application/json", **headers}
        extensions = {"trace": _when_written(on_written)} if on_written else None
        try:
            with self._client.stream(self.method, self.url, content=data, headers=h, extensions=extensions) as r:
                raw = b""
                for chunk in r.iter_bytes():
                    raw += chunk
                    if len(raw) > MAX_BODY:
                        return Reply("garbage", r.status_code, None, "", f"HTTP {r.status_code}: the body is larger "
                                     f"than {MAX_BODY} bytes", attempt), None
                status, retry_after = r.status_code, r.headers.get("retry-after")
        except httpx.TimeoutException as e:
            return Reply("timeout", None, None, "", f"no answer within {self.timeout:g} s ({type(e).__name__})",
                         attempt), None
        except (httpx.TransportError, httpx.DecodingError) as e:
            why = _transport_detail(e)
            return Reply("dropped", None, None, "", f"{why} (after {attempt} attempt{'s' * (attempt > 1)})",
                         attempt), self._backoff(attempt)
        text = raw[:300].decode("utf-8", "replace")
        if status == 429 or status >= 500:
            detail = f"HTTP {status}: {one_line(text) or '(empty body)'} (after {attempt} attempt{'s' * (attempt > 1)})"
            return Reply("server-error", status, None, text, detail, attempt), self._backoff(attempt, retry_after)
        try:
            body = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            body, parsed = None, False
        else:
            parsed = True
        if 200 <= status < 300:
            if not parsed:
                return Reply("garbage", status, None, text, f"HTTP {status} but the body is not JSON: "
                             f"{one_line(text, 80) or '(empty)'}", attempt), None
            return Reply("json", status, body, text, f"HTTP {status}", attempt), None
        if 400 <= status < 500:
            return Reply("refused", status, body, text, f"HTTP {status}: {one_line(text) or '(empty body)'}",
                         attempt), None
        return Reply("garbage", status, None, text, f"unexpected HTTP {status}: {one_line(text, 80)}", attempt), None

    def close(self) -> None:
        self._client.close()


def _when_written(call: Callable[[], Any]):
    """An httpcore ``trace`` callback (httpx's documented request extension) that calls
    ``call`` when the request body is written: httpcore's event ``http11.`` (or ``http2.``)
    ``send_request_body.complete``, after which it reads the answer."""
    def trace(name: str, info: dict) -> None:
        if name.endswith("send_request_body.complete"):
            call()
    return trace


def _transport_detail(e: Exception) -> str:
    text = one_line(str(e), 120)
    if isinstance(e, httpx.ConnectError):
        if "refused" in text.lower():
            return "connection refused"
        return f"cannot connect: {text or type(e).__name__}"
    if isinstance(e, httpx.RemoteProtocolError):
        return f"connection closed without a complete answer: {text or type(e).__name__}"
    return f"{type(e).__name__}: {text}" if text else type(e).__name__
