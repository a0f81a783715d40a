"""The HTTP client (audit.http.client) on scripted transports: retries and what they count,
Retry-After, the budget, timeouts, hostile answers, headers from the environment; the curl
repro's text; the adapter's batching (requests per call, within the contract's limits)."""

from __future__ import annotations

import json
from contextlib import contextmanager

import httpx
import pytest

from audit.adapters.http import HttpAdapter
from audit.contract import load
from audit.errors import UsageError
from audit.http import curl
from audit.http.client import HttpClient, RequestBudgetExhausted, check_url, headers_from_env, public_url

URL = "http://127.0.0.1:9/score"


def client(handler, **kw):
    slept = []
    c = HttpClient(URL, transport=httpx.MockTransport(handler), sleep=slept.append, **kw)
    return c, slept


def script(*answers):
    """A handler answering the n-th request with answers[n] (an httpx.Response or an exception)."""
    seen = []

    def handler(request):
        seen.append(json.loads(request.content))
        a = answers[min(len(seen), len(answers)) - 1]
        if isinstance(a, Exception):
            raise a
        return a
    return handler, seen


def test_retries_503_then_answers_and_counts_one_request():
    handler, seen = script(httpx.Response(503, text="busy"), httpx.Response(503, headers={"Retry-After": "2"}),
                           httpx.Response(200, json={"score": "1.000000"}))
    c, slept = client(handler, retries=3, backoff=0.01)
    r = c.send({"x": 1})
    assert (r.kind, r.body, r.attempts) == ("json", {"score": "1.000000"}, 3)
    assert (c.requests, c.attempts, c.retried) == (1, 3, 2)
    assert slept == [0.01, 2.0]  # backoff, then what Retry-After asked for
    assert len(seen) == 3


def test_retry_after_is_capped_and_retries_end():
    handler, _ = script(httpx.Response(429, headers={"Retry-After": "3600"}))
    c, slept = client(handler, retries=2, retry_after_cap=1.5)
    r = c.send({})
    assert (r.kind, r.status, r.attempts) == ("server-error", 429, 3)
    assert slept == [1.5, 1.5] and "HTTP 429" in r.detail and "after 3 attempts" in r.detail


def test_dropped_connections_are_retried_then_reported():
    handler, _ = script(httpx.RemoteProtocolError("peer closed"), httpx.Response(200, json={"a": 1}))
    c, _ = client(handler)
    assert c.send({}).kind == "json"
    handler, _ = script(httpx.ConnectError("[Errno 111] Connection refused"))
    c, _ = client(handler, retries=1)
    r = c.send({})
    assert (r.kind, r.attempts) == ("dropped", 2) and r.detail.startswith("connection refused")


def test_timeouts_are_not_retried():
    handler, seen = script(httpx.ReadTimeout("slow"))
    c, slept = client(handler, retries=3, timeout=0.5)
    r = c.send({})
    assert (r.kind, r.attempts, slept, len(seen)) == ("timeout", 1, [], 1)
    assert r.detail.startswith("no answer within 0.5 s")


@pytest.mark.parametrize("response, kind", [
    (httpx.Response(200, text="<html>"), "garbage"),
    (httpx.Response(200, content=b"\xff\xfe"), "garbage"),
    (httpx.Response(302, headers={"Location": "/x"}), "garbage"),
    (httpx.Response(400, json={"error": "no"}), "refused"),
    (httpx.Response(404, text="not found"), "refused"),
    (httpx.Response(200, json=[1, 2]), "json"),
])
def test_answers_are_classified(response, kind):
    handler, _ = script(response)
    c, _ = client(handler)
    assert c.send({}).kind == kind


def test_an_oversized_body_is_garbage(monkeypatch):
    from audit.http import client as mod

    monkeypatch.setattr(mod, "MAX_BODY", 1000)
    handler, _ = script(httpx.Response(200, content=b"[" + b"1," * 5000 + b"1]"))
    c, _ = client(handler)
    r = c.send({})
    assert r.kind == "garbage" and "larger than 1000 bytes" in r.detail


def test_the_budget_counts_requests_not_retries():
    handler, _ = script(httpx.Response(503), httpx.Response(200, json={}), httpx.Response(200, json={}))
    c, _ = client(handler, max_requests=2)
    assert c.send({}).kind == "json" and c.send({}).kind == "json"
    assert (c.requests, c.attempts) == (2, 3)
    with pytest.raises(RequestBudgetExhausted, match="--max-requests 2 reached"):
        c.send({})


def test_map_keeps_the_order_of_requests():
    def handler(request):
        return httpx.Response(200, json=json.loads(request.content))
    c, _ = client(handler, concurrency=4)
    assert [r.body for r in c.map([{"i": i} for i in range(20)])] == [{"i": i} for i in range(20)]


@contextmanager
def loopback(*statuses: int):
    """A real HTTP/1.1 server on 127.0.0.1 (keep-alive) answering its n-th request with
    statuses[n] (200 after them) once ``server.release`` is set; ``server.got`` is set when
    a request has been read whole, ``server.answered`` when an answer has been written."""
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self):
            srv = self.server
            self.rfile.read(int(self.headers["Content-Length"]))
            srv.got.set()
            srv.release.wait(10)
            status = srv.statuses.pop(0) if srv.statuses else 200
            body = b'{"ok": true}'
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            srv.answered.set()

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    server.statuses = list(statuses)
    server.got, server.release, server.answered = threading.Event(), threading.Event(), threading.Event()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server, f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.release.set()
        server.shutdown()
        server.server_close()
        thread.join(10)


def test_on_written_runs_when_the_request_is_written_before_the_answer():
    """What lets the judge compute while the service does: the callback runs once the service
    has the whole request and before it has answered (the server answers only when the
    callback releases it; called after the answer, or never, it would find otherwise)."""
    seen = []
    with loopback() as (server, url):
        c = HttpClient(url, timeout=30)

        def meanwhile():
            seen.append((server.got.wait(10), server.answered.is_set()))
            server.release.set()
        reply = c.send({"x": 1}, on_written=meanwhile)
        c.close()
    assert (reply.kind, reply.body, seen) == ("json", {"ok": True}, [(True, False)])


def test_on_written_runs_once_across_retries_and_not_for_a_request_never_written():
    calls = []
    with loopback(503, 200) as (server, url):
        server.release.set()
        c = HttpClient(url, timeout=30, sleep=lambda s: None)
        reply = c.send({}, on_written=lambda: calls.append(1))
        assert (reply.kind, reply.attempts, calls) == ("json", 2, [1])
        # what the callback raises, send raises; the client goes on working
        with pytest.raises(ZeroDivisionError):
            c.send({}, on_written=lambda: 1 / 0)
        assert c.send({}).kind == "json"
        c.close()
    import socket

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()  # nothing listens there now
    c = HttpClient(f"http://127.0.0.1:{port}/", timeout=5, retries=1, sleep=lambda s: None)
    reply = c.send({}, on_written=lambda: calls.append(2))
    c.close()
    assert reply.kind == "dropped" and calls == [1]


def test_headers_from_the_environment_never_echo_secrets():
    env = {"CHRF_AUDIT_HTTP_HEADERS": json.dumps({"X-Api-Key": "k1"}), "CHRF_AUDIT_HTTP_TOKEN": "t0k"}
    assert headers_from_env(env) == {"X-Api-Key": "k1", "Authorization": "Bearer t0k"}
    for bad in ("not json s3cret", json.dumps(["s3cret"]), json.dumps({"X": 1})):
        with pytest.raises(UsageError) as e:
            headers_from_env({"CHRF_AUDIT_HTTP_HEADERS": bad})
        assert "s3cret" not in str(e.value) and "\n" not in str(e.value)


@pytest.mark.parametrize("url", ["not a url", "ftp://host/x", "http://", "localhost:8000"])
def test_bad_urls_are_one_line(url):
    with pytest.raises(UsageError, match="--http"):
        check_url(url)


def test_reports_write_the_url_without_credentials():
    assert public_url("https://user:pw@host:8443/score?key=s3cret#x") == "https://host:8443/score"
    handler, _ = script(httpx.Response(400, text="you sent key=k3y-s3cret"))
    c = HttpClient("https://host/score?key=k3y-s3cret", transport=httpx.MockTransport(handler))
    assert "s3cret" not in c.send({}).detail  # a service echoing its URL


def test_curl_commands_never_hold_the_headers():
    cmd = curl.command("http://h/", {"hypotheses": ["a"]}, env_headers=True, env_token=True)
    assert "$CHRF_AUDIT_HTTP_TOKEN" in cmd and "$CHRF_AUDIT_HTTP_HEADERS" in cmd
    big = {"hypotheses": ["a"] * 257, "references": ["a"] * 257}
    cmd = curl.command("http://h/", big)
    assert cmd.startswith("python3 -c ") and '["a"]*257' in cmd and len(cmd) < 300


def test_sentence_batches_follow_the_contracts_limits():
    contract = load("chrf-plus-plus-compute@1.0.0")
    bodies = []

    def handler(request):
        body = json.loads(request.content)
        bodies.append(body)
        n = len(body["hypotheses"])
        return httpx.Response(200, json={"result": {"segment_scores": ["100.000000"] * n}})
    c = HttpClient(URL, transport=httpx.MockTransport(handler))
    a = HttpAdapter(URL, contract, c)
    out = a.sentence_scores([("a", ["a"])] * 600)
    assert [len(b["hypotheses"]) for b in bodies] == [256, 256, 88] and c.requests == 3
    assert all(o.kind == "value" and o.value == 100.0 for o in out)
    bodies.clear()
    a.sentence_scores([("x" * 20000, ["y" * 10000])] * 5)  # 30,000 bytes a segment: two per request
    assert [len(b["hypotheses"]) for b in bodies] == [2, 2, 1]
    assert "beta" not in bodies[0] and "lowercase" not in bodies[0]  # the defaults are left to the service
    bodies.clear()
    a.configure(lowercase=True).sentence_scores([("a", ["A"])])
    assert bodies == [{"hypotheses": ["a"], "references": ["A"], "lowercase": True}]


def test_a_broken_answer_costs_its_inputs_an_outcome_each():
    contract = load("chrf-plus-plus-compute@1.0.0")
    answers = iter([httpx.Response(200, json={"result": {"segment_scores": ["1.0", 3]}}),
                    httpx.Response(500, text="boom"), httpx.Response(400, json={"error": "no"}),
                    httpx.Response(200, json={"result": {"segment_scores": ["1"]}})])
    c = HttpClient(URL, transport=httpx.MockTransport(lambda r: next(answers)), retries=0)
    a = HttpAdapter(URL, contract, c)
    first = a.sentence_scores([("a", ["a"]), ("b", ["b"])])
    assert [o.kind for o in first] == ["value", "invalid"] and first[0].value == 1.0
    assert a.sentence_scores([("a", ["a"])])[0].kind == "crash"
    assert a.sentence_scores([("a", ["a"])])[0].kind == "exception"
    assert a.sentence_scores([("a", ["a"]), ("b", ["b"])])[1].kind == "invalid"  # one score for two inputs


# -- a hostile service on a raw socket (issue 29) ------------------------------------------------
@contextmanager
def dripping(head: bytes, body: bytes, every: float = 0.02):
    """A real loopback server that reads a request and sends ``head`` at once, then ``body``
    one byte every ``every`` seconds (each byte well within any timeout), until the client
    goes or ``body`` ends."""
    import socket
    import threading

    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(4)
    stop = threading.Event()

    def serve():
        while not stop.is_set():
            try:
                conn, _ = srv.accept()
            except OSError:
                return
            with conn:
                conn.recv(65536)
                try:
                    conn.sendall(head)
                    for i in range(len(body)):
                        if stop.wait(every):
                            return
                        conn.sendall(body[i:i + 1])
                except OSError:
                    continue
    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{srv.getsockname()[1]}/"
    finally:
        stop.set()
        srv.close()
        thread.join(10)


def _within(seconds: float, call):
    """``call()``'s result, or None when it has not returned within ``seconds`` (hang
    detection only: the deadlines tested are 1 s)."""
    import threading

    out = []
    t = threading.Thread(target=lambda: out.append(call()), daemon=True)
    t.start()
    t.join(seconds)
    return out[0] if out else None


@pytest.mark.parametrize("where", ["body", "headers"])
def test_timeout_bounds_the_whole_answer_not_each_read(where):
    """A valid answer sent a byte at a time, each byte within --timeout, is timed out at
    the deadline: --timeout bounds the whole answer (before: each read, so it never ended)."""
    answer = json.dumps({"score": "1.000000", "pad": " " * 5000}).encode()
    if where == "body":
        head, body = b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % len(answer), answer
    else:  # the status line and headers themselves, a byte at a time
        head, body = b"", b"HTTP/1.1 200 OK\r\n" + b"X-Pad: a\r\n" * 500 + b"Content-Length: 2\r\n\r\n{}"
    with dripping(head, body) as url:
        c = HttpClient(url, timeout=1, retries=0)
        reply = _within(60, lambda: c.send({"x": 1}))
        c.close()
    assert reply is not None, "the answer was not timed out"
    assert reply.kind == "timeout" and reply.detail.startswith("no answer within 1 s"), reply.detail
    assert ("the whole answer" in reply.detail) == (where == "body")


@pytest.mark.parametrize("asked", ["999999", "Fri, 31 Dec 9999 23:59:59 GMT", "9" * 400])
def test_retry_after_is_capped_by_the_timeout_and_the_waits_stop_at_a_total(asked):
    """429 with a Retry-After of 11 days, a date in 9999 or 400 digits: each wait is at most
    min(2 s, --timeout), and the waits of all requests together stop at 6 x --timeout, after
    which a 429 is final at once (before: 10 s a wait, 3 waits a request, for ever)."""
    handler, seen = script(httpx.Response(429, headers={"Retry-After": asked}))
    c, slept = client(handler, timeout=1, retries=3)
    replies = [c.send({"n": n}) for n in range(4)]
    assert slept == [1.0] * 6 and c.waited == 6.0 and c.retried == 6
    assert [r.attempts for r in replies] == [4, 4, 1, 1]  # the sixth wait was the second request's last
    assert all(r.kind == "server-error" for r in replies)
    assert "no retry: the retry waits reached their total of 6 s" in replies[3].detail
    assert len(seen) == 4 + 4 + 1 + 1


def test_retry_after_reads_no_clock_and_no_strange_digits():
    """A date counts as the cap (a past one too: deciding by the clock would make the number
    of attempts depend on it); digits other than ASCII ones are not a delay."""
    from audit.http.client import _retry_after

    assert _retry_after("Thu, 01 Jan 1970 00:00:00 GMT", 2.0) == 2.0
    assert _retry_after("3", 2.0) == 2.0 and _retry_after("1", 2.0) == 1.0
    assert _retry_after("\u00b2", 2.0) is None and _retry_after("-1", 2.0) is None


@pytest.mark.parametrize("raw, why", [(b"[" * 200_000, "nested too deeply"),
                                      (b"[" * 100 + b"]" * 100, "nested deeper than 64 levels"),
                                      (b'{"a": ' + b"1" * 5001 + b"}", "not JSON")])
def test_answers_too_deep_or_too_long_to_read_are_garbage(raw, why):
    """200,000 nested [ made the client raise RecursionError (a traceback that ended the run);
    a 100-deep answer would exhaust the stack of what reads it later."""
    handler, _ = script(httpx.Response(200, content=raw))
    c, _ = client(handler)
    r = c.send({})
    assert r.kind == "garbage" and why in r.detail, r.detail


def test_a_repeated_member_name_is_listed():
    handler, _ = script(httpx.Response(200, content=b'{"score": "9.000000", "a": {"b": 1, "b": 2}, '
                                                      b'"score": "1.000000"}'))
    c, _ = client(handler)
    r = c.send({})
    assert r.kind == "json" and r.body["score"] == "1.000000" and r.duplicates == ("b", "score")
    handler, _ = script(httpx.Response(200, json={"score": "1.000000"}))
    assert client(handler)[0].send({}).duplicates == ()


@pytest.mark.parametrize("name, value, message", [
    ("Content-Length", "5", "frames the request"), ("Transfer-Encoding", "chunked", "frames the request"),
    ("X-Key", "caf\u00e9", "not one line of printable ASCII"), ("X Key", "v", "is not a valid header"),
    ("X-Key", "a\r\nInjected: 1", "not one line of printable ASCII")])
def test_headers_that_would_break_the_request_are_one_line(name, value, message):
    """A Content-Length from CHRF_AUDIT_HTTP_HEADERS made h11 raise (a traceback); a
    non-ASCII value made httpx raise."""
    with pytest.raises(UsageError, match=message) as e:
        headers_from_env({"CHRF_AUDIT_HTTP_HEADERS": json.dumps({name: value})})
    assert value not in str(e.value) or len(value) < 3


def test_urls_ports_and_ipv6():
    with pytest.raises(UsageError, match="port 99999 is not a TCP port"):
        check_url("http://127.0.0.1:99999/")
    assert public_url("http://[::1]:8000/score") == "http://[::1]:8000/score"
    with pytest.raises(UsageError, match=r"brackets: http://\[::1\]:8000/|not a URL"):
        check_url("http://::1:8000/")
    with pytest.raises(UsageError) as e:
        check_url("http://user:pw-s3cret@[::1/")
    assert "s3cret" not in str(e.value) and "***@" in str(e.value)


def test_every_reply_is_redacted_of_the_secrets():
    """A service echoing the token, a header's value and the URL's password -- as they are,
    JSON-escaped, percent-encoded, as Basic credentials -- in a refusal, a JSON answer, a
    non-JSON answer or a 5xx: no reply holds a secret (text, detail, body, member names)."""
    import base64

    from audit.http.client import secret_values

    token, key, password = "tok-s3cret", "hdr-s3cret", "pw-s3cret"
    basic = base64.b64encode(f"user:{password}".encode()).decode()
    escaped = "".join(f"\\u{ord(ch):04x}" for ch in token)
    answers = iter([
        httpx.Response(400, json={"error": f"bad token Bearer {token}"}),
        httpx.Response(200, content=('{"score": "%s", "%s": 1, "x": "Basic %s"}' % (escaped, key, basic)).encode()),
        httpx.Response(200, text=f"<html>{key} {token.replace('-', '%2D')} pw%2Ds3cret</html>"),
        httpx.Response(503, text=f"down; {password}"),
    ])
    c = HttpClient(f"http://user:{password}@127.0.0.1:9/", transport=httpx.MockTransport(lambda r: next(answers)),
                   retries=0, secrets=tuple(secret_values(headers_from_env(
                       {"CHRF_AUDIT_HTTP_TOKEN": token, "CHRF_AUDIT_HTTP_HEADERS": json.dumps({"X-Key": key})}))))
    replies = [c.send({}) for _ in range(4)]
    shown = json.dumps([[r.text, r.detail, r.body, r.duplicates] for r in replies])
    assert "s3cret" not in shown and basic not in shown and escaped not in shown, shown
    assert shown.count("[redacted]") >= 7
    assert replies[1].body == {"score": "[redacted]", "[redacted]": 1, "x": "Basic [redacted]"}


def test_the_users_headers_are_for_the_services_origin_only():
    """``ServiceHeaders.for_url``, the one place that decides which headers a URL gets (issue 39
    item 1): the service's scheme, host and port (default ports, host case and IPv6 spellings
    normalised), and nothing anywhere else."""
    from audit.http.headers import ServiceHeaders

    env = {"CHRF_AUDIT_HTTP_TOKEN": "t0k3n", "CHRF_AUDIT_HTTP_HEADERS": json.dumps({"X-Key": "k3y"})}
    creds = ServiceHeaders.from_env("http://Svc.example:80/score", env)
    both = {"X-Key": "k3y", "Authorization": "Bearer t0k3n"}
    assert creds.variables == ("CHRF_AUDIT_HTTP_HEADERS", "CHRF_AUDIT_HTTP_TOKEN")
    for same in ("http://svc.example/v1/tools/x", "http://SVC.EXAMPLE:80/", "http://svc.example/?q=1"):
        assert creds.for_url(same) == both, same
    for other in ("http://svc.example:8080/", "https://svc.example/", "http://docs.svc.example/",
                  "http://svc.example.evil/", "ftp://svc.example/", "not a url"):
        assert creds.for_url(other) == {}, other
    v6 = ServiceHeaders.from_env("https://[0:0::1]/mcp", env)
    assert v6.for_url("https://[::1]:443/c") == both and v6.for_url("http://[::1]:443/c") == {}
    assert set(creds.secrets) >= {"k3y", "Bearer t0k3n", "t0k3n"}
