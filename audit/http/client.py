"""The HTTP client of ``--http``: a scoring service is untrusted, so every way a request can
go wrong becomes a ``Reply`` (never an exception), except a user mistake (a bad URL, bad
headers, an exhausted ``--max-requests`` budget), which is one ``UsageError`` line.

* **Timeouts**: ``timeout`` seconds to connect and send a request (one deadline), then
  ``timeout`` seconds for its *whole* answer, status line to last byte (a fresh deadline set
  when the request is written: ``transport.deadline``), and to wait for a pooled connection.
  A service that does not answer in time -- a hang, or a valid answer sent a byte at a time --
  gives a ``timeout`` reply (hang detection, the only decision here that reads the clock).
  Timeouts are not retried.
* **Retries** of 429 and 5xx answers and of dropped or refused connections, at most
  ``retries`` times per request, after an exponential backoff or the ``Retry-After`` the
  service asked for, each wait at most ``min(backoff_cap, timeout)`` seconds (an HTTP date
  counts as that cap: no clock is read to decide).  The waits of all requests together stop
  at ``retry_budget`` seconds (``RETRY_BUDGET_TIMEOUTS`` times ``timeout``): after that a
  429/5xx or dropped connection is final at once, so a service that asks every request to
  come back later costs seconds, not hours.  How *many* attempts a request gets depends only
  on what the service answered, never on how long anything took: a slow machine sees the
  same replies.
* **Concurrency**: ``map`` sends up to ``concurrency`` requests at once and returns the
  replies in request order.
* **Work while the service works**: ``send(..., on_written=f)`` calls ``f`` in the sending
  thread once the request is written and before the answer is read, so the caller's own
  computation overlaps the service's with no thread and no lock (the answer waits in the
  socket; the answer's deadline starts after ``f``).
* **Budget**: ``max_requests`` requests (retries not counted: a flapping service must not
  change what an audit sends) then ``RequestBudgetExhausted``.
* **Hostile answers**: a body over ``MAX_BODY`` bytes, not JSON, or nested deeper than
  ``MAX_DEPTH`` is a ``garbage`` reply; the member names an object repeats are listed in
  ``Reply.duplicates`` (an answer with a repeated key is invalid: which value counts depends
  on the reader).
* **Secrets**: the header values sent on the user's behalf and the URL's credentials are
  redacted from every reply (``secrets.Redactor``): the reply is where a service's text
  enters the audit's records.

Headers come from the environment (``headers_from_env``) and are never written anywhere.
"""

from __future__ import annotations

import dataclasses
import email.utils
import json
import re
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Callable, Optional

import httpx

from ..settings import options
from ..errors import UsageError
from ..files.jsontext import nested_deeper
from .headers import HEADERS_ENV, TOKEN_ENV, check_header, headers_from_env, secret_values  # noqa: F401 (API)
from .secrets import Redactor, masked_url, url_secrets
from .transport import DeadlineTransport, deadline, set_deadline

MAX_BODY = 16 * 1024 * 1024
#: deeper JSON is no answer of a contract (and would exhaust Python's stack downstream)
MAX_DEPTH = 64
#: the retry waits of one client stop at this many times its timeout, all requests together
RETRY_BUDGET_TIMEOUTS = 6


class RequestBudgetExhausted(UsageError):
    """``--max-requests`` was reached before the audit was done."""


def count_request(client) -> None:
    """One more request of ``client`` (its ``_lock``, ``requests``, ``max_requests``), or
    RequestBudgetExhausted when ``--max-requests`` is spent (retries are not counted)."""
    with client._lock:
        if client.max_requests is not None and client.requests >= client.max_requests:
            raise RequestBudgetExhausted(
                f"--max-requests {client.max_requests} reached before the audit was done (retries not "
                f"counted); raise it or lower --max-examples")
        client.requests += 1

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
    duplicates: tuple = ()  # member names the answer repeats in one object (JSON), first few
    #: "" when the service gave it; else the fault budget presumed it without a request
    #: ("skipped") or from a hang of a derived limit ("unconfirmed"): never evidence
    #: (``audit.adapters.service_faults``)
    presumed: str = ""

    @property
    def refusal(self) -> bool:
        return self.kind == "refused"


def one_line(text: str, limit: int = 200) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def check_url(url: str) -> httpx.URL:
    """The service URL, or a one-line UsageError (not http(s), no host, no valid port,
    unparsable) that never echoes the URL's credentials."""
    shown = masked_url(url)
    try:
        parsed = httpx.URL(url)
        port = parsed.port
    except (httpx.InvalidURL, TypeError, ValueError) as e:
        raise UsageError(f"--http {shown!r}: not a URL ({masked_url(str(e))})") from None
    if parsed.scheme not in ("http", "https") or not parsed.host:
        raise UsageError(f"--http {shown!r}: not an http:// or https:// URL with a host (an IPv6 address is "
                         "written in brackets: http://[::1]:8000/)")
    if port is not None and not 1 <= port <= 65535:
        raise UsageError(f"--http {shown!r}: port {port} is not a TCP port (1 to 65535)")
    return parsed


def refusal(url: str, wait: float = 5.0) -> Optional[str]:
    """Why ``url``'s host and port refuse a connection outright -- nothing listens there, no
    such host -- told at once, before a client (the MCP SDK's session) takes seconds to start
    and say so; None when a connection is accepted, or is slow (``wait`` seconds: a hang's
    timeout; the client's own timeout then decides)."""
    u = httpx.URL(url)
    port = u.port or {"http": 80, "https": 443}.get(u.scheme, 80)
    try:
        with socket.create_connection((u.host, port), timeout=wait):
            return None
    except ConnectionRefusedError:
        return f"nothing listens at {public_url(url).split('/')[2]} (connection refused)"
    except socket.gaierror as e:
        return f"no such host {u.host!r} ({e.strerror or e})"
    except OSError:
        return None


def public_url(url: str) -> str:
    """The URL as reports write it: no user name, password, query or fragment (they may
    hold credentials; put those in the headers, docs/http.md); an IPv6 host in brackets."""
    u = httpx.URL(url)
    port = f":{u.port}" if u.port else ""
    host = f"[{u.host}]" if ":" in u.host else u.host
    return f"{u.scheme}://{host}{port}{u.path}"


def _retry_after(value: Optional[str], cap: float) -> Optional[float]:
    """Seconds a Retry-After header asks for, at most ``cap`` (an HTTP date is ``cap``: the
    clock is not read to decide), or None (absent or unreadable)."""
    if not value:
        return None
    value = value.strip()
    if re.fullmatch(r"[0-9]+", value):  # delta-seconds (a float: 400 digits are inf, not an error)
        return min(float(value), cap)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    return None if when is None else cap


def parse_json(text: str) -> tuple[Any, tuple]:
    """(the JSON document, the member names an object repeats) -- ValueError when ``text``
    is not JSON or nests deeper than ``MAX_DEPTH``."""
    repeated: list = []

    def pairs(items):
        d = dict(items)
        if len(d) != len(items):
            seen: set = set()
            repeated.extend(k for k, _ in items if k in seen or seen.add(k))
        return d
    try:
        doc = json.loads(text, object_pairs_hook=pairs)
    except RecursionError:
        raise ValueError("nested too deeply") from None
    if nested_deeper(doc, MAX_DEPTH):
        raise ValueError(f"nested deeper than {MAX_DEPTH} levels")
    return doc, tuple(dict.fromkeys(repeated))[:8]


class HttpClient:
    """One service endpoint, shared by every request of an audit."""

    def __init__(self, url: str, *, method: str = "POST", timeout: float = options.default("timeout"),
                 concurrency: int = options.default("http_concurrency"), retries: int = options.default("http_retries"),
                 max_requests: Optional[int] = None, headers: Optional[dict] = None, backoff: float = 0.05,
                 backoff_cap: float = 2.0, retry_after_cap: Optional[float] = None, retry_budget: Optional[float] = None,
                 secrets: tuple = (), sleep: Callable[[float], None] = time.sleep,
                 transport: Optional[httpx.BaseTransport] = None):
        parsed = check_url(url)
        self.url = str(parsed)
        self.method = method
        self.timeout = float(timeout)
        self.concurrency = max(1, int(concurrency))
        self.retries = max(0, int(retries))
        self.max_requests = max_requests
        self.backoff = backoff
        #: no wait (backoff or Retry-After) is longer than this
        self.wait_cap = min(backoff_cap, self.timeout) if retry_after_cap is None else retry_after_cap
        self.backoff_cap = min(backoff_cap, self.wait_cap)
        self.retry_budget = RETRY_BUDGET_TIMEOUTS * self.timeout if retry_budget is None else retry_budget
        self.sleep = sleep
        self.requests = 0  # logical requests sent (the budget)
        self.attempts = 0  # including retries
        self.retried = 0
        self.waited = 0.0  # seconds of retry waits decided (not measured), all requests together
        self._lock = threading.Lock()
        headers = dict(headers or {})
        self.redact = Redactor([*secrets, *url_secrets(parsed)])
        if transport is None:
            # headers and body leave in two writes: without TCP_NODELAY the second waits for
            # the peer's delayed ACK (~40 ms a request on Linux loopback)
            transport = DeadlineTransport(limits=httpx.Limits(
                max_connections=self.concurrency, max_keepalive_connections=self.concurrency),
                socket_options=[(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)])
        self._client = httpx.Client(
            timeout=httpx.Timeout(self.timeout), headers=headers, transport=transport,
            limits=httpx.Limits(max_connections=self.concurrency, max_keepalive_connections=self.concurrency),
            follow_redirects=False, trust_env=False)

    # -- sending ------------------------------------------------------------------------------
    def send(self, body: Any, headers: Optional[dict] = None, on_written: Optional[Callable[[], Any]] = None,
             timeout: Optional[float] = None) -> Reply:
        """One request (``body`` as JSON, or raw bytes) with its retries.  ``on_written`` is
        called at most once: when the first attempt's request is written, before its answer
        is read (not at all if that attempt fails before, so the caller's work must not
        depend on it having run; what it raises, ``send`` raises).  ``timeout``: this
        request's, at most the client's (the fault budget's derived limit)."""
        count_request(self)
        data = body if isinstance(body, bytes) else json.dumps(body, ensure_ascii=True).encode("ascii")
        attempt = 0
        while True:
            attempt += 1
            with self._lock:
                self.attempts += 1
            reply, wait = self._attempt(data, headers or {}, attempt, on_written if attempt == 1 else None,
                                        self.timeout if timeout is None else min(timeout, self.timeout))
            if wait is None or attempt > self.retries:
                return reply
            with self._lock:
                left = self.retry_budget - self.waited
                if left <= 0:
                    return dataclasses.replace(reply, detail=f"{reply.detail}; no retry: the retry waits reached "
                                                             f"their total of {self.retry_budget:g} s")
                wait = min(wait, left)
                self.waited += wait
                self.retried += 1
            self.sleep(wait)

    def map(self, bodies: list, headers: Optional[dict] = None, timeout: Optional[float] = None) -> list[Reply]:
        """Replies to ``bodies``, in order, up to ``concurrency`` requests in flight."""
        if len(bodies) <= 1 or self.concurrency == 1:
            return [self.send(b, headers, timeout=timeout) for b in bodies]
        with ThreadPoolExecutor(max_workers=min(self.concurrency, len(bodies))) as pool:
            return list(pool.map(lambda b: self.send(b, headers, timeout=timeout), bodies))

    def _backoff(self, attempt: int, retry_after: Optional[str] = None) -> float:
        asked = _retry_after(retry_after, self.wait_cap)
        if asked is not None:
            return asked
        return min(self.backoff * 2 ** (attempt - 1), self.backoff_cap)

    def _attempt(self, data: bytes, headers: dict, attempt: int, on_written: Optional[Callable[[], Any]],
                 timeout: float) -> tuple[Reply, Optional[float]]:
        """(reply, seconds to wait before a retry or None: final)."""
        h = {"Content-Type": "application/json", **headers}
        extensions = {"trace": _when_written(on_written, timeout)}
        started = False  # the answer's status line and headers came
        try:
            with deadline(time.monotonic() + timeout):
                with self._client.stream(self.method, self.url, content=data, headers=h, extensions=extensions) as r:
                    started = True
                    raw = b""
                    for chunk in r.iter_bytes():
                        raw += chunk
                        if len(raw) > MAX_BODY:
                            return self._reply("garbage", r.status_code, None, "", f"HTTP {r.status_code}: the body "
                                               f"is larger than {MAX_BODY} bytes", attempt), None
                    status, retry_after = r.status_code, r.headers.get("retry-after")
        except httpx.TimeoutException as e:
            what = "the whole answer" if started else "an answer"
            return self._reply("timeout", None, None, "", f"no answer within {timeout:g} s ({what} did not "
                               f"come in time: {type(e).__name__})", attempt), None
        except (httpx.TransportError, httpx.DecodingError) as e:
            why = _transport_detail(e)
            return self._reply("dropped", None, None, "", f"{why} (after {attempt} attempt{'s' * (attempt > 1)})",
                               attempt), self._backoff(attempt)
        try:
            decoded, utf8 = raw.decode("utf-8"), True
        except UnicodeDecodeError:
            decoded, utf8 = raw.decode("utf-8", "replace"), False
        if status == 429 or status >= 500:
            text = self.redact.text(decoded)
            detail = f"HTTP {status}: {one_line(text) or '(empty body)'} (after {attempt} attempt{'s' * (attempt > 1)})"
            return self._reply("server-error", status, None, text, detail, attempt), self._backoff(attempt, retry_after)
        body, parsed, dups, why = None, False, (), "not JSON"
        if utf8:
            try:
                body, dups = parse_json(decoded)
                parsed = True
            except ValueError as e:
                why = f"not JSON ({e})" if "nested" in str(e) else why
        if parsed and self.redact:
            body = self.redact.value(body)
            # what a report quotes of a JSON answer is the redacted document, not its text, whose
            # escapes could spell a secret no literal match finds
            text = json.dumps(body, ensure_ascii=False)
        else:
            text = self.redact.text(decoded)
        if 200 <= status < 300:
            if not parsed:
                return self._reply("garbage", status, None, text, f"HTTP {status} but the body is {why}: "
                                   f"{one_line(text, 80) or '(empty)'}", attempt), None
            return self._reply("json", status, body, text, f"HTTP {status}", attempt, dups), None
        if 400 <= status < 500:
            return self._reply("refused", status, body if parsed else None, text,
                               f"HTTP {status}: {one_line(text) or '(empty body)'}", attempt, dups), None
        return self._reply("garbage", status, None, text, f"unexpected HTTP {status}: {one_line(text, 80)}", attempt), None

    def _reply(self, kind: str, status, body, text: str, detail: str, attempt: int, dups: tuple = ()) -> Reply:
        """A reply with its text at most 300 characters, everything redacted."""
        r = self.redact
        return Reply(kind, status, body, r.text(text[:300]), r.text(detail), attempt, tuple(r.text(k) for k in dups))

    def close(self) -> None:
        self._client.close()


def _when_written(call: Optional[Callable[[], Any]], timeout: float):
    """An httpcore ``trace`` callback (httpx's documented request extension) for the moment
    the request body is written (httpcore's event ``http11.`` (or ``http2.``)
    ``send_request_body.complete``, after which it reads the answer): it calls ``call``, then
    gives the whole answer ``timeout`` seconds from then."""
    def trace(name: str, info: dict) -> None:
        if name.endswith("send_request_body.complete"):
            if call is not None:
                call()
            set_deadline(time.monotonic() + timeout)
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
