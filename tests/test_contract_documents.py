"""The machine-readable contract (issue 32 item 4): ``--contract auto`` (the versioned contract
path of the service), ``--contract URL`` and ``--contract FILE`` load a contract document,
compare it with the built-in contract of the same name@version and report the differences
before the audit.  Hostile documents are rows of docs/fault-catalogue.md (tests/http_faults.py)."""

from __future__ import annotations

import json

import pytest

from audit.adapters.http import contract_for
from audit.contract import document as D
from audit.contract import load
from audit.errors import UsageError
from tests.http_services import running
from tests.test_http_audit import CONTRACT, cli

BUILT_IN = load(CONTRACT)


def test_auto_reads_the_services_versioned_contract_and_finds_it_the_built_in_one(tmp_path):
    with running("healthy") as url:
        proc = cli("run", "--http", url, "--contract", "auto", "--max-examples", "3", "--quiet",
                   "--json", str(tmp_path / "a.json"))
    assert proc.returncode == 0 and "no finding" in proc.stdout, proc.stdout + proc.stderr
    [impl] = json.loads((tmp_path / "a.json").read_text())["implementations"]
    assert impl["contract"]["document"] == {"from": url + "v1/tools/chrf-plus-plus-compute/versions/1.0.0",
                                            "audited": "the document", "differences": [], "builtin": True}
    assert impl["version"] == CONTRACT


def test_a_contract_file_that_differs_from_the_built_in_one_is_reported_before_the_audit(tmp_path):
    doc = json.loads(json.dumps(BUILT_IN.doc))
    doc["limits"]["max_segments"] = 128
    doc["input_schema"]["properties"]["hypotheses"]["maxItems"] = 128
    (tmp_path / "c.json").write_text(json.dumps(doc))
    said = []
    contract, record = contract_for(str(tmp_path / "c.json"), "http://127.0.0.1:9/", timeout=1.0, say=said.append)
    assert contract.max_segments == 128 and record["audited"] == "the document"
    assert record["differences"] == ["/limits/max_segments: 128 (built in: 256)",
                                     "/input_schema/properties/hypotheses/maxItems: 128 (built in: 256)"]
    assert said[0].endswith("2 differences from the built-in chrf-plus-plus-compute@1.0.0 (the document is audited):")
    assert said[1:] == ["  " + d for d in record["differences"]]
    # the built-in name itself: no document, nothing to compare
    assert contract_for(CONTRACT, "http://127.0.0.1:9/", timeout=1.0)[1] is None


def test_a_tool_document_is_held_against_the_built_in_contract():
    tool = {"id": "chrf-plus-plus-compute", "version": "1.0.0", "limits": {"max_segments": 512},
            "input_schema": BUILT_IN.doc["input_schema"]}
    contract, diffs, used = D.read(json.dumps(tool), "http://svc/v1/tools/x")
    assert contract.id == CONTRACT and used == "built-in"
    assert diffs == ["/limits/max_segments: 512 (built in: 256)"]
    with pytest.raises(UsageError, match="no contract"):
        D.read(json.dumps(dict(tool, id="other-tool")), "http://svc/x")
    with pytest.raises(UsageError, match="neither a chrf-audit contract"):
        D.read(json.dumps([1, 2]), "http://svc/x")


def test_differences_are_bounded():
    doc = json.loads(json.dumps(BUILT_IN.doc))
    doc["output_schema"]["properties"]["result"]["properties"] = {
        k: {"type": "null"} for k in BUILT_IN.doc["output_schema"]["properties"]["result"]["properties"]}
    doc["parameters"] = {"beta": {"minimum": 2, "maximum": 3, "default": 2}, "lowercase": {"default": True}}
    doc["limits"] = {"max_segments": 5, "max_text_bytes": 2000}
    diffs = D.differences(doc, BUILT_IN.doc)
    assert len(diffs) == D.MOST + 1 and diffs[-1].startswith("... and ")


def test_a_configuration_entry_names_a_document_by_url_or_auto(tmp_path):
    """`[tool.chrf-audit]` entries take the same --contract values: a URL or auto is not a
    file relative to the configuration (a contract file still is)."""
    from audit.gate.config import parse

    entries = [{"http": "http://127.0.0.1:9/", "contract": c} for c in ("auto", "http://svc/v1/c", "c.json", CONTRACT)]
    cfg = parse({"implementations": entries}, tmp_path / "pyproject.toml")
    assert [e.contract for e in cfg.implementations] == ["auto", "http://svc/v1/c", str(tmp_path / "c.json"), CONTRACT]


@pytest.mark.parametrize("transport", ["http", "mcp"])
def test_credentials_go_to_the_audited_service_only(tmp_path, transport):
    """`--contract URL` on another origin (a document server on a second port) is fetched
    without CHRF_AUDIT_HTTP_TOKEN / CHRF_AUDIT_HTTP_HEADERS (issue 39 item 1), while every
    request to the audited service carries them."""
    from tests.fixtures.recording import recording

    token, key = "tok-s3cret-39", "hdr-s3cret-39"
    env = {"CHRF_AUDIT_HTTP_TOKEN": token, "CHRF_AUDIT_HTTP_HEADERS": json.dumps({"X-Key": key})}
    log = tmp_path / "service-headers.jsonl"
    with recording({"/c": json.dumps(BUILT_IN.doc)}) as (docs, seen), \
            running("healthy", mcp=transport == "mcp", headers_log=log) as url:
        log.write_text("")  # what the audit sent (not the readiness check of running())
        target = ["--http", url] if transport == "http" else ["--mcp", url + "mcp", "--tool", CONTRACT]
        proc = cli("run", *target, "--contract", docs + "c", "--max-examples", "3", "--quiet", env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert [(m, p) for m, p, _ in seen] == [("GET", "/c")]
    assert not any(token in v or key in v for h in seen.headers for v in h.values()), seen.headers
    assert not {"authorization", "x-key"} & set(seen.headers[0])
    sent = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(sent) >= 2 and all(h.get("authorization") == f"Bearer {token}" and h.get("x-key") == key
                                  for h in sent), sent


def test_contract_auto_fetches_from_the_services_origin_with_its_credentials(tmp_path):
    """`--contract auto` reads the service's own versioned path: the same origin, so it is
    sent the user's headers like every other request to the service."""
    log = tmp_path / "service-headers.jsonl"
    with running("healthy", headers_log=log) as url:
        log.write_text("")  # what the audit sent (not the readiness check of running())
        proc = cli("run", "--http", url, "--contract", "auto", "--max-examples", "3", "--quiet",
                   env={"CHRF_AUDIT_HTTP_TOKEN": "tok-auto-39"})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    sent = [json.loads(line) for line in log.read_text().splitlines()]
    got = [h for h in sent if h[":path"] == BUILT_IN.doc["machine_readable"]]
    assert got and all(h.get("authorization") == "Bearer tok-auto-39" for h in sent)


def test_a_redirect_from_the_services_origin_is_not_followed_with_the_credentials(tmp_path):
    """`--contract auto` at a service whose versioned path redirects to another origin: the
    redirect is not followed (its status is the one line), so the other origin sees nothing."""
    from tests.fixtures.recording import recording

    path = BUILT_IN.doc["machine_readable"]
    with recording({"/c": json.dumps(BUILT_IN.doc)}) as (elsewhere, seen_elsewhere), \
            recording({path: (302, b"", {"Location": elsewhere + "c"})}) as (service, seen):
        proc = cli("run", "--http", service, "--contract", "auto", env={"CHRF_AUDIT_HTTP_TOKEN": "tok-redirect-39"})
    assert proc.returncode == 2 and "HTTP 302" in proc.stderr and len(proc.stderr.splitlines()) == 1, proc.stderr
    assert seen_elsewhere == [] and [h.get("authorization") for h in seen.headers] == ["Bearer tok-redirect-39"]
