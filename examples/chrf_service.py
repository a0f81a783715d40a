"""A reference chrf-plus-plus-compute 1.0.0 service (seeds/004), to audit and to learn from.

    pip install -e '.[service]'                        # in the chrf-audit checkout
    python examples/chrf_service.py --port 8000          # POST http://127.0.0.1:8000/, MCP at /mcp
    chrf-audit run --http http://127.0.0.1:8000/ --contract chrf-plus-plus-compute@1.0.0
    chrf-audit run --mcp http://127.0.0.1:8000/mcp --tool chrf-plus-plus-compute@1.0.0

Starlette on uvicorn.  The arithmetic is the contract's metric as ``audit.contract.definition``
computes it on ``reference_impl``'s pure functions (exact fractions); this file is only the
I/O: JSON in, the contract's validation in its stated order, the answer in the published
example's envelope out (``{"result": {...}}``).  A refusal is HTTP 400 with ``{"error":
{"code", "message"}}``.  The same service is an MCP server (``/mcp``, streamable HTTP, the
official SDK): the tool ``execute`` called with ``{id, version, input}``.  The machine-readable
contract is at its versioned path (``GET /v1/tools/chrf-plus-plus-compute/versions/1.0.0``).  ``Service`` keeps each step a method, so a test
can plant a bug by overriding one (tests/http_services.py).

``--port 0`` takes a free port; the first line printed is ``listening on <URL>``.
"""

from __future__ import annotations

import argparse
import json
import re
import socket
import sys
from pathlib import Path
from typing import Any, Optional

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout without installing

from audit.contract import load  # noqa: E402
from audit.contract.definition import decimal_text, fraction_text  # noqa: E402

CONTRACT = "chrf-plus-plus-compute@1.0.0"
KEYS = ("hypotheses", "references", "beta", "lowercase")
#: a code point U+D800..U+DFFF: in a decoded JSON string, always a lone surrogate (a pair
#: written as two escapes decodes to the one code point it encodes)
_SURROGATE = re.compile("[\ud800-\udfff]")


class Refusal(Exception):
    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code, self.message = code, message


class Service:
    """The contract, step by step: ``validate`` then ``answer``."""

    def __init__(self, contract: str = CONTRACT):
        self.contract = load(contract)
        self.metric = self.contract.metric
        self.max_segments = self.contract.max_segments
        self.max_bytes = self.contract.max_bytes

    # -- validation, in the contract's order --------------------------------------------
    def validate(self, doc: Any) -> dict:
        if not isinstance(doc, dict):
            raise Refusal("not-an-object", "the body must be a JSON object")
        unknown = sorted(set(doc) - set(KEYS))
        if unknown:
            raise Refusal("unknown-keys", f"unknown key(s): {', '.join(unknown)}")
        missing = [k for k in ("hypotheses", "references") if k not in doc]
        if missing:
            raise Refusal("missing-keys", f"missing key(s): {', '.join(missing)}")
        for key in ("hypotheses", "references"):
            self.check_texts(key, doc[key])
        if len(doc["hypotheses"]) != len(doc["references"]):
            raise Refusal("unequal-counts", f"{len(doc['hypotheses'])} hypotheses but {len(doc['references'])} references")
        texts = doc["hypotheses"] + doc["references"]
        size = sum(map(self.utf8_bytes, texts))
        if size > self.max_bytes:
            raise Refusal("too-many-bytes", f"{size} bytes of text; at most {self.max_bytes}")
        if any(map(self.has_lone_surrogate, texts)):
            raise Refusal("lone-surrogate", "a text holds a lone surrogate")
        beta = doc.get("beta", 2)
        if isinstance(beta, float) and beta.is_integer():
            beta = int(beta)
        if isinstance(beta, bool) or not isinstance(beta, int) or not 1 <= beta <= 16:
            raise Refusal("bad-beta", "beta must be an integer from 1 to 16")
        lowercase = doc.get("lowercase", False)
        if not isinstance(lowercase, bool):
            raise Refusal("bad-lowercase", "lowercase must be true or false")
        return {"hypotheses": list(doc["hypotheses"]), "references": list(doc["references"]), "beta": beta,
                "lowercase": lowercase}

    def check_texts(self, key: str, value: Any) -> None:
        if not isinstance(value, list):
            raise Refusal("wrong-type", f"{key} must be an array of strings")
        if len(value) > self.max_segments:
            raise Refusal("too-many-segments", f"{key}: {len(value)} segments; at most {self.max_segments}")
        if not value:
            raise Refusal("no-segments", f"{key}: at least one segment")
        if not all(isinstance(t, str) for t in value):
            raise Refusal("wrong-type", f"{key} must hold strings only")

    def utf8_bytes(self, text: str) -> int:
        return len(text.encode("utf-8", "surrogatepass"))

    def has_lone_surrogate(self, text: str) -> bool:
        return _SURROGATE.search(text) is not None

    # -- the answer ---------------------------------------------------------------------
    def answer(self, req: dict) -> dict:
        ev = self.metric.evaluate(req["hypotheses"], req["references"], req["beta"], req["lowercase"])
        return {
            "metric": "chrF++", "char_order": self.metric.char_order, "word_order": self.metric.word_order,
            "beta": req["beta"], "lowercase": req["lowercase"], "segment_count": len(req["hypotheses"]),
            "score": self.decimal(ev.score), "score_fraction": self.fraction(ev.score),
            "segment_scores": [self.decimal(s) for s in ev.segment_scores],
            "word_tokens": ev.word_tokens,
        }

    def decimal(self, x) -> str:
        return decimal_text(x, 6)

    def fraction(self, x) -> str:
        return fraction_text(x)

    def handle(self, raw: bytes) -> tuple[int, dict]:
        """(status, body) for one request body: the answer in the contract's example envelope,
        ``{"result": {...}}``."""
        try:
            doc = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            return 400, {"error": {"code": "bad-json", "message": "the body is not UTF-8 JSON"}}
        return self.handle_input(doc)

    def handle_input(self, doc: Any) -> tuple[int, dict]:
        """(status, body) for one request's input, already parsed (the MCP tool's ``input``)."""
        try:
            return 200, {"result": self.answer(self.validate(doc))}
        except Refusal as r:
            return 400, {"error": {"code": r.code, "message": r.message}}


def create_app(service: Optional[Service] = None, delay: float = 0.0, mcp: bool = True):
    """The service's ASGI app: ``POST /`` scores (the contract's HTTP transport), ``GET`` the
    versioned contract path (and ``/contract``) gives the machine-readable contract, and
    ``/mcp`` is the MCP transport (streamable HTTP, the official SDK): the tool ``execute``
    called with ``{id, version, input}``, answering the same JSON in its structured content."""
    from starlette.responses import Response

    service = service or Service()

    async def score(request):
        if delay:  # --delay-ms: a network round trip, simulated (benchmarks/bench_http_batching.py)
            import asyncio

            await asyncio.sleep(delay)
        status, body = service.handle(await request.body())
        return Response(json.dumps(body, ensure_ascii=True), status_code=status, media_type="application/json")

    async def contract(request):
        return Response(json.dumps(service.contract.doc), media_type="application/json")

    routes = [("/", ["POST"], score), ("/contract", ["GET"], contract),
              (service.contract.doc["machine_readable"], ["GET"], contract)]
    if not mcp:  # HTTP only (no MCP SDK imported: a faster start)
        from starlette.applications import Starlette
        from starlette.routing import Route

        return Starlette(routes=[Route(path, f, methods=methods) for path, methods, f in routes])
    server = mcp_server(service, delay)
    for path, methods, f in routes:
        server.custom_route(path, methods=methods)(f)
    return server.streamable_http_app(streamable_http_path="/mcp")


def mcp_server(service: Service, delay: float = 0.0):
    """An MCP server (``mcp.server.MCPServer``) with the contract's one tool, ``execute``: a
    refusal is a tool error (``isError``) whose text is the refusal's JSON; a crash of the
    scoring code is the SDK's own (``isError``, "Error executing tool execute")."""

    from mcp.server import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError

    server = MCPServer(service.contract.name, version=service.contract.version, log_level="CRITICAL")
    tool = (service.contract.name, service.contract.version)

    async def execute(id: str, version: str = "", input: Any = None) -> dict[str, Any]:  # noqa: A002
        if delay:
            import asyncio

            await asyncio.sleep(delay)
        if (id, version) != tool:
            raise ToolError(json.dumps({"error": {"code": "unknown-tool", "message": f"no tool {id}@{version}"}}))
        status, body = service.handle_input(input)
        if status != 200:
            raise ToolError(json.dumps(body))
        return body

    server.add_tool(execute, name="execute", description=service.contract.doc.get("title", ""),
                    structured_output=True)
    return server


def listening(host: str = "127.0.0.1", port: int = 8000) -> socket.socket:
    """A socket bound to ``host:port`` (``port`` 0: a free one) and listening; OSError (a busy
    port, no such host) or OverflowError (no such port) when it cannot be."""
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # accepted connections inherit it
        sock.bind((host, port))
        sock.listen(128)
    except BaseException:
        sock.close()
        raise
    return sock


def serve(app, host: str = "127.0.0.1", port: int = 8000, sock: Optional[socket.socket] = None) -> None:
    """Serve ``app`` with uvicorn on ``sock`` or a socket bound here (``listening``), printing
    ``listening on <URL>`` first."""
    import uvicorn

    sock = sock or listening(host, port)
    bound = sock.getsockname()[1]
    print(f"listening on http://{f'[{host}]' if ':' in host else host}:{bound}/", flush=True)  # IPv6 in brackets
    # the lifespan runs the MCP session manager
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on"))
    server.run(sockets=[sock])


def missing_modules() -> list[str]:
    """The modules the service needs that are not installed (the ``service`` extra's)."""
    import importlib.util

    return [m for m in ("starlette", "uvicorn", "mcp") if importlib.util.find_spec(m) is None]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8000, help="0: a free port (printed)")
    p.add_argument("--delay-ms", type=float, default=0.0, help="wait this long before answering (a simulated "
                   "network round trip)")
    args = p.parse_args(argv)
    missing = missing_modules()
    if missing:  # one line, no traceback
        print(f"chrf_service: error: needs {', '.join(missing)}: pip install -e '.[service]' in chrf-audit's clone", file=sys.stderr)
        return 2
    try:
        sock = listening(args.host, args.port)
    except (OSError, OverflowError) as e:  # a busy port, no such host or port: one line
        why = getattr(e, "strerror", None) or str(e)
        print(f"chrf_service: error: cannot listen on {args.host}:{args.port}: {why}", file=sys.stderr)
        return 2
    serve(create_app(delay=args.delay_ms / 1000), args.host, sock=sock)
    return 0


if __name__ == "__main__":
    sys.exit(main())
