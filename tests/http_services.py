"""Scoring services to audit over loopback: the reference service of examples/chrf_service.py,
and copies with one planted bug or one transport fault each.

    python tests/http_services.py NAME     # prints "listening on http://127.0.0.1:PORT/"

``running(name)`` starts one in a subprocess (its own session) on a free port of 127.0.0.1 and
stops it (the whole process group) on exit; nothing is left behind.
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


BUGS = {"half-up": HalfUp, "unreduced-fraction": Unreduced, "ascii-whitespace": AsciiWhitespace,
        "every-punctuation": EveryPunctuation, "257-segments": TooManySegments,
        "surrogate-500": SurrogateCrash, "cache-by-hypotheses": CacheByHypotheses}


# -- transport faults: ASGI middleware around the healthy service ------------------------------
class Faulty:
    """``fault(n, body)`` -> None (serve normally) or what to do with the n-th request."""

    def __init__(self, app, fault):
        self.app, self.fault, self.count = app, fault, 0

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        self.count += 1
        body = b""
        more = True
        while more:
            msg = await receive()
            body += msg.get("body", b"")
            more = msg.get("more_body", False)
        action = self.fault(self.count, body)

        async def replay():
            return {"type": "http.request", "body": body, "more_body": False}

        if action is None:
            return await self.app(scope, replay, send)
        kind, arg = action
        if kind == "status":
            await send({"type": "http.response.start", "status": arg, "headers": [(b"retry-after", b"0")]})
            return await send({"type": "http.response.body", "body": b"busy"})
        if kind == "sleep":
            import asyncio

            await asyncio.sleep(arg)
            return await self.app(scope, replay, send)
        if kind == "garbage":
            await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/html")]})
            return await send({"type": "http.response.body", "body": b"<html>oops</html>"})
        if kind == "drop":  # a response started and cut short: the connection is closed
            await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"1000")]})
            await send({"type": "http.response.body", "body": b'{"sco', "more_body": True})
            raise RuntimeError("connection dropped on purpose")
        raise AssertionError(kind)


def _has(body: bytes, text: str) -> bool:
    return text.encode() in body


FAULTS = {
    "flapping": lambda n, body: ("status", 503) if n % 3 == 0 else None,
    "dropping": lambda n, body: ("drop", None) if n % 4 == 0 else None,
    "slow": lambda n, body: ("sleep", 0.02),
    "hang-on-tilde": lambda n, body: ("sleep", 30) if _has(body, "~") else None,
    "garbage-on-tilde": lambda n, body: ("garbage", None) if _has(body, "~") else None,
    "always-503": lambda n, body: ("status", 503),
}


def app_for(name: str):
    """"healthy", a bug, a fault, or "bug+fault" (the bug behind the fault)."""
    bug, _, fault = name.partition("+") if "+" in name else ((name, "", "") if name in BUGS else ("", "", name))
    app = S.create_app(BUGS[bug]() if bug and bug != "healthy" else None)
    return Faulty(app, FAULTS[fault]) if fault and fault != "healthy" else app


#: marks are this test process's own (another suite on the machine, or another xdist worker,
#: may be running its services at the same time)
SESSION = f"-{os.getpid()}"


@contextlib.contextmanager
def running(name: str, mark: str = "chrf-http-test"):
    """The URL of service ``name`` on a free loopback port, for the ``with`` block."""
    env = dict(os.environ, CHRF_TEST_MARK=mark + SESSION, PYTHONUNBUFFERED="1")
    proc = subprocess.Popen([sys.executable, str(Path(__file__).resolve()), name], stdout=subprocess.PIPE,
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
            httpx.get(url + "contract", timeout=2)
            return
        except httpx.TransportError:
            time.sleep(0.05)


if __name__ == "__main__":
    S.serve(app_for(sys.argv[1]), "127.0.0.1", 0)
