"""``chrf-audit stats --ci/--paired`` callables run in a worker process: whatever they do
(crash, hang, raise, exit, fork, print, scribble on descriptors, return garbage) becomes a
robustness finding with its outcome kind, the audit goes on with a fresh worker, and no
process or file is left behind (tests/planted_stats_hostile.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from audit.processes import owner as procs
from audit.cli import main
from audit.errors import UsageError
from audit.stats import callables
from audit.stats.checks import Settings
from audit.stats.checks_edge import check_edges
from tests.fixtures.procs import until, with_command

FAST = Settings(trials=40)
HOSTILE = "tests.planted_stats_hostile"


def _ours(fragment: str) -> set[int]:
    """Live processes of this checkout with ``fragment`` on their command line (the worker's
    argv names its import directory or interpreter here; other checkouts on the machine may
    run the same tests at the same time)."""
    return set(with_command(fragment)) & set(with_command(str(Path(__file__).resolve().parents[1])))


def _gone(fragment: str, wait: float = 10.0) -> bool:
    return until(lambda: not _ours(fragment), wait)


@pytest.mark.parametrize("name, outcome, detail", [
    ("paired_sigkill", "crash", "signal 9"),
    ("paired_hang", "timeout", "no answer within 10 s"),
    ("paired_raises", "exception", "RuntimeError: planted: identical systems"),
    ("paired_exits", "exception", "SystemExit: 0"),
    ("paired_garbage", "invalid", "non-numeric result 'p < 0.05'"),
    ("paired_scribbles", "invalid", "does not echo id"),
    ("paired_floods", "invalid", "an answer line longer than 1048576 bytes: xxxx"),
])
def test_hostile_paired_callable_is_a_robustness_finding(name, outcome, detail):
    spec = f"{HOSTILE}:{name}"
    proc = callables.make(spec, "paired", timeout=10)
    try:
        res = {r.check: r for r in check_edges(proc, FAST)}
    finally:
        proc.close()
    bad = res["identical systems"]
    assert bad.is_finding and bad.family == "robustness" and bad.outcome == outcome
    assert detail in bad.summary, bad.summary
    assert bad.call["hyps"] == bad.call["hyps_b"]            # the repro is the input that failed
    # the audit went on: later calls were answered by a fresh worker
    assert res["determinism (seed 0)"].status == "pass"
    assert res["determinism (seed 1234)"].status == "pass"
    assert not [p for p in procs.live() if "callable_worker" in str(p.args)]
    assert _gone(spec)


def test_garbage_object_and_nan_bounds_are_invalid_outcomes():
    proc = callables.make(f"{HOSTILE}:paired_garbage", "paired", timeout=30)
    try:
        one = {r.check: r for r in check_edges(proc, FAST)}["one segment"]
    finally:
        proc.close()
    assert one.outcome == "invalid" and "non-numeric result <weird>" in one.summary
    assert "RuntimeError: no float here" in one.summary
    proc = callables.make(f"{HOSTILE}:ci_nan", "ci", timeout=30)
    try:
        res = {r.check: r for r in check_edges(proc, FAST)}
    finally:
        proc.close()
    assert res["one segment"].outcome == "invalid" and "not a finite number" in res["one segment"].summary
    assert "empty segments" not in res        # answered with valid values: no robustness finding there


def test_forked_children_and_relative_writes_do_not_outlive_the_worker(tmp_path, monkeypatch):
    pid_file = tmp_path / "pids"
    monkeypatch.setenv("PLANTED_PID_FILE", str(pid_file))
    monkeypatch.chdir(Path(__file__).resolve().parents[1])   # the callable imports from here
    proc = callables.make(f"{HOSTILE}:paired_forks", "paired", timeout=30)
    workdir = Path(proc.process.tmp)
    try:
        out = proc.paired(["a b", "c d"], ["a c", "c d"], [["a b"], ["c d"]], resamples=50, seed=1)
        assert out.ok and 0 < out.values["p_value"] <= 1
        assert (workdir / "relative-write.txt").exists()   # its cwd is a private temp dir
    finally:
        proc.close()
    pids = [int(x) for x in pid_file.read_text().split()]
    # the forked children keep the worker's command line: none of them is left.  (Not
    # alive(pid): with pid_max 32768 on a busy machine a pid can be reused by another program.)
    assert pids and _gone(f"{HOSTILE}:paired_forks")
    assert not workdir.exists()
    assert not (Path.cwd() / "relative-write.txt").exists()


def test_a_module_that_crashes_on_import_is_a_usage_error(capsys):
    spec = "tests.planted_stats_import_crash:paired"
    with pytest.raises(UsageError, match="signal 9"):
        callables.make(spec, "paired", timeout=30)
    assert main(["stats", "--paired", spec, "--quiet"]) == 2
    assert "signal 9" in capsys.readouterr().err
    assert _gone(spec)


def test_cli_audit_of_a_crashing_callable_reports_and_exits_1(tmp_path):
    spec = f"{HOSTILE}:paired_sigkill"
    out = tmp_path / "stats.json"
    rc = main(["stats", "--paired", spec, "--trials", "20", "--quiet", "--json", str(out),
               "--timeout", "60"])
    assert rc == 1
    doc = json.loads(out.read_text())
    crash = [f for f in doc["findings"] if f["family"] == "robustness" and f["outcome"] == "crash"]
    assert crash and crash[0]["implementation"] == spec
    assert {f["family"] for f in doc["findings"]} == {"robustness"}   # nothing else is blamed
    assert _gone(spec)


@pytest.mark.parametrize("claims, message", [
    ({"statistic": "foo"}, "statistic 'foo' is not one of"),
    ({"interval": ["x"]}, "is not one of percentile, sacrebleu"),
    ({"resamples": 1e12}, "resamples and min_resamples in 1.."),
    ({"alpha": "abc"}, "could not convert"),
])
def test_external_stats_claims_the_models_do_not_know_are_usage_errors(tmp_path, capsys, claims, message):
    """The hello of an external program is untrusted data: an unknown statistic used to reach
    the float64 models and raise inside a check."""
    prog = tmp_path / "prog.py"
    prog.write_text(
        "import json, sys\n"
        "for line in sys.stdin:\n"
        "    req = json.loads(line)\n"
        f"    out = {{'stats': {{'paired-bootstrap': {claims!r}}}}} if req['op'] == 'hello' else {{'p_value': 0.5}}\n"
        "    out['id'] = req['id']\n"
        "    print(json.dumps(out), flush=True)\n")
    import sys
    assert main(["stats", "--external", f"{sys.executable} {prog}", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "invalid claims for 'paired-bootstrap'" in err and message in err, err
    assert _gone(str(prog))
