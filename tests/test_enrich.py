"""The enrich stage (audit.enrich): per-finding details keyed by (implementation, family,
level), patch verifications taken from the caller and never cached behind its back, and
scope sweeps scored through isolated adapters, never in the audit's own process."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from audit import upstream
from audit.enrich import enrich, verification
from audit.enrich.scoring import AdapterScorer, adapter_name
from audit.enriched import finding_key
from audit.findings import AdapterSummary, AuditResult, Finding, Repro
from audit.upstream import sweeps
from reference_impl import sentence_score
from tests.fixtures.report_examples import NLTK_CLAIMS, example_result

ROOT = Path(__file__).resolve().parents[1]
PLANTED = {"impl": "tests.planted_sweep:chrf"}
DEFAULT_CLAIMS = {"char_order": 6, "word_order": 0, "beta": 2, "lowercase": False, "whitespace": False,
                  "definition": "sacrebleu", "scale": 100}


def _finding(impl: str, family: str, claims: dict, level: str = "sentence") -> Finding:
    inputs = ({"hypothesis": "a", "references": ["a"]} if level == "sentence"
              else {"hypotheses": ["a"], "references": [["a"]]})
    m = Repro(level=level, inputs=inputs, expected=100.0, expected_fraction="100", actual=50.0,
              actual_raw="50.0", outcome="value")
    return Finding(implementation=impl, family=family, level=level, title=family, claims=dict(claims),
                   reference_signature="", implementation_signature="", minimal=m)


def test_details_keyed_by_implementation_family_level():
    res = example_result()
    e = enrich(res)
    assert set(e.details) == {finding_key(f) for f in res.findings}
    assert ("nltk", "corpus-macro-average", "corpus") in e.details
    # a copy of a finding (another object, same record) finds the same details: no id()
    import copy

    f = res.findings[0]
    assert e.of(copy.deepcopy(f)) is e.of(f)
    assert e.environment["packages"]["nltk"] == res.adapters[0].version


def test_verifications_come_from_the_caller_only(monkeypatch):
    """``verified`` is used as given (a False stays False, a missing one is "not checked");
    without ``verify`` nothing is verified, and nothing is remembered between calls.  One job
    per patch: nltk's three definition differences share one (keyed by its first family)."""
    res = example_result()
    calls = []
    monkeypatch.setattr(verification, "_verify", lambda *a: calls.append(a) or True)
    e = enrich(res, verified={("nltk", "requested-order-divisor"): False})
    by = {k[1]: v.patch["verified"] for k, v in e.details.items() if v.patch}
    assert by["f-score-averaged"] is False and by["corpus-macro-average"] is False  # the same patch
    assert by["whitespace-set-white-space"] is None
    assert calls == []
    e = enrich(res, verified={("nltk", "requested-order-divisor"): False}, verify=True)
    by = {k[1]: v.patch["verified"] for k, v in e.details.items() if v.patch}
    assert by["f-score-averaged"] is False  # given, not redone
    assert by["whitespace-set-white-space"] is True
    # one job per patch (whatever its levels and families), each with the implementation's
    # findings; no combined patch: one bug, the rest opt-in keywords (a feature of its own)
    assert sorted(c[1] for c in calls) == ["whitespace-set-white-space"]
    assert e.combined_patch("nltk") is None
    nltk = res.adapters[0]
    assert all(c[0] == "nltk" and c[3] == [f.to_dict() for f in nltk.findings] for c in calls)
    calls.clear()
    enrich(res, verify=True)
    assert len(calls) == 2  # asked again, done again: no hidden cache


def test_start_verification_futures_by_patch(monkeypatch):
    from concurrent.futures import ThreadPoolExecutor

    monkeypatch.setattr(verification, "_verify", lambda impl, fam, diff, before: fam != "requested-order-divisor")
    res = example_result()
    with ThreadPoolExecutor(2) as pool:
        pending = {}
        for a in res.adapters:
            pending.update(verification.start_verification(a, pool))
        got = verification.results(pending)
    assert got == {("nltk", "requested-order-divisor"): False, ("nltk", "whitespace-set-white-space"): True}
    e = enrich(res, verified=got)
    assert e.details[("nltk", "f-score-averaged", "sentence")].patch["verified"] is False


def test_sweeps_py_imports_no_implementation():
    tree = ast.parse((ROOT / "audit/upstream/sweeps.py").read_text(encoding="utf-8"))
    names = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    names |= {(n.module or "").split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and not n.level}
    assert not names & {"nltk", "sacrebleu", "torchmetrics", "torch"}
    assert "scorers" not in (ROOT / "audit/upstream/sweeps.py").read_text(encoding="utf-8")
    for mod in ("nltk", "sacrebleu", "torchmetrics"):
        assert not hasattr(upstream.get(mod), "scorers")


def test_nltk_sweep_runs_in_a_worker_not_here():
    """In a fresh process: the nltk sweep of requested-order-divisor gives nltk's real values
    (1/6 of the reference's at length 1: nltk divides by the requested 6 orders), and nltk is
    never imported into that process; the adapter's worker is another process."""
    code = r'''
import json, os, sys
from types import SimpleNamespace
from audit import upstream
from audit.enrich.scoring import AdapterScorer
f = SimpleNamespace(family="requested-order-divisor", claims={"char_order": 6, "word_order": 0, "beta": 3,
    "lowercase": False, "whitespace": False, "definition": "sacrebleu", "scale": 1})
with AdapterScorer() as scorer:
    out = upstream.scope("nltk", f, scorer("nltk"))
    worker = scorer._adapters["nltk"].client.proc.pid
print(json.dumps({"rows": out["rows"], "modules": sorted(m for m in ("nltk", "sacrebleu", "torchmetrics")
                  if m in sys.modules), "worker": worker, "me": os.getpid(), "calls": scorer.calls}))
'''
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout)
    assert got["modules"] == [] and got["worker"] != got["me"] and got["calls"] == 1
    rows = got["rows"]
    assert [r["x"] for r in rows] == list(range(1, 11))
    assert rows[0]["expected"] == 100.0 and rows[0]["actual"] == pytest.approx(100 / 6, abs=1e-12)
    assert rows[5]["actual"] == pytest.approx(100.0, abs=1e-12)  # all 6 orders effective: no divergence


def test_planted_sweep_calls_happen_in_the_worker(tmp_path, monkeypatch):
    """A planted implementation logs its process id on each call: all the inputs of the
    whitespace sweep (29) arrive in one batch in a worker process.  Inputs it raises on, returns
    NaN for or dies on score None; the worker restarts and the other rows keep their values."""
    log = tmp_path / "pids.txt"
    monkeypatch.setenv("CHRF_AUDIT_PID_LOG", str(log))
    f = _finding("planted", "whitespace-set-white-space", DEFAULT_CLAIMS)
    with AdapterScorer(specs={"planted": PLANTED}) as scorer:
        score = scorer("planted")
        out = sweeps.sweep(f, DEFAULT_CLAIMS, lambda level, items: score(DEFAULT_CLAIMS, level, items))
        assert scorer.calls == 1
    pids = [int(x) for x in log.read_text().split()]
    assert len(pids) >= len(out["rows"]) == 29  # the str.isspace() code points
    assert os.getpid() not in pids
    assert len(set(pids)) == 2  # the worker, and the one restarted after U+2028 killed it
    by = {r["x"]: r for r in out["rows"]}
    assert by["U+3000"]["actual"] is None and by["U+0085"]["actual"] is None and by["U+2028"]["actual"] is None
    assert by["U+3000"]["difference"] is None
    exp = sentence_score("abc\u2029def", ["abcdef"]).score
    assert by["U+2029"]["actual"] == float(exp) and by["U+2029"]["difference"] == 0.0
    assert sum(r["actual"] is None for r in out["rows"]) == 3


def test_sacrebleu_sweeps_through_adapters_agree_with_the_reference():
    """Each sacreBLEU adapter is held to the finding's claims (chrF++, eps smoothing): the
    corpus-size sweep of sacreBLEU agrees with the reference on every row."""
    for impl, definition, word_order in (("sacrebleu-chrf++", "sacrebleu", 2), ("sacrebleu-chrf-eps", "sacrebleu-eps", 0)):
        claims = dict(DEFAULT_CLAIMS, definition=definition, word_order=word_order)
        f = SimpleNamespace(family="corpus-macro-average", claims=claims)
        with AdapterScorer() as scorer:
            out = upstream.scope(impl, f, scorer(impl))
        assert out["level"] == "corpus" and len(out["rows"]) == 10
        assert all(abs(r["difference"]) < 1e-9 for r in out["rows"]), impl


def test_adapter_names():
    assert adapter_name("sacrebleu-chrf++", {}) == "sacrebleu-chrf++"
    assert adapter_name("sacrebleu", {"definition": "sacrebleu-eps"}) == "sacrebleu-chrf-eps"
    assert adapter_name("sacrebleu", {"definition": "sacrebleu"}) == "sacrebleu-chrf"
    assert adapter_name("nltk", {}) == "nltk"
    assert adapter_name("torchmetrics", {"definition": "chrfpp"}) == "torchmetrics-chrf"
    assert adapter_name("mypkg.mod:fn", {}) is None and adapter_name("sacrebleu:chrf", {}) is None


def test_no_sweep_for_unknown_implementations_and_families():
    """Only built-in upstreams are swept, and only families with a sweep: no adapter is
    started for the others."""
    res = AuditResult(0, 1, 1e-9, [
        AdapterSummary("mypkg.mod:fn", None, DEFAULT_CLAIMS, "", findings=[
            _finding("mypkg.mod:fn", "whitespace-set-white-space", DEFAULT_CLAIMS)]),
        AdapterSummary("nltk", None, NLTK_CLAIMS, "", findings=[_finding("nltk", "unexplained", NLTK_CLAIMS)]),
    ])
    scorer = AdapterScorer()
    e = enrich(res, scorer=scorer)
    assert all(d.scope is None for d in e.details.values())
    assert scorer.calls == 0 and scorer._adapters == {}


def test_a_missing_library_means_no_sweep(monkeypatch):
    """An upstream whose adapter cannot start (torchmetrics without torch, say): no sweep,
    no traceback, and it is not started again for the next finding."""
    from audit.adapters import AdapterError

    tries = []

    def fail(*a, **k):
        tries.append(a or k)
        raise AdapterError("cannot load torchmetrics: No module named 'torch'")

    monkeypatch.setattr("audit.adapters.resolve", fail)
    claims = dict(DEFAULT_CLAIMS, definition="chrfpp", word_order=2, scale=1)
    res = AuditResult(0, 1, 1e-9, [AdapterSummary("torchmetrics-chrf++", "1.9.0", claims, "", findings=[
        _finding("torchmetrics-chrf++", "corpus-macro-average", claims, "corpus"),
        _finding("torchmetrics-chrf++", "requested-order-divisor", claims)])])
    e = enrich(res)
    assert [d.scope for d in e.details.values()] == [None, None]
    assert len(tries) == 1


def test_run_starts_verifying_during_the_audit_and_hands_the_results_to_enrich(tmp_path, monkeypatch):
    """``chrf-audit run``: an implementation's patch verifications are started from the
    audit's on_summary callback (before the audit returns), and their results, not a cache,
    are what the enrich stage gets and the report shows."""
    import audit.enrich as E
    from audit.cli import main
    from audit.commands import run as run_cmd

    events: list = []
    real_start, real_execute, real_enrich = E.start_verification, run_cmd.execute, E.enrich
    monkeypatch.setattr(verification, "_verify", lambda impl, fam, diff, before: fam != "whitespace-set-white-space")

    def start(summary, pool):
        events.append(("start", summary.implementation))
        return real_start(summary, pool)

    def execute(*a, **k):
        out = real_execute(*a, **k)
        events.append(("audited",))
        return out

    def enrich_(result, **k):
        events.append(("enrich", dict(k["verified"])))
        return real_enrich(result, **k)

    monkeypatch.setattr(E, "start_verification", start)
    monkeypatch.setattr(run_cmd, "execute", execute)
    monkeypatch.setattr(E, "enrich", enrich_)
    out = tmp_path / "r"
    assert main(["run", "--impl", "nltk", "--max-examples", "5", "--quiet", "--jobs", "1", "--reports-dir", str(out)]) == 1
    assert [e[0] for e in events] == ["start", "audited", "enrich"]
    verified = events[2][1]
    assert verified[("nltk", "whitespace-set-white-space")] is False and verified[("nltk", "requested-order-divisor")] is True
    doc = json.loads((out / "audit.json").read_text())
    by = {f["family"]: f["patch"]["verified"] for f in doc["findings"] if f["patch"]}
    assert by["whitespace-set-white-space"] is False and by["f-score-averaged"] is True
    md = (out / "nltk.md").read_text(encoding="utf-8")
    assert "**not verified**" in md and "**verified**" in md
