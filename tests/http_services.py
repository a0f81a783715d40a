"""Scoring services to audit over loopback: the reference service of examples/chrf_service.py,
and copies with one planted bug or one transport fault each.

    python tests/http_services.py NAME [HOST]     # prints "listening on http://127.0.0.1:PORT/"

``running(name)`` starts one in a subprocess (its own session) on a free port of 127.0.0.1 (or
``host``: "::1" serves on IPv6 loopback, ``http://[::1]:PORT/``) and stops it (the whole
process group) on exit; nothing is left behind.  Faults act on the scoring requests (POST)
only: ``GET /contract`` is served as it is.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "examples"))

import chrf_service as S  # noqa: E402

from audit.contract.definition import Metric, decimal_text  # noqa: E402


# -- planted bugs: one overridden step each ----------------------------------------------------
class HalfUp(S.Service):
    def decimal(self, x):
        return decimal_text(x, 6, "half-up")


class Unreduced(S.Service):
    def fraction(self, x):
        return f"{x.numerator * 3}/{x.denominator * 3}"


class AsciiWhitespace(S.Service):
    """Removes only ASCII whitespace from the character n-grams (words are split right)."""

    def __init__(self):
        super().__init__()
        m = self.metric
        ascii_ws = frozenset(" \t\n\r\x0b\x0c")

        class _Metric(Metric):
            def chars(self, text):
                return "".join(c for c in text if c not in ascii_ws)

        self.metric = _Metric(m.char_order, m.word_order, m.whitespace, m.punctuation)


class EveryPunctuation(S.Service):
    """Splits every ASCII punctuation mark off both ends of a word, one token per mark."""

    def __init__(self):
        super().__init__()
        service = self

        class _Metric(Metric):
            def tokens(self, text):
                out = []
                for w in self._split.split(text):
                    lead, trail = [], []
                    while w and w[0] in self.punctuation:
                        lead.append(w[0])
                        w = w[1:]
                    while w and w[-1] in self.punctuation:
                        trail.insert(0, w[-1])
                        w = w[:-1]
                    out += lead + ([w] if w else []) + trail
                return out

        m = service.metric
        self.metric = _Metric(m.char_order, m.word_order, m.whitespace, m.punctuation)


class TooManySegments(S.Service):
    def __init__(self):
        super().__init__()
        self.max_segments = 257


class SurrogateCrash(S.Service):
    """Counts bytes with a strict encode: a lone surrogate raises, a 500."""

    def utf8_bytes(self, text):
        return len(text.encode("utf-8"))


class CacheByHypotheses(S.Service):
    """Caches answers keyed by the hypotheses only (references, beta and case forgotten)."""

    def __init__(self):
        super().__init__()
        self.cache = {}

    def answer(self, req):
        key = tuple(req["hypotheses"])
        if key not in self.cache:
            self.cache[key] = super().answer(req)
        return self.cache[key]


class ShortSegmentScores(S.Service):
    """With more than one segment, ``segment_scores`` is one item short and shifted: each
    position holds the next segment's score (the first segment's is lost)."""

    def answer(self, req):
        out = super().answer(req)
        if len(out["segment_scores"]) > 1:
            out["segment_scores"] = out["segment_scores"][1:]
        return out


class ShortWordTokens(S.Service):
    """With more than one segment, ``word_tokens`` is one item short and shifted."""

    def answer(self, req):
        out = super().answer(req)
        if len(out["word_tokens"]) > 1:
            out["word_tokens"] = out["word_tokens"][1:]
        return out


class ScoreNewline(S.Service):
    """Writes a score of zero as "0.000000\n" (the right digits, then a newline)."""

    def decimal(self, x):
        text = super().decimal(x)
        return text + "\n" if x == 0 else text


class HugeFraction(S.Service):
    """score_fraction with a 5001-digit numerator (more than Python's int() reads by default)."""

    def fraction(self, x):
        return "1" * 5001 + "/3"


class Truncated(S.Service):
    def decimal(self, x):
        return decimal_text(x, 6, "down")


class NoEffectiveOrder(S.Service):
    """Averages precision and recall over all 8 orders, effective or not."""

    def __init__(self):
        super().__init__()
        m = self.metric

        class _Metric(Metric):
            def score(self, stats, beta):
                from fractions import Fraction

                n = len(stats.hyp)
                p = sum((Fraction(x, h) for x, h in zip(stats.match, stats.hyp) if h), Fraction(0)) / n
                r = sum((Fraction(x, t) for x, t in zip(stats.match, stats.ref) if t), Fraction(0)) / n
                b2 = beta * beta
                return Fraction(0) if p + r == 0 else 100 * (1 + b2) * p * r / (b2 * p + r)

        self.metric = _Metric(m.char_order, m.word_order, m.whitespace, m.punctuation)


class LowercasedTokens(S.Service):
    """Scores as it should but writes every word token lowercased."""

    def answer(self, req):
        out = super().answer(req)
        out["word_tokens"] = [{k: [t.lower() for t in v] for k, v in item.items()} for item in out["word_tokens"]]
        return out


from chrf_sacrebleu_service import SacrebleuService  # noqa: E402  (a reading, not a bug)

BUGS = {"truncated": Truncated, "no-effective-order": NoEffectiveOrder, "lowercased-tokens": LowercasedTokens,
        "sacrebleu": SacrebleuService,
        "half-up": HalfUp, "unreduced-fraction": Unreduced, "ascii-whitespace": AsciiWhitespace,
        "every-punctuation": EveryPunctuation, "257-segments": TooManySegments,
        "surrogate-500": SurrogateCrash, "cache-by-hypotheses": CacheByHypotheses,
        "short-segment-scores": ShortSegmentScores, "short-word-tokens": ShortWordTokens,
        "score-newline": ScoreNewline, "huge-fraction": HugeFraction}


# -- transport faults: ASGI middleware around the healthy service ------------------------------
class Faulty:
    """``fault(n, body)`` -> None (serve normally) or what to do with the n-th request:
    ``("status", code | (code, retry_after))``, ``("sleep", s)``, ``("garbage", None)``,
    ``("drop", None)``, ``("drip", s)`` (the healthy answer a byte every s seconds),
    ``("rewrite", f)`` (the healthy answer's bytes through f), ``("raw", body | (code, body))``,
    ``("echo", "refusal" | "score" | "text")`` (the request's headers sent back)."""

    def __init__(self, app, fault):
        self.app, self.fault, self.count = app, fault, 0

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["method"] != "POST":  # GET /contract is served as it is
            return await self.app(scope, receive, send)
        self.count += 1
        body = b""
        more = True
        while more:
            msg = await receive()
            body += msg.get("body", b"")
            more = msg.get("more_body", False)
        action = self.fault(self.count, body)

        replayed = []

        async def replay():  # the body read above, then what the client does (an MCP server waits for it)
            if not replayed:
                replayed.append(True)
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        if action is None:
            return await self.app(scope, replay, send)
        kind, arg = action
        if kind == "status":  # a status (with Retry-After: 0) or (status, Retry-After)
            status, after = arg if isinstance(arg, tuple) else (arg, b"0")
            await send({"type": "http.response.start", "status": status, "headers": [(b"retry-after", after)]})
            return await send({"type": "http.response.body", "body": b"busy"})
        if kind in ("drip", "rewrite"):  # the healthy answer, sent a byte at a time or rewritten
            status, headers, answer = await _captured(self.app, scope, replay)
            if kind == "rewrite":
                answer = arg(answer)
                headers = [(k, v) for k, v in headers if k.lower() != b"content-length"]
                headers.append((b"content-length", str(len(answer)).encode()))
            await send({"type": "http.response.start", "status": status, "headers": headers})
            if kind == "rewrite":
                return await send({"type": "http.response.body", "body": answer})
            import asyncio

            for i in range(len(answer)):
                await send({"type": "http.response.body", "body": answer[i:i + 1], "more_body": True})
                await asyncio.sleep(arg)
            return await send({"type": "http.response.body", "body": b""})
        if kind == "raw":  # the body ``arg`` (with status 200) or ``(status, body)``
            status, raw = arg if isinstance(arg, tuple) else (200, arg)
            await send({"type": "http.response.start", "status": status,
                        "headers": [(b"content-type", b"application/json")]})
            return await send({"type": "http.response.body", "body": raw})
        if kind == "echo":  # the request's headers, echoed in a refusal, a score or a non-JSON answer
            seen = "; ".join(f"{k.decode('latin-1')}: {v.decode('latin-1')}" for k, v in scope["headers"])
            if arg == "refusal":
                status, answer = 400, json.dumps({"error": {"code": "bad-token", "message": f"not allowed: {seen}"}})
            elif arg == "score":
                status, headers, healthy = await _captured(self.app, scope, replay)
                status, answer = 200, json.dumps(dict(json.loads(healthy), score=seen))
            else:
                status, answer = 200, f"<html>who are you? {seen}</html>"
            await send({"type": "http.response.start", "status": status, "headers": []})
            return await send({"type": "http.response.body", "body": answer.encode()})
        if kind == "sleep":
            import asyncio

            await asyncio.sleep(arg)
            return await self.app(scope, replay, send)
        if kind == "garbage":
            await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/html")]})
            return await send({"type": "http.response.body", "body": b"<html>oops</html>"})
        if kind == "drop":  # a response started and cut short: the connection is closed
            await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"1000")] +
                        ([(b"content-type", b"application/json")] if arg == "json" else [])})
            await send({"type": "http.response.body", "body": b'{"sco', "more_body": True})
            raise RuntimeError("connection dropped on purpose")
        raise AssertionError(kind)


async def _captured(app, scope, receive) -> tuple:
    """(status, headers, body) of ``app``'s answer, not sent."""
    got = {"body": b""}

    async def keep(msg):
        if msg["type"] == "http.response.start":
            got["status"], got["headers"] = msg["status"], list(msg.get("headers") or [])
        else:
            got["body"] += msg.get("body", b"")
    await app(scope, receive, keep)
    return got["status"], got["headers"], got["body"]


def _has(body: bytes, text: str) -> bool:
    return text.encode() in body


def _mcp_call(body: bytes) -> bool:
    return _has(body, '"tools/call"') and _has(body, "~")


def _echo(n: int, body: bytes):
    """Echo the request's headers: in a refusal, in the score, in a non-JSON answer, in turn
    (requests holding "~": always a refusal)."""
    if n == 1:
        return None  # the preflight: answered, so the audit starts
    return ("echo", "refusal" if _has(body, "~") else ("refusal", "score", "text")[n % 3])


def _schema_ref(answer: bytes) -> bytes:
    """A tools/list answer whose ``CHRF_TEST_SCHEMA_KEY`` (default outputSchema) starts with
    ``"$ref": CHRF_TEST_SCHEMA_REF``."""
    key = os.environ.get("CHRF_TEST_SCHEMA_KEY", "outputSchema")
    ref = json.dumps(os.environ["CHRF_TEST_SCHEMA_REF"])
    return answer.replace(f'"{key}":{{'.encode(), f'"{key}":{{"$ref":{ref},'.encode(), 1)


def _after_first_call(action):
    """``action`` for every tools/call but the first (the request before the audit)."""
    calls = []

    def fault(n, body):
        if _has(body, '"tools/call"'):
            calls.append(n)
            return action if len(calls) > 1 else None
        return None
    return fault


FAULTS = {
    "flapping": lambda n, body: ("status", 503) if n % 3 == 0 else None,
    "dropping": lambda n, body: ("drop", None) if n % 4 == 0 else None,
    "slow": lambda n, body: ("sleep", 0.02),
    "hang-on-tilde": lambda n, body: ("sleep", 30) if _has(body, "~") else None,
    "garbage-on-tilde": lambda n, body: ("garbage", None) if _has(body, "~") else None,
    "always-503": lambda n, body: ("status", 503),
    "drip": lambda n, body: ("drip", 0.2),
    "drip-on-tilde": lambda n, body: ("drip", 0.2) if _has(body, "~") else None,
    "drip-after-preflight": lambda n, body: None if n == 1 else ("drip", 0.2),
    "retry-after-forever": lambda n, body: ("status", (429, b"999999")),
    "retry-after-9999": lambda n, body: ("status", (429, b"Fri, 31 Dec 9999 23:59:59 GMT")),
    "nested": lambda n, body: ("raw", b"[" * 200_000),
    "duplicate-keys": lambda n, body: ("rewrite", lambda a: a.replace(b'{"result": {"metric"',
                                                                      b'{"result": {"score": "99.000000", "metric"', 1)),
    "escape-on-tilde": lambda n, body: ("raw", (400, b'{"error": "\x1b]0;owned\x07\x1b[2J"}'))
    if _has(body, "~") else None,
    "echo": _echo,
    # MCP (tools/call requests holding "~"): no answer, an answer that is not MCP's, a connection
    # cut mid-answer, an answer over 16 MiB
    "mcp-hang-on-tilde": lambda n, body: ("sleep", 30) if _mcp_call(body) else None,
    "hang": lambda n, body: ("sleep", 30),
    "mcp-hang-after-preflight": _after_first_call(("sleep", 30)),
    "mcp-garbage-on-tilde": lambda n, body: ("garbage", None) if _mcp_call(body) else None,
    "mcp-drop-on-tilde": lambda n, body: ("drop", "json") if _mcp_call(body) else None,
    # the audited tool's schema with a $ref (CHRF_TEST_SCHEMA_REF) in its tools/list answer
    "mcp-schema-ref": lambda n, body: ("rewrite", _schema_ref) if _has(body, '"tools/list"') else None,
    "mcp-huge-on-tilde": lambda n, body: ("raw", b"[" + b" " * (17 << 20) + b"]") if _mcp_call(body) else None,
}


def app_for(name: str, mcp: bool = False):
    """"healthy", a bug, a fault, or "bug+fault" (the bug behind the fault); ``mcp``: the
    service's MCP transport too (``/mcp``)."""
    bug, _, fault = name.partition("+") if "+" in name else ((name, "", "") if name in BUGS else ("", "", name))
    app = S.create_app(BUGS[bug]() if bug and bug != "healthy" else None, mcp=mcp)
    return Faulty(app, FAULTS[fault]) if fault and fault != "healthy" else app


class HeadersLog:
    """ASGI middleware appending the headers of every HTTP request (one JSON object a line) to
    ``path``: what a service was sent (``running(..., headers_log=PATH)``)."""

    def __init__(self, app, path: str):
        self.app, self.path = app, path

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http":
            seen = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
            with open(self.path, "a", encoding="utf-8") as f:
                f.write(json.dumps(dict(seen, **{":path": scope["path"]})) + "\n")
        return await self.app(scope, receive, send)


#: marks are this test process's own (another suite on the machine, or another xdist worker,
#: may be running its services at the same time)
SESSION = f"-{os.getpid()}"


@contextlib.contextmanager
def running(name: str, mark: str = "chrf-http-test", host: str = "127.0.0.1", mcp: bool = False,
            headers_log=None):
    """The URL of service ``name`` on a free loopback port, for the ``with`` block (``mcp``:
    its MCP transport is at URL + "mcp"; ``headers_log``: a file the headers of every request
    are appended to, ``HeadersLog``)."""
    env = dict(os.environ, CHRF_TEST_MARK=mark + SESSION, PYTHONUNBUFFERED="1")
    if headers_log is not None:
        env["CHRF_TEST_HEADERS_LOG"] = str(headers_log)
    proc = subprocess.Popen([sys.executable, str(Path(__file__).resolve()), name, host] + ["--mcp"] * mcp,
                            stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, start_new_session=True, env=env, cwd=str(ROOT))
    try:
        line = proc.stdout.readline().decode()
        if not line.startswith("listening on "):
            raise RuntimeError(f"service {name} did not start: {line!r}")
        url = line.split()[-1]
        _wait_ready(url)
        yield url
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)
        proc.stdout.close()


def _wait_ready(url: str) -> None:
    import httpx

    for _ in range(200):  # hang detection only: the socket is bound before the line is printed
        try:
            httpx.get(url + "v1/tools/chrf-plus-plus-compute/versions/1.0.0", timeout=2)
            return
        except httpx.TransportError:
            time.sleep(0.05)


if __name__ == "__main__":
    _app = app_for(sys.argv[1], "--mcp" in sys.argv)
    if os.environ.get("CHRF_TEST_HEADERS_LOG"):
        _app = HeadersLog(_app, os.environ["CHRF_TEST_HEADERS_LOG"])
    S.serve(_app, sys.argv[2] if len(sys.argv) > 2 else "127.0.0.1", 0)
