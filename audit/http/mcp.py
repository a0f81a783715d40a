"""The MCP client of ``--mcp``: a tool of a Model Context Protocol server (streamable HTTP, the
official ``mcp`` SDK) called like ``HttpClient`` sends requests, every call ending in a
``Reply`` (never an exception) but for a user mistake (one ``UsageError`` line).

The contract's request body becomes the tool's ``input`` (``Contract.mcp_arguments``:
``execute`` called with ``{id, version, input}``); the tool's answer is the same JSON the
HTTP transport answers, read from the result's structured content (or its one JSON text).
How a result becomes a ``Reply``:

* ``isError`` with the SDK's crash text (``Error executing tool execute``, nothing after it:
  ``mcp.server.mcpserver`` hides a crash's exception so) -> ``server-error``;
* any other ``isError`` result -> ``refused`` (the text's JSON, after the SDK's
  ``Error executing tool NAME:`` prefix, as the body when it is JSON);
* JSON-RPC errors: invalid params or an unparsable request -> ``refused``; the SDK's timeout
  -> ``timeout``; a closed connection -> ``dropped``; anything else (an HTTP 5xx becomes
  one) -> ``server-error``; a result that is not MCP's, or whose JSON is not an answer ->
  ``garbage``.

The SDK is asynchronous: one session lives on an event loop in a thread of its own (an
anyio blocking portal) for the client's life, opened at the first call and again after a
connection is lost; ``map`` keeps up to ``concurrency`` calls in flight on it (each call
carries up to ``max_segments`` segments: MCP has no batch of calls).  Bounds: ``timeout`` for
opening the session and for each call's whole answer (the SDK's read timeout, and twice it
as a backstop); a body over ``MAX_BODY`` bytes is cut (``garbage``); retries and their total
wait as ``HttpClient``'s (no ``Retry-After``: the SDK does not show the status line);
``close`` ends the session, the loop and its thread.  The SDK's own log is silenced (a
hostile server's garbage must not print tracebacks).

**The tool's schemas.**  Each session lists the server's tools as it opens (so the SDK, which
validates a tool's results against its ``outputSchema``, never lists them unchecked) and
hands the audited tool's ``inputSchema`` and ``outputSchema`` to ``schema_problem`` (given by
the adapter: ``audit.contract.references.problem``): a schema that refers outside itself or
in a loop is refused before any call, one line (``SchemaRefused``).
"""

from __future__ import annotations

import json
import logging
import threading
import time
from typing import Any, Callable, Optional

from ..errors import UsageError
from .client import MAX_BODY, RETRY_BUDGET_TIMEOUTS, Reply, count_request, one_line, parse_json
from .mcp_transport import CALL as _CALL, http_client as _http_client
from .secrets import Redactor, url_secrets

#: how the SDK's streamable HTTP client words an answer it could not read (it makes a JSON-RPC
#: error of it): not a refusal by the server but no answer
_NOT_AN_ANSWER = ("Unexpected content type", "Failed to parse JSON response", "server answered a request with 202",
                  "SSE stream failed")


def _quiet() -> None:
    for name in ("mcp", "mcp_types", "httpx2", "httpcore2", "sse_starlette"):
        log = logging.getLogger(name)
        log.addHandler(logging.NullHandler())
        log.propagate = False
        log.setLevel(logging.CRITICAL + 1)


class McpClient:
    """One tool of one MCP server, shared by every call of an audit (``HttpClient``'s
    interface: ``send``, ``map``, ``requests``, ``retried``, ``close``)."""

    def __init__(self, url: str, tool: str, arguments: Callable[[Any], dict], *, timeout: float = 30.0,
                 concurrency: int = 4, retries: int = 3, max_requests: Optional[int] = None,
                 headers: Optional[dict] = None, secrets: tuple = (), backoff: float = 0.05,
                 backoff_cap: float = 2.0, sleep: Callable[[float], None] = time.sleep,
                 schema_problem: Optional[Callable[[Any], Optional[str]]] = None):
        from .client import check_url

        parsed = check_url(url)
        self.url, self.tool, self.arguments = str(parsed), tool, arguments
        self.timeout = float(timeout)
        self.concurrency = max(1, int(concurrency))
        self.retries = max(0, int(retries))
        self.max_requests = max_requests
        self.backoff, self.backoff_cap = backoff, min(backoff_cap, self.timeout)
        self.retry_budget = RETRY_BUDGET_TIMEOUTS * self.timeout
        self.sleep = sleep
        self.requests = self.attempts = self.retried = 0
        self.waited = 0.0
        self.sessions = 0  # sessions opened (1, and one more after each lost connection)
        self.headers = dict(headers or {})
        self.schema_problem = schema_problem
        self.redact = Redactor([*secrets, *url_secrets(parsed)])
        self._lock = threading.Lock()
        self._portal_cm = None
        self._portal = None
        self._session = None  # the live _Session (on the portal's loop), or None
        self._opening = threading.Lock()

    # -- the session ----------------------------------------------------------------------------
    def _start(self):
        if self._portal is None:
            from anyio.from_thread import start_blocking_portal

            _quiet()
            self._portal_cm = start_blocking_portal()
            self._portal = self._portal_cm.__enter__()
        return self._portal

    def _live(self) -> "_Session":
        """The open session (opened now when there is none or it died); raises what opening
        it raised, TimeoutError after ``2 * timeout``."""
        portal = self._start()
        with self._opening:
            s = self._session
            if s is not None and not s.dead:
                return s
            if s is not None:
                self._session = None
                portal.call(s.stop)
            s = _Session(self)
            s.future, _ = portal.start_task(s.run)
            self._session = s
            self.sessions += 1
            return s

    def tools(self) -> list[str]:
        """The names of the server's tools (opens the session: a server that cannot be reached,
        is no MCP server, or gives the audited tool a schema ``schema_problem`` refuses, is a
        one-line UsageError)."""
        try:
            return list(self._live().tools)
        except Exception as e:  # noqa: BLE001 - any failure to connect is the user's one line
            raise UsageError(f"--mcp {self._shown()}: {self._why(e)}") from None

    def _refused(self, listed) -> Optional[str]:
        """Why a schema of the audited tool in ``listed`` (the SDK's tools) is refused, or None."""
        for t in listed:
            for key, schema in (("inputSchema", t.input_schema), ("outputSchema", t.output_schema)):
                why = self.schema_problem(schema) if t.name == self.tool and self.schema_problem else None
                if why:
                    return f"the {key} of tool {self.redact.text(one_line(t.name, 60))!r}: {self.redact.text(why)}"
        return None

    def _shown(self) -> str:
        from .client import public_url

        return public_url(self.url)

    def _why(self, e: BaseException) -> str:
        inner = _leaf(e)
        if isinstance(inner, SchemaRefused):
            return str(inner)
        if any(isinstance(x, TimeoutError) or type(x).__name__.endswith("Timeout") for x in (e, inner)):  # httpx's too
            return f"no answer within {2 * self.timeout:g} s"
        text = self.redact.text(one_line(str(inner) or type(inner).__name__, 160))
        if "refused" in text.lower():
            return "connection refused"
        if type(inner).__name__ == "ConnectError":
            return f"cannot connect ({text})"
        return f"no MCP session ({type(inner).__name__}: {text})"

    # -- calls ----------------------------------------------------------------------------------
    def send(self, body: Any, headers: Optional[dict] = None, on_written: Optional[Callable[[], Any]] = None,
             timeout: Optional[float] = None) -> Reply:
        """One tool call carrying ``body`` (the contract's request body) with its retries;
        ``on_written`` runs once the call is on its way, while the server answers; ``timeout``:
        this call's, at most the client's (the fault budget's derived limit)."""
        count_request(self)
        timeout = self.timeout if timeout is None else min(timeout, self.timeout)
        arguments = self.arguments(body)
        attempt = 0
        while True:
            attempt += 1
            with self._lock:
                self.attempts += 1
            try:
                session = self._live()
            except Exception as e:  # noqa: BLE001 - no session now: this attempt's reply
                reply = self._reply("dropped", None, "", f"{self._why(e)} (after {attempt} attempt"
                                    f"{'s' * (attempt > 1)})", attempt)
            else:
                future = self._portal.start_task_soon(self._call, session, arguments, attempt, timeout)
                if on_written is not None and attempt == 1:
                    on_written()
                reply = future.result()
            if reply.kind not in ("server-error", "dropped") or attempt > self.retries:
                return reply
            with self._lock:
                left = self.retry_budget - self.waited
                if left <= 0:
                    return Reply(reply.kind, reply.status, reply.body, reply.text,
                                 f"{reply.detail}; no retry: the retry waits reached their total of "
                                 f"{self.retry_budget:g} s", reply.attempts)
                wait = min(self.backoff * 2 ** (attempt - 1), self.backoff_cap, left)
                self.waited += wait
                self.retried += 1
            self.sleep(wait)

    def map(self, bodies: list, headers: Optional[dict] = None, timeout: Optional[float] = None) -> list[Reply]:
        """Replies to ``bodies``, in order, up to ``concurrency`` calls in flight."""
        if len(bodies) <= 1 or self.concurrency == 1:
            return [self.send(b, timeout=timeout) for b in bodies]
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=min(self.concurrency, len(bodies))) as pool:
            return list(pool.map(lambda b: self.send(b, timeout=timeout), bodies))

    async def _call(self, session, arguments: dict, attempt: int, timeout: float) -> Reply:
        import anyio

        state: dict = {"timeout": timeout}
        _CALL.set(state)
        try:
            with anyio.fail_after(2 * timeout):
                result = await session.client.call_tool(self.tool, arguments, read_timeout_seconds=timeout)
        except TimeoutError:
            return self._reply("timeout", None, "", f"no answer within {2 * timeout:g} s (the whole answer did "
                               "not come in time)", attempt)
        except Exception as e:  # noqa: BLE001 - whatever the server made of the call is a reply
            return self._failed(e, state, attempt, session)
        return self._result(result, attempt)

    def _failed(self, e: BaseException, state: dict, attempt: int, s) -> Reply:
        from mcp.shared.exceptions import MCPError
        from mcp_types import (CONNECTION_CLOSED, INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND, PARSE_ERROR,
                               REQUEST_TIMEOUT)

        if state.get("oversized"):
            if s is not None:
                s.dead = True
            return self._reply("garbage", None, "", f"the answer is larger than {MAX_BODY} bytes", attempt)
        tries = f"(after {attempt} attempt{'s' * (attempt > 1)})"
        inner = _leaf(e)
        if isinstance(inner, MCPError):
            message = one_line(inner.message, 160)
            if inner.code == REQUEST_TIMEOUT:
                return self._reply("timeout", None, "", f"no answer within {state['timeout']:g} s (the whole answer "
                                   f"did not come in time: {message})", attempt)
            if inner.code == CONNECTION_CLOSED:
                if s is not None:
                    s.dead = True
                return self._reply("dropped", None, "", f"connection closed without a complete answer: {message} "
                                   f"{tries}", attempt)
            if message.startswith(_NOT_AN_ANSWER):  # the SDK's words for an answer it could not read
                return self._reply("garbage", None, message, f"the answer is not MCP's: {message}", attempt)
            if inner.code in (INVALID_PARAMS, PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND):
                return self._reply("refused", None, message, f"JSON-RPC error {inner.code}: {message}", attempt)
            return self._reply("server-error", None, message, f"JSON-RPC error {inner.code}: {message} {tries}",
                               attempt)
        if s is not None:
            s.dead = True
        if type(inner).__name__ == "ValidationError":
            return self._reply("garbage", None, "", f"the answer is not an MCP result: {one_line(str(inner), 120)}",
                               attempt)
        return self._reply("dropped", None, "", f"{type(inner).__name__}: {one_line(str(inner), 120)} {tries}", attempt)

    def _result(self, result, attempt: int) -> Reply:
        texts = [c.text for c in (result.content or []) if getattr(c, "type", None) == "text"]
        text = "\n".join(texts)
        if result.is_error:
            crash = f"Error executing tool {self.tool}"
            if text == crash or text.startswith(crash + ": " + crash):
                return self._reply("server-error", None, text, f"the tool crashed ({one_line(text, 80)})", attempt)
            prefix = crash + ": "
            inner = text[len(prefix):] if text.startswith(prefix) else text
            try:
                body, _ = parse_json(inner)
            except ValueError:
                body = None
            return self._reply("refused", None, text, f"tool error: {one_line(text) or '(no text)'}", attempt,
                               body=body)
        structured = result.structured_content
        parsed, dups = None, ()
        if len(texts) == 1:
            try:
                parsed, dups = parse_json(texts[0])
            except ValueError:
                parsed = None
        if structured is not None and parsed is not None and parsed != structured:
            return self._reply("garbage", None, text, "the result's structured content and its JSON text differ",
                               attempt)
        body = structured if structured is not None else parsed
        if body is None:
            return self._reply("garbage", None, text, f"the result holds no JSON answer: {one_line(text, 80) or '(empty)'}",
                               attempt)
        return self._reply("json", None, json.dumps(body, ensure_ascii=False), "tool result", attempt, body=body,
                           dups=dups)

    def _reply(self, kind: str, status, text: str, detail: str, attempt: int, body: Any = None, dups: tuple = ()) -> Reply:
        r = self.redact
        if body is not None and r:
            body = r.value(body)
            text = json.dumps(body, ensure_ascii=False)
        return Reply(kind, status, body, r.text(text[:300]), r.text(detail), attempt, tuple(r.text(k) for k in dups))

    def close(self) -> None:
        portal, cm = self._portal, self._portal_cm
        self._portal = self._portal_cm = None
        if portal is None:
            return
        try:
            if self._session is not None:
                portal.call(self._session.stop)
        except Exception:  # noqa: BLE001 - a server that fails to end its session: the loop ends anyway
            pass
        finally:
            self._session = None
            try:
                cm.__exit__(None, None, None)
            except Exception:  # noqa: BLE001 - what a dead session left in the loop ends with it
                pass


class _Session:
    """One MCP session, entered and left by one task of the portal (anyio's rule for the SDK's
    task groups: ``run``, started by ``McpClient._live``); calls use it from other tasks."""

    def __init__(self, owner: McpClient):
        self.owner = owner
        self.client = None
        self.tools: list = []  # the names of the server's tools, listed as the session opened
        self.dead = False
        self.future = None
        self._stop = None
        self._done = None

    async def run(self, *, task_status) -> None:
        import math

        import anyio
        from mcp import Client
        from mcp.client.streamable_http import streamable_http_client

        o = self.owner
        self._stop, self._done = anyio.Event(), anyio.Event()
        failed: Optional[BaseException] = None
        try:
            with anyio.CancelScope() as scope:
                scope.deadline = anyio.current_time() + 2 * o.timeout  # for opening the session
                http = _http_client(o.timeout, o.headers)
                async with http:
                    transport = streamable_http_client(o.url, http_client=http, max_sse_event_size=MAX_BODY)
                    async with Client(transport, cache=None, read_timeout_seconds=o.timeout) as client:
                        listed = (await client.list_tools()).tools
                        why = o._refused(listed)
                        if why:
                            raise SchemaRefused(why)
                        self.tools = [t.name for t in listed]
                        scope.deadline = math.inf
                        self.client = client
                        task_status.started()
                        await self._stop.wait()
        except Exception as e:  # noqa: BLE001 - the session's end, however it came (groups included)
            failed = e
        finally:
            self.dead = True
            self._done.set()
        if self.client is None:  # never opened: what start_task raises in the calling thread
            raise failed or TimeoutError(f"no MCP session within {2 * o.timeout:g} s")

    async def stop(self) -> None:
        import anyio

        if self._stop is None:
            return
        self._stop.set()
        with anyio.move_on_after(self.owner.timeout):
            await self._done.wait()


class SchemaRefused(Exception):
    """A schema of the audited tool refers outside itself or in a loop (its one line)."""


def _leaf(e: BaseException) -> BaseException:
    """The first exception inside exception groups."""
    while isinstance(e, BaseExceptionGroup) and e.exceptions:
        e = e.exceptions[0]
    return e
