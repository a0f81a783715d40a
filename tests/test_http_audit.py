"""`chrf-audit run --http URL --contract chrf-plus-plus-compute@1.0.0` against real services on
127.0.0.1 (tests/http_services.py: examples/chrf_service.py on uvicorn, in a subprocess): the
reference service keeps every promise and reproduces the seed's example; each planted bug is
found and named, with a curl repro that runs and shows it; flapping, dropping and slow
services give the same findings as healthy ones; hangs and garbage are findings; user mistakes
are one line; nothing is left running."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from audit.adapters import resolve
from audit.enrich import enrich
from audit.collect.runner import run_audit
from tests.fixtures.procs import marked
from tests.http_services import SESSION, running

ROOT = Path(__file__).resolve().parents[1]
CONTRACT = "chrf-plus-plus-compute@1.0.0"
EXAMPLES = 15


def audit(url: str, *, examples: int = EXAMPLES, timeout: float = 5.0, **kw):
    adapters = resolve(http=url, contract=CONTRACT, timeout=timeout, **kw)
    try:
        return run_audit(adapters, seed=0, max_examples=examples, cases_dir=None)
    finally:
        for a in adapters:
            a.close()


def cli(*args, env=None, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "audit.cli", *args], capture_output=True, text=True, cwd=cwd,
                          env={**os.environ, **(env or {})}, timeout=600)


def essence(result) -> list:
    """What a run found, in a form two runs can be compared by."""
    return [(f.family, f.level, json.dumps(f.minimal.inputs), f.minimal.expected_fraction, f.minimal.actual,
             f.minimal.outcome) for f in result.findings]


def test_the_reference_service_keeps_every_promise(tmp_path):
    with running("healthy", mark="chrf-http-healthy") as url:
        proc = cli("run", "--http", url, "--contract", CONTRACT, "--max-examples", str(EXAMPLES), "--quiet",
                   "--json", str(tmp_path / "a.json"), "--markdown", str(tmp_path / "md"))
    assert proc.returncode == 0, proc.stderr
    assert "22 of 22 promises kept" in proc.stdout and "example: 82.872637 40260030811255/485806076756 (reproduced)" \
        in proc.stdout
    # the --http table is as wide as run's (100 columns off a terminal); its heading took 102 (issue 29 item 16)
    assert max(map(len, proc.stdout.splitlines())) <= 100, max(proc.stdout.splitlines(), key=len)
    doc = json.loads((tmp_path / "a.json").read_text())
    import jsonschema

    jsonschema.validate(doc, json.loads((ROOT / "audit/render/schema.json").read_text()))
    [impl] = doc["implementations"]
    table = impl["contract"]
    assert doc["findings"] == [] and impl["version"] == CONTRACT
    assert {r["status"] for r in table["promises"]} == {"kept"} and len(table["promises"]) == 22
    assert table["example"]["service"] == {"score": "82.872637", "score_fraction": "40260030811255/485806076756",
                                           "segment_scores": ["83.308483", "82.578862"]}
    assert table["example"]["reproduced"] is True
    assert all(r["checked"] > 0 for r in table["promises"])
    md = next((tmp_path / "md").glob("*.md")).read_text()
    assert "## Contract conformance: `chrf-plus-plus-compute@1.0.0`" in md and "22 of 22 promises kept" in md
    assert marked("chrf-http-healthy" + SESSION) == []  # the service is gone with its process group


PLANTED = {
    "half-up": {"contract-score-rounding"},
    # issue 32: the rest of the planted set
    "truncated": {"contract-score-rounding"},
    "no-effective-order": {"contract-segment-scores", "contract-corpus-score"},
    "lowercased-tokens": {"contract-lowercase"},
    "unreduced-fraction": {"contract-fraction-reduced"},
    "ascii-whitespace": {"whitespace-set-ascii", "contract-segment-scores"},
    "every-punctuation": {"contract-word-tokens"},
    "257-segments": {"contract-refuses-segment-count"},
    "surrogate-500": {"contract-refuses-lone-surrogates"},
    "cache-by-hypotheses": {"contract-request-independence"},
    # issue 29: lists one item short on multi-segment requests, a repeated member, "0.000000\n"
    "short-segment-scores": {"contract-segment-scores"},
    "short-word-tokens": {"contract-word-tokens"},
    "duplicate-keys": {"contract-response-schema"},
    "score-newline": {"contract-response-schema"},
}


@pytest.mark.parametrize("bug", sorted(PLANTED))
def test_each_planted_bug_is_found_named_and_reproduced_with_curl(bug, tmp_path):
    with running(bug) as url:
        result = audit(url)
        families = {f.family for f in result.findings}
        assert PLANTED[bug] <= families, families
        enriched = enrich(result, with_upstream=True)
        for f in result.findings:
            if f.family not in PLANTED[bug] or f.origin != "contract" and f.family.startswith("contract-"):
                continue
            fd = enriched.of(f)
            assert fd.snippet_language == "sh" and "curl -sS -X POST" in fd.snippet
            out = subprocess.run(["bash", "-c", fd.snippet], capture_output=True, text=True, timeout=60)
            assert out.returncode == 0, out.stderr
            shown = f.minimal.actual_raw if f.minimal.outcome == "value" else None
            if f.family == "contract-refuses-lone-surrogates":
                assert "HTTP 500" in out.stdout  # the repro shows the server error
            elif f.family == "contract-refuses-segment-count":
                assert "HTTP 200" in out.stdout and '"segment_count": 257' in out.stdout
            elif shown:
                assert shown.strip("'") in out.stdout, (f.family, shown, out.stdout[:300])
    table = result.adapters[0].contract
    broken = {r["family"] for r in table["promises"] if r["status"] == "broken"}
    assert PLANTED[bug] - {"whitespace-set-ascii"} <= broken


@pytest.mark.parametrize("bug, family", [("short-segment-scores", "segment_scores"), ("short-word-tokens", "word_tokens")])
def test_the_gate_fails_a_list_one_item_short(bug, family, tmp_path):
    """segment_scores (or word_tokens) one item short, with wrong values, on every request of
    more than one segment: the judge skipped lists of the wrong length and the gate passed
    ("22 of 22 promises kept", exit 0).  A wrong length is a broken promise."""
    with running(bug) as url:
        proc = cli("run", "--http", url, "--contract", CONTRACT, "--max-examples", "5", "--json", str(tmp_path / "a.json"))
    assert proc.returncode == 1, (proc.stdout, proc.stderr)
    assert "21 of 22 promises kept" in proc.stdout
    [f] = json.loads((tmp_path / "a.json").read_text())["findings"]
    assert f["family"] == f"contract-{family.replace('_', '-')}" and f["minimal"]["outcome"] == "invalid"
    assert f["minimal"]["detail"].endswith(f"{family} has 3 items for 4 segments")


def test_the_planted_families_come_with_the_right_evidence():
    with running("half-up") as url:
        result = audit(url, examples=5)
    [f] = [f for f in result.findings if f.family == "contract-score-rounding"]
    assert f.minimal.expected_fraction == "25/128" and f.minimal.actual_raw == "0.195313"
    assert "half-up rounding" in f.minimal.detail and f.request["hypotheses"][0].startswith("ax x")


@pytest.mark.parametrize("fault", ["flapping", "dropping", "slow"])
def test_a_flaky_transport_gives_the_same_findings(fault):
    """Every third request 503 (or every fourth connection cut mid-answer, or each answer
    late): the retries make the audit see what it sees of a healthy service."""
    with running("half-up") as url:
        healthy = audit(url)
    with running(f"half-up+{fault}") as url:
        flaky = audit(url)
    assert essence(flaky) == essence(healthy) and essence(healthy)
    assert [r["status"] for r in flaky.adapters[0].contract["promises"]] == \
        [r["status"] for r in healthy.adapters[0].contract["promises"]]
    if fault != "slow":
        assert flaky.adapters[0].contract["retries"] > 0 == healthy.adapters[0].contract["retries"]


def test_hangs_and_garbage_are_findings_not_failures():
    with running("hang-on-tilde") as url:
        hung = audit(url, examples=5, timeout=1.0)
    assert "timeout" in {f.minimal.outcome for f in hung.findings}
    with running("garbage-on-tilde") as url:
        garbage = audit(url, examples=5)
    assert "invalid" in {f.minimal.outcome for f in garbage.findings}


def test_user_mistakes_are_one_line(tmp_path):
    with running("healthy") as url:
        pass  # the port is free again: connection refused
    for args, message in [
        (["--http", url, "--contract", CONTRACT], "connection refused"),
        (["--http", "localhost:8000", "--contract", CONTRACT], "not an http:// or https:// URL"),
        (["--http", "http://127.0.0.1:9/", "--contract", "nope@1"], "unknown contract 'nope@1'"),
        (["--http", "http://127.0.0.1:9/"], "go together"),
        (["--http", "http://127.0.0.1:9/", "--contract", CONTRACT, "--beta", "3"], "claim flags (beta) do not apply"),
        (["--http", "http://127.0.0.1:99999/", "--contract", CONTRACT], "port 99999 is not a TCP port"),
        (["--http", "http://::1:8000/", "--contract", CONTRACT], "not a URL"),
        (["--http", "http://u:pw-s3cret@[::1/", "--contract", CONTRACT], "--http 'http://***@[::1/': not a URL"),
    ]:
        proc = cli("run", *args, "--quiet", "--max-examples", "2")
        assert proc.returncode == 2, (args, proc.stdout, proc.stderr)
        assert message in proc.stderr and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    with running("healthy") as url:
        proc = cli("run", "--http", url, "--contract", CONTRACT, "--max-requests", "5", "--quiet",
                   "--max-examples", "5")
    assert proc.returncode == 2 and "--max-requests 5 reached" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr


def test_the_gate_and_the_baseline_work_for_a_service(tmp_path):
    (tmp_path / "cases").mkdir()
    with running("unreduced-fraction") as url:
        (tmp_path / "pyproject.toml").write_text(
            "[tool.chrf-audit]\nmax-examples = 5\n[[tool.chrf-audit.implementations]]\n"
            f'http = "{url}"\ncontract = "{CONTRACT}"\nname = "scorer"\n')
        first = cli("check", "--quiet", cwd=tmp_path)
        update = cli("check", "--quiet", "--update-baseline", cwd=tmp_path)
        again = cli("check", "--quiet", cwd=tmp_path)
    assert first.returncode == 1 and "NEW      scorer  contract-fraction-reduced" in first.stdout, first.stdout
    assert update.returncode == 0 and again.returncode == 0, (update.stderr, again.stdout)
    entries = json.loads((tmp_path / "chrf-audit-baseline.json").read_text())
    assert "contract-fraction-reduced" in json.dumps(entries)


def test_secrets_from_the_environment_stay_out_of_reports(tmp_path):
    """A service that echoes every header it gets (the bearer token, a configured header, the
    URL's password as Basic credentials) in refusals, in scores and in non-JSON answers: no
    output holds a secret -- markdown, issue files, audit.json, junit.xml, --json, --junit,
    the terminal -- and the echoes are there, redacted (before: the token in 8 issue files)."""
    env = {"CHRF_AUDIT_HTTP_TOKEN": "tok-s3cret", "CHRF_AUDIT_HTTP_HEADERS": json.dumps({"X-Key": "hdr-s3cret"})}
    with running("echo") as url:
        proc = cli("run", "--http", url.replace("http://", "http://user:pw-s3cret@"), "--contract", CONTRACT,
                   "--max-examples", "5", "--reports-dir", str(tmp_path / "r"), "--json", str(tmp_path / "a.json"),
                   "--junit", str(tmp_path / "j.xml"), env=env)
    assert proc.returncode == 1, proc.stderr
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert {"a.json", "j.xml", "audit.json", "junit.xml"} <= {p.name for p in files}
    assert len([p for p in files if p.parent.parent.name == "issues"]) >= 3
    written = "".join(p.read_text() for p in files)
    for form in ("s3cret", "cHctczNjcmV0", "dXNlcjpwdy1zM2NyZXQ"):  # and the base64 of the password, user:password
        assert form not in written + proc.stdout + proc.stderr, form
    assert "x-key: [redacted]" in json.dumps(json.loads((tmp_path / "a.json").read_text()))
    assert "$CHRF_AUDIT_HTTP_TOKEN" in written and "$CHRF_AUDIT_HTTP_HEADERS" in written


def test_no_service_is_left_running():
    """Every service these tests started (marked through its environment) is gone."""
    assert marked("chrf-http-test" + SESSION) == [] and marked("chrf-http-healthy" + SESSION) == []


def test_the_judge_computes_while_the_service_answers():
    """``judge_all`` hands the judge's exact values to ``on_written``: by the time an answer
    is read they are computed (the overlap benchmarks/bench_http_batching.py measures), and
    the answers are judged as without it (the reference service's: nothing broken)."""
    import chrf_service

    from audit.contract import load
    from audit.contract.checks import ContractRun, judge_all
    from audit.contract.judge import Judge
    from audit.contract.probes import score_probes
    from audit.http.client import Reply

    contract = load(CONTRACT)
    judge, service = Judge(contract), chrf_service.Service()
    probes = score_probes(contract)
    ready = []

    class Client:
        def confirmed(self, body, on_written=None):
            on_written()
            f = probes[len(ready)].fields  # this request's
            ready.append((tuple(f["hypotheses"]), tuple(f["references"]), f["beta"], f["lowercase"]) in judge._cache)
            status, answer = service.handle(json.dumps(body).encode())
            return Reply("json", status, answer, "", f"HTTP {status}")
    run = ContractRun()
    judge_all(run, judge, probes, Client())
    assert len(probes) > 5 and ready == [True] * len(probes) and not run.broken


@pytest.mark.parametrize("service", ["sacrebleu", "sacrebleu+flapping"])
def test_a_service_answering_like_the_published_example_with_sacrebleus_convention_keeps_every_promise(service,
                                                                                                    tmp_path):
    """Issue 32's "done when": a service written on sacreBLEU's own arithmetic
    (examples/chrf_sacrebleu_service.py), answering in the published example's envelope and
    following sacreBLEU 2.x's convention for the hypothesis n-grams of a segment without
    reference n-grams -- and the same service answering 503 with Retry-After: 0 to every third
    request -- exit 0 with no finding and a note naming the reading it follows."""
    with running(service) as url:
        proc = cli("run", "--http", url, "--contract", CONTRACT, "--max-examples", "5", "--quiet",
                   "--markdown", str(tmp_path / "md"))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    md = next((tmp_path / "md").glob("*.md")).read_text()
    assert "the service's answers follow: **hypothesis n-grams of a segment without reference n-grams: not " \
           "counted, as sacreBLEU 2.x**" in md
    assert "no finding" in proc.stdout and "22 of 22 promises kept" in proc.stdout
    assert "reading: hypothesis n-grams of a segment without reference n-grams: not counted, as sacreBLEU 2.x" \
        in " ".join(proc.stdout.split())  # wrapped to the terminal's width
    assert "Traceback" not in proc.stdout + proc.stderr


def test_a_truncating_service_is_a_rounding_finding_only():
    """Scores truncated to six decimals differ from the exact value by less than one unit of
    the last place: the search allows that (the decimals are the contract's business) and the
    contract names it; it is no float32-arithmetic bug of the metric."""
    with running("truncated") as url:
        result = audit(url, examples=5)
    assert {f.family for f in result.findings} == {"contract-score-rounding"}


def test_the_example_service_without_starlette_is_one_line_not_a_traceback():
    """``examples/chrf_service.py`` without the service extra tracebacked (issue 29 item 16)."""
    import subprocess
    import sys
    from pathlib import Path

    example = Path(__file__).resolve().parents[1] / "examples" / "chrf_service.py"
    code = ("import runpy, sys; sys.modules['starlette'] = None; sys.argv = ['chrf_service.py', '--port', '0']; "
            f"runpy.run_path({str(example)!r}, run_name='__main__')")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.splitlines() == ["chrf_service: error: needs starlette: pip install -e '.[service]' in chrf-audit's clone"]


def test_the_contract_table_wraps_within_the_width():
    """Every line of the --http table within the width: the heading, the example and the document
    lines were not clipped (102 columns measured); a long line wraps at spaces, nothing is lost."""
    from audit.render.contract_table import terminal_lines

    name = "chrf-plus-plus-compute-with-a-very-long-name@1.0.0"
    table = {"contract": name, "promises": [{"status": "kept", "family": "score", "promise": "p"}] * 3}
    lines = terminal_lines("an implementation with a long name " * 2, table, 100)
    assert max(map(len, lines)) <= 100
    assert name in " ".join(lines) and "3 of 3 promises kept" in " ".join(lines)
