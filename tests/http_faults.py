"""The rows of docs/fault-catalogue.md about scoring services (``--http``), contract files and
the text an audited program or service gets into reports: each case runs the fault on
127.0.0.1 (tests/http_services.py) and returns (outcome, text) as tests/test_fault_catalogue.py
expects; ``CASES`` is merged into its table."""

from __future__ import annotations

import contextlib
import json
import re
import subprocess
import sys
from pathlib import Path

from tests.http_services import running

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
CONTRACT = "chrf-plus-plus-compute@1.0.0"
BUILT_IN = json.loads((ROOT / "audit" / "contract" / "data" / f"{CONTRACT}.json").read_text())
#: what a test's secrets look like, and their forms as a service may echo them
SECRET = "s3cret"
ECHOED = (SECRET, "cHctczNjcmV0", "dXNlcjpwdy1zM2NyZXQ")  # the password's and user:password's base64


def _audit(ctx, service: str, *args, url=None):
    """``run --http`` of ``service`` at --max-examples 3; (exit, audit.json, everything printed)."""
    with running(service) as served:
        code, out = ctx.cli("run", "--http", url or served, "--contract", CONTRACT, "--max-examples", "3",
                            "--json", "a.json", *args)
    doc = json.loads((ctx.tmp / "a.json").read_text()) if (ctx.tmp / "a.json").is_file() else {}
    return code, doc, out


def _mcp(ctx, service: str, *args):
    """``run --mcp`` of ``service``'s MCP tool at --max-examples 3 (the service serves MCP);
    (exit, audit.json, everything printed), and no thread of the session left behind."""
    import threading

    def threads():  # but chrf-audit's own process-wide helpers (the signal watcher)
        return {t for t in threading.enumerate() if not t.name.startswith("chrf-audit-")}
    before = threads()
    with running(service, mcp=True) as served:
        code, out = ctx.cli("run", "--mcp", served + "mcp", "--tool", CONTRACT, "--max-examples", "3",
                            "--json", "a.json", *args)
    doc = json.loads((ctx.tmp / "a.json").read_text()) if (ctx.tmp / "a.json").is_file() else {}
    return code if threads() == before else f"threads left: {threads() - before}", doc, out


def _mcp_finding(ctx, service: str, family: str, *args):
    code, doc, out = _mcp(ctx, service, "--quiet", *args)
    found = [f for f in doc.get("findings", []) if f["family"] == family]
    if code.startswith("threads left") or not found:
        return f"{code}, no {family} finding", out
    return found[0]["minimal"]["outcome"], found[0]["minimal"]["detail"]


@contextlib.contextmanager
def _serving(body: bytes, status: int = 200):
    """A loopback HTTP server answering every GET with ``body``, for the ``with`` block."""
    import http.server
    import threading

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 - http.server's name
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            try:
                self.wfile.write(body)
            except OSError:
                pass

        def log_message(self, *a):
            pass
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def _document(ctx, body: bytes, status: int = 200):
    """``run --http ... --contract URL`` with the document ``body`` at URL (no service listens
    at port 9: a bad document is refused before any request)."""
    with _serving(body, status) as url:
        return ctx.cli("run", "--http", "http://127.0.0.1:9/", "--contract", url + "contract", "--quiet")


def _tool_document(ctx):
    """A service's contract document (a tool document) that states other limits than the
    built-in contract: the differences are printed before the audit, which holds the service
    to the built-in contract (and passes)."""
    doc = {"id": "chrf-plus-plus-compute", "version": "1.0.0", "input_schema": BUILT_IN["input_schema"],
           "limits": {"max_segments": 512, "max_text_bytes": 65536}}
    with _serving(json.dumps(doc).encode()) as url, running("healthy") as served:
        code, out = ctx.cli("run", "--http", served, "--contract", url + "v1/tools/x", "--max-examples", "3",
                            "--quiet")
    return code, out


def _finding(ctx, service: str, family: str, *args):
    """The outcome and detail of the one ``family`` finding an audit of ``service`` reports."""
    code, doc, out = _audit(ctx, service, "--quiet", *args)
    found = [f for f in doc.get("findings", []) if f["family"] == family]
    if not found:
        return f"{code}, no {family} finding", out
    return found[0]["minimal"]["outcome"], found[0]["minimal"]["detail"]


def _retries(ctx, service: str):
    """A service answering every request 429 with a Retry-After it must not get: the retry
    waits stop at their total (6 x --timeout 1: six retries of one second, whatever it asks)."""
    code, doc, out = _audit(ctx, service, "--quiet", "--timeout", "1")
    retries = doc["implementations"][0]["contract"]["retries"]
    detail = doc["findings"][0]["minimal"]["detail"] if doc.get("findings") else ""
    return (f"{retries} retries" if code == "exit 1" else code), detail


def _echo(ctx):
    """A service echoing every header it gets (bearer token, a configured header, the URL's
    password as Basic credentials) in refusals, in scores and in non-JSON answers: no output
    holds a secret, and the echoes are there, redacted."""
    ctx.mp.setenv("CHRF_AUDIT_HTTP_TOKEN", f"tok-{SECRET}")
    ctx.mp.setenv("CHRF_AUDIT_HTTP_HEADERS", json.dumps({"X-Key": f"hdr-{SECRET}"}))
    with running("echo") as served:
        url = served.replace("http://", f"http://user:pw-{SECRET}@")
        code, out = ctx.cli("run", "--http", url, "--contract", CONTRACT, "--max-examples", "3", "--json", "a.json",
                            "--junit", "j.xml", "--reports-dir", "r")
    written = "".join(p.read_text(encoding="utf-8", errors="replace") for p in ctx.tmp.rglob("*")
                      if p.is_file() and p.suffix in (".md", ".json", ".xml"))
    leaked = [form for form in ECHOED if form in written + out]
    return ("leaked " + ", ".join(leaked) if leaked else "redacted"), written


def _credentials_elsewhere(ctx):
    """CHRF_AUDIT_HTTP_TOKEN set, and ``--contract URL`` on a document server on another port:
    the document server sees no credential (issue 39 item 1)."""
    from tests.fixtures.recording import recording

    ctx.mp.setenv("CHRF_AUDIT_HTTP_TOKEN", f"tok-{SECRET}")
    with recording({"/c": json.dumps(BUILT_IN)}) as (docs, seen), running("healthy") as served:
        code, out = ctx.cli("run", "--http", served, "--contract", docs + "c", "--max-examples", "3", "--quiet")
    leaked = any(SECRET in v for h in seen.headers for v in h.values())
    said = "; ".join(f"{m} {p} {'with' if 'authorization' in h else 'without'} authorization" for m, p, h in seen)
    return ("sent the token" if leaked else "no credential" if code == "exit 0" else code), said + "\n" + out


def _escape(ctx):
    """ESC, OSC and BEL in a service's refusal: neither the terminal nor markdown gets them raw
    (a wide terminal: the contract table's lines are cut to its width)."""
    ctx.mp.setenv("COLUMNS", "300")
    with running("escape-on-tilde") as served:
        code, out = ctx.cli("run", "--http", served, "--contract", CONTRACT, "--max-examples", "3",
                            "--reports-dir", "r")
    md = "".join(p.read_text() for p in (ctx.tmp / "r").rglob("*.md"))
    raw = any(ch in out + md for ch in "\x1b\x07")
    return ("raw ESC/BEL" if raw else code), out + md


def _ipv6(ctx):
    """A service on the IPv6 loopback: the curl repro of its finding runs as it is."""
    from audit.adapters import resolve
    from audit.collect.runner import run_audit
    from audit.enrich import enrich

    with running("half-up", host="::1") as served:
        adapters = resolve(http=served, contract=CONTRACT, timeout=5.0)
        try:
            result = run_audit(adapters, seed=0, max_examples=3, cases_dir=None)
        finally:
            for a in adapters:
                a.close()
        [f] = [f for f in result.findings if f.family == "contract-score-rounding"]
        snippet = enrich(result, with_upstream=True).of(f).snippet
        proc = subprocess.run(["bash", "-c", snippet], capture_output=True, text=True, timeout=60)
    shown = f.minimal.actual_raw
    return (f"exit {proc.returncode}" if shown in proc.stdout else "no answer"), snippet + proc.stderr


def _contract(ctx, change=None, text=None):
    """``run --http`` with a contract file made from the built-in one by ``change`` (or the
    file ``text``): refused before any request (no service listens at port 9)."""
    doc = json.loads(json.dumps(BUILT_IN))
    if change:
        change(doc)
    (ctx.tmp / "c.json").write_text(text if text is not None else json.dumps(doc))
    return ctx.cli("run", "--http", "http://127.0.0.1:9/", "--contract", "c.json", "--quiet")


#: the built-in contract with an input schema nested 900 levels deep (valid JSON that Python
#: reads, deeper than any validator's stack)
DEEP = json.dumps(dict(BUILT_IN, input_schema="@")).replace(
    '"@"', '{"properties": {"a": ' * 450 + "{}" + "}}" * 450)


def _version_markup(ctx):
    """An external program whose hello's version holds a newline, a heading and HTML: issue
    titles and headings stay one line of text."""
    (ctx.tmp / "prog.py").write_text(
        "import json, sys\n"
        "from reference_impl import corpus_score, sentence_score\n"
        "for line in sys.stdin:\n"
        "    req = json.loads(line)\n"
        "    if req['op'] == 'hello':\n"
        "        print(json.dumps({'id': req['id'], 'version': '1.0\\n# Owned <img src=x onerror=alert(1)>'}), flush=True)\n"
        "        continue\n"
        "    s = sentence_score(req['hypothesis'], req['references']) if req['op'] == 'sentence' else \\\n"
        "        corpus_score(req['hypotheses'], req['references'])\n"
        "    print(json.dumps({'id': req['id'], 'score': float(s.score) + 1}), flush=True)\n")
    ctx.mp.setenv("PYTHONPATH", str(ROOT))
    code, out = ctx.cli("run", "--external", f"{sys.executable} prog.py", "--name", "prog", "--quiet", "--max-examples",
                        "3", "--cases", "cases", "--reports-dir", "r", "--no-verify")
    lines = [ln for p in (ctx.tmp / "r").rglob("*.md") for ln in p.read_text().splitlines()]
    # markup outside code spans (a code span shows its text as it is)
    injected = [ln for ln in lines if ln.startswith("# Owned") or "<img" in re.sub(r"`[^`]*`", "", ln)]
    titles = [ln for ln in lines if ln.startswith("# prog ")]
    return ("injected" if injected or not titles else code), "\n".join(injected or titles)


def _schema_ref(ctx, surface: str, kind: str):
    """A schema of the audited contract with a ``$ref`` of ``kind`` -- to a local server that
    records its hits (``http``), to a real file (``file``), to the schema itself at its root
    (``loop``), to nothing (``nowhere``) -- in a contract file, a published document or the
    MCP tool's outputSchema, with a real service behind: refused in one line before the
    audit, nothing fetched (issue 39 item 2)."""
    from tests.fixtures.recording import recording

    (ctx.tmp / "s.json").write_text("{}")
    with recording({"/s": "{}"}) as (base, seen):
        ref = {"http": base + "s", "file": (ctx.tmp / "s.json").as_uri(), "loop": "#", "nowhere": "#/$defs/x"}[kind]
        doc = json.loads(json.dumps(BUILT_IN))
        doc["output_schema"] = {"$ref": ref, **doc["output_schema"]}
        if surface == "mcp":
            ctx.mp.setenv("CHRF_TEST_SCHEMA_REF", ref)
            with running("mcp-schema-ref", mcp=True) as served:
                code, out = ctx.cli("run", "--mcp", served + "mcp", "--tool", CONTRACT, "--max-examples", "3", "--quiet")
        else:
            (ctx.tmp / "c.json").write_text(json.dumps(doc))
            with _serving(json.dumps(doc).encode()) as docs, running("healthy") as served:
                where = "c.json" if surface == "file" else docs + "c"
                code, out = ctx.cli("run", "--http", served, "--contract", where, "--max-examples", "3", "--quiet")
    fetched = sum(1 for _, path, _ in seen if path == "/s")
    return f"{code}, {fetched} fetched", out


def _after_preflight(ctx, transport: str):
    """A service that answers the request before the audit, then drips (HTTP) or hangs (MCP)
    every request (--timeout 1): the requests the audit makes, bounded by the fault budget
    (three in a row, probes after), and the detail of its one timeout finding."""
    name = "drip-after-preflight" if transport == "http" else "mcp-hang-after-preflight"
    with running(name, mcp=transport == "mcp") as served:
        target = ["--http", served, "--contract", CONTRACT] if transport == "http" else \
            ["--mcp", served + "mcp", "--tool", CONTRACT]
        code, out = ctx.cli("run", *target, "--timeout", "1", "--max-examples", "3", "--quiet", "--json", "a.json")
    doc = json.loads((ctx.tmp / "a.json").read_text()) if (ctx.tmp / "a.json").is_file() else {}
    made = doc["implementations"][0]["contract"]["requests"] if doc else -1
    found = [f["minimal"]["detail"] for f in doc.get("findings", []) if f["minimal"]["outcome"] == "timeout"]
    return f"{code}, {'at most 12' if 0 <= made <= 12 else made} requests", "\n".join(found) or out


def _mcp_closed_port(ctx):
    """--mcp at a port nothing listens on: told at once, before the MCP SDK is even imported
    (its start took 41-52 s on a loaded machine before it said "cannot connect")."""
    code = ("import sys; from audit.cli import main; code = main(['run', '--mcp', 'http://127.0.0.1:9/mcp', '--tool', "
            f"{CONTRACT!r}]); print(code, 'SDK started' if 'mcp.client' in sys.modules else 'SDK not started')")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=ROOT)
    exit_code, _, started = proc.stdout.strip().partition(" ")
    return f"exit {exit_code}, {started}", proc.stderr


def _busy_port(ctx):
    """examples/chrf_service.py on a port another socket listens on: one line, no traceback."""
    import socket

    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen(1)
        proc = subprocess.run([sys.executable, str(ROOT / "examples" / "chrf_service.py"), "--port",
                               str(held.getsockname()[1])], capture_output=True, text=True, timeout=120)
    return f"exit {proc.returncode}", proc.stderr


def _auto_404(ctx):
    """--contract auto at a service that answers 404 at its versioned contract path."""
    from tests.fixtures.recording import recording

    with recording() as (url, _):
        return ctx.cli("run", "--http", url, "--contract", "auto")


CASES = {
    "http-short-segment-scores": lambda c: _finding(c, "short-segment-scores", "contract-segment-scores"),
    "http-short-word-tokens": lambda c: _finding(c, "short-word-tokens", "contract-word-tokens"),
    "http-duplicate-keys": lambda c: _finding(c, "duplicate-keys", "contract-response-schema"),
    "http-score-newline": lambda c: _finding(c, "score-newline", "contract-response-schema"),
    "http-drip": lambda c: _finding(c, "drip-on-tilde", "contract-word-tokens", "--timeout", "1"),
    "http-drip-all": lambda c: (lambda r: (r[0], r[2]))(_audit(c, "drip", "--quiet", "--timeout", "1")),
    "http-retry-after": lambda c: _retries(c, "retry-after-forever"),
    "http-retry-after-date": lambda c: _retries(c, "retry-after-9999"),
    "http-nested": lambda c: _finding(c, "nested", "contract-corpus-score"),
    "http-huge-fraction": lambda c: _finding(c, "huge-fraction", "contract-corpus-score"),
    "http-echo-secrets": _echo,
    "http-escape": _escape,
    "http-ipv6": _ipv6,
    "http-port": lambda c: c.cli("run", "--http", "http://127.0.0.1:99999/", "--contract", CONTRACT),
    "http-url-password": lambda c: (lambda r: (r[0] if SECRET not in r[1] else "echoed", r[1]))(
        c.cli("run", "--http", f"http://user:pw-{SECRET}@[::1/", "--contract", CONTRACT)),
    "http-header-framing": lambda c: (c.mp.setenv("CHRF_AUDIT_HTTP_HEADERS", json.dumps({"Content-Length": "5"})),
                                      c.cli("run", "--http", "http://127.0.0.1:9/", "--contract", CONTRACT))[1],
    "http-credentials-elsewhere": _credentials_elsewhere,
    "contract-nested": lambda c: _contract(c, text="[" * 200_000),
    "contract-deep-schema": lambda c: _contract(c, text=DEEP),
    "contract-reversed-range": lambda c: _contract(c, lambda d: d["metric"].update(whitespace=["0020-0009"])),
    "contract-beta-order": lambda c: _contract(c, lambda d: d["parameters"]["beta"].update(minimum=5, maximum=3)),
    "contract-huge-limits": lambda c: _contract(c, lambda d: d["limits"].update(max_segments=10 ** 9,
                                                                               max_text_bytes=10 ** 12)),
    "contract-unicode-whitespace": lambda c: _contract(c, lambda d: d["metric"].update(whitespace=["0000-10FFFF"])),
    "contract-version-markup": lambda c: _contract(c, lambda d: d.update(version="1.0\n# Owned <img src=x>")),
    "out-version-markup": _version_markup,
    # MCP (issue 32): the same treatment as the HTTP client's
    "mcp-hang": lambda c: _mcp_finding(c, "mcp-hang-on-tilde", "contract-word-tokens", "--timeout", "1"),
    "mcp-garbage": lambda c: _mcp_finding(c, "mcp-garbage-on-tilde", "contract-word-tokens"),
    "mcp-drop": lambda c: _mcp_finding(c, "mcp-drop-on-tilde", "contract-word-tokens"),
    "mcp-huge": lambda c: _mcp_finding(c, "mcp-huge-on-tilde", "contract-word-tokens"),
    "mcp-hang-all": lambda c: (lambda r: (r[0], r[2]))(_mcp(c, "hang", "--timeout", "1")),
    "mcp-refused": lambda c: c.cli("run", "--mcp", "http://127.0.0.1:9/mcp", "--tool", CONTRACT),
    "mcp-closed-port": _mcp_closed_port,
    "http-drip-after-preflight": lambda c: _after_preflight(c, "http"),
    "mcp-hang-after-preflight": lambda c: _after_preflight(c, "mcp"),
    "service-busy-port": _busy_port,
    "contract-auto-404": _auto_404,
    "mcp-not-mcp": lambda c: (lambda r: (r[0], r[2]))(_not_mcp(c)),
    "mcp-unknown-tool": lambda c: c.cli("run", "--mcp", "http://127.0.0.1:9/mcp", "--tool", "chrf-compute@9"),
    # contract documents (--contract URL | auto)
    "contract-doc-huge": lambda c: _document(c, b" " * (1024 * 1024 + 1)),
    "contract-doc-not-json": lambda c: _document(c, b"<html>hello</html>"),
    "contract-doc-404": lambda c: _document(c, b"not here", 404),
    "contract-doc-foreign": lambda c: _document(c, json.dumps({"openapi": "3.1.0"}).encode()),
    "contract-doc-differs": _tool_document,
    # a schema's references (issue 39 item 2)
    **{f"{row}-schema-ref-{k}": (lambda c, s=surface, k=k: _schema_ref(c, s, k))
       for row, surface in (("contract", "file"), ("contract-doc", "document"), ("mcp", "mcp"))
       for k in ("http", "file", "loop")},
    "contract-schema-ref-nowhere": lambda c: _schema_ref(c, "file", "nowhere"),
}


def _not_mcp(ctx):
    """--mcp at the URL of a service without MCP (its HTTP transport only): one line."""
    with running("healthy") as served:
        code, out = ctx.cli("run", "--mcp", served + "mcp", "--tool", CONTRACT)
    return code, None, out
