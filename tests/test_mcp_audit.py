"""`chrf-audit run --mcp URL --tool chrf-plus-plus-compute@1.0.0` (issue 32 item 5): the same tool
audited over the Model Context Protocol, against real MCP servers built with the official SDK
on 127.0.0.1 (examples/chrf_service.py's ``/mcp``: the tool ``execute`` called with ``{id,
version, input}``), gives the same findings as ``--http`` against the same scoring code; the
session, its loop and its thread end with the audit."""

from __future__ import annotations

import json
import subprocess
import sys
import threading

import pytest

from audit.adapters import resolve
from audit.collect.runner import run_audit
from tests.http_services import running
from tests.test_http_audit import CONTRACT, cli, essence

EXAMPLES = 5


def _threads() -> set:
    """This process's threads but chrf-audit's own process-wide helpers (the signal watcher)."""
    return {t for t in threading.enumerate() if not t.name.startswith("chrf-audit-")}


def _audit(**kw):
    adapters = resolve(timeout=5.0, **kw)
    try:
        return run_audit(adapters, seed=0, max_examples=EXAMPLES, cases_dir=None)
    finally:
        for a in adapters:
            a.close()


@pytest.mark.parametrize("service", ["sacrebleu", "half-up", "surrogate-500", "cache-by-hypotheses"])
def test_mcp_gives_the_same_findings_as_http_against_the_same_scoring_code(service):
    before = _threads()
    with running(service, mcp=True) as url:
        http = _audit(http=url, contract=CONTRACT)
        mcp = _audit(mcp=url + "mcp", tool=CONTRACT)
    assert essence(mcp) == essence(http)
    assert [(r["family"], r["status"]) for r in mcp.adapters[0].contract["promises"]] == \
        [(r["family"], r["status"]) for r in http.adapters[0].contract["promises"]]
    assert mcp.adapters[0].contract["readings"] == http.adapters[0].contract["readings"]
    assert mcp.adapters[0].contract["example"]["answer"] is True
    # the session's loop and thread are gone (a thread of an earlier test may end meanwhile)
    assert _threads() - before == set()
    if service == "sacrebleu":
        assert mcp.findings == [] and mcp.adapters[0].contract["readings"][0]["followed"] == "not-counted"
    else:
        assert mcp.findings


def test_an_mcp_findings_repro_is_a_script_on_the_sdk_that_shows_it(tmp_path):
    """The repro of a finding of an MCP tool: standalone Python on the official SDK calling
    the tool with the request that broke the promise; run, it prints the wrong value."""
    from audit.enrich import enrich

    with running("half-up", mcp=True) as url:
        result = _audit(mcp=url + "mcp", tool=CONTRACT)
        [f] = [f for f in result.findings if f.family == "contract-score-rounding"]
        fd = enrich(result, with_upstream=True).of(f)
        assert fd.snippet_language == "python" and "from mcp import Client" in fd.snippet
        (tmp_path / "repro.py").write_text(fd.snippet)
        out = subprocess.run([sys.executable, str(tmp_path / "repro.py")], capture_output=True, text=True,
                             timeout=120)
    assert out.returncode == 0, out.stderr
    assert f.minimal.actual_raw == "0.195313" and '"0.195313"' in out.stdout


def test_the_mcp_command_exits_0_against_the_reference_tool(tmp_path):
    with running("healthy", mcp=True) as url:
        proc = cli("run", "--mcp", url + "mcp", "--tool", CONTRACT, "--max-examples", str(EXAMPLES), "--quiet",
                   "--json", str(tmp_path / "a.json"))
    assert proc.returncode == 0 and "no finding" in proc.stdout and "22 of 22 promises kept" in proc.stdout, \
        proc.stdout + proc.stderr
    [impl] = json.loads((tmp_path / "a.json").read_text())["implementations"]
    assert impl["contract"]["example"]["reproduced"] is True and impl["implementation"] == url + "mcp"
