"""A service gets the fault budget a callable gets (issue 39 item 6): three requests in a row
that time out, drip or fail trip the line (audit/adapters/service_faults.py over
audit/adapters/faults.py), the requests after them are not sent but for probes, and what the
budget presumed is never evidence: not a finding, not a contract check.

Assertions are on what was sent and reported (counts); the clock appears only as a generous
backstop on a whole audit."""

from __future__ import annotations

import json
import time

from audit.adapters import faults
from audit.adapters.faults import IN_A_ROW, PROBE_GAP, SKIPPED, UNCONFIRMED
from audit.adapters.service_faults import NOTE, BudgetedClient
from audit.http.client import Reply
from tests.http_services import running
from tests.test_http_audit import CONTRACT, cli

OK = Reply("json", 200, {"score": "1.000000"}, "{}", "HTTP 200")


class _Service:
    """A client as ``BudgetedClient`` sees it: ``answer(body)`` gives each reply; counts what
    was sent, and with which timeout."""

    concurrency = 4

    def __init__(self, answer):
        self.answer, self.sent, self.requests = answer, [], 0

    def send(self, body, headers=None, on_written=None, timeout=None):
        self.sent.append((body, timeout))
        self.requests += 1
        if on_written is not None:
            on_written()
        return self.answer(body)

    def map(self, bodies, headers=None, timeout=None):
        return [self.send(b, headers, timeout=timeout) for b in bodies]


def _hang(body):
    return Reply("timeout", None, None, "", "no answer within 5 s (the whole answer did not come in time)")


def _drop(body):
    return Reply("dropped", None, None, "", "connection refused (after 4 attempts)")


def test_three_failed_requests_in_a_row_stop_the_requests_but_for_probes():
    service = _Service(_drop)
    client = BudgetedClient(service, 5.0)
    replies = [client.send({"n": i}) for i in range(40)]
    sent = [b["n"] for b, _ in service.sent]
    assert sent == [0, 1, 2, 3 + PROBE_GAP, 4 + PROBE_GAP + PROBE_GAP ** 2]
    assert [r.presumed for r in replies] == ["" if i in sent else SKIPPED for i in range(40)]
    assert all(r.kind == "dropped" for r in replies) and replies[2].detail.endswith(NOTE)
    assert "restarting" not in replies[3].detail and client.requests == len(sent)  # the client's own counter


def test_an_answer_closes_the_line_and_an_observed_fault_is_remembered():
    state = {"down": True}
    service = _Service(lambda body: _drop(body) if state["down"] else OK)
    client = BudgetedClient(service, 5.0)
    for i in range(IN_A_ROW):
        client.send({"n": i})
    assert client.tripped
    state["down"] = False
    replies = [client.send({"m": i}) for i in range(10)]
    assert [r.presumed for r in replies] == [SKIPPED] * PROBE_GAP + [""] * (10 - PROBE_GAP)
    assert not client.tripped and replies[-1] is OK
    before = len(service.sent)
    again = client.send({"n": 0})  # observed before: remembered, not sent again
    assert len(service.sent) == before and again.kind == "dropped" and again.presumed == ""


def test_after_the_first_hang_a_request_waits_a_limit_derived_from_the_answers():
    hung = {"now": False}
    service = _Service(lambda body: _hang(body) if hung["now"] else OK)
    client = BudgetedClient(service, 5.0)
    client.send({"n": "ok"})
    hung["now"] = True
    full, derived = client.send({"n": 1}), client.send({"n": 2})
    assert [t for _, t in service.sent] == [5.0, 5.0, faults.DERIVED_FLOOR]  # the answer came at once
    assert full.presumed == "" and derived.presumed == UNCONFIRMED and "not confirmed" in derived.detail
    confirmed = faults.confirm(lambda: client.send({"n": 2}))
    assert service.sent[-1] == ({"n": 2}, 5.0) and confirmed.presumed == ""


def test_requests_sent_together_are_recorded_in_their_order_and_the_trip_is_no_probe():
    """Eight requests of one call, two runs of four (the concurrency) sent at once: the first
    run's four faults trip the line (the fourth counts as a fault, not as a failed probe), the
    second run is skipped but for its probe."""
    service = _Service(_drop)
    client = BudgetedClient(service, 5.0)
    replies = client.map([{"n": i} for i in range(8)])
    assert [b["n"] for b, _ in service.sent] == [0, 1, 2, 3]
    assert [r.presumed for r in replies] == [""] * 4 + [SKIPPED] * 4
    assert client.line.probes == 0 and client.line.gap == PROBE_GAP  # the next probe after PROBE_GAP skips
    client.map([{"k": i} for i in range(PROBE_GAP)])  # the fourth skip was the last one: a probe now
    assert [b for b, _ in service.sent][4:] == [{"k": 0}] and client.line.probes == 1


def _dripping(tmp_path, transport: str) -> tuple:
    """``run`` of a service that answers the request before the audit, then drips (HTTP) or
    hangs (MCP) every request, at --timeout 1: (exit code, audit.json, requests the audit
    made, requests the service saw (HTTP), seconds)."""
    log = tmp_path / "seen.jsonl"
    name = "drip-after-preflight" if transport == "http" else "mcp-hang-after-preflight"
    with running(name, mcp=transport == "mcp", headers_log=log) as url:
        log.write_text("")
        target = ["--http", url, "--contract", CONTRACT] if transport == "http" else \
            ["--mcp", url + "mcp", "--tool", CONTRACT]
        started = time.monotonic()
        proc = cli("run", *target, "--timeout", "1", "--max-examples", "3", "--quiet", "--json",
                   str(tmp_path / "a.json"))
        seconds = time.monotonic() - started
    doc = json.loads((tmp_path / "a.json").read_text()) if (tmp_path / "a.json").is_file() else {}
    made = doc["implementations"][0]["contract"]["requests"] if doc else None
    seen = sum(1 for line in log.read_text().splitlines() if json.loads(line)[":path"] == "/")
    return proc, doc, made, seen, seconds


def _check_bounded(proc, doc, made, seconds):
    assert proc.returncode == 1, proc.stdout + proc.stderr
    # the request before the audit, three faults in a row, a few probes and one confirmation
    assert made is not None and made <= 3 * IN_A_ROW + 3, made
    [found] = [f for f in doc["findings"] if f["minimal"]["outcome"] == "timeout"]
    assert "no answer within 1 s" in found["minimal"]["detail"]  # observed with the full timeout
    rows = {r["family"]: r["status"] for r in doc["implementations"][0]["contract"]["promises"]}
    assert rows["search"] == "broken" and "not checked" in rows.values() and "kept" not in rows.values(), rows
    assert seconds < 120, seconds  # a backstop only: ~10 s measured; 100 s and 95 requests before


def test_a_service_that_drips_after_a_good_preflight_costs_a_few_requests(tmp_path):
    proc, doc, made, seen, seconds = _dripping(tmp_path, "http")
    _check_bounded(proc, doc, made, seconds)
    assert seen == made  # what the service saw: the same count


def test_an_mcp_tool_that_hangs_after_a_good_preflight_costs_a_few_calls(tmp_path):
    proc, doc, made, _, seconds = _dripping(tmp_path, "mcp")
    _check_bounded(proc, doc, made, seconds)
