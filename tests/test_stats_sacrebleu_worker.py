"""The built-in sacreBLEU procedures (``audit.stats.builtin``) run sacreBLEU in a callable
worker, never in chrf-audit's process: their values are sacreBLEU's own (parameters and seed
reach the worker), and a sacreBLEU that crashes, hangs or cannot be imported is a robustness
finding while the audit goes on (planted copies of the installed package on PYTHONPATH)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from audit.processes import owner as procs
from audit.stats import builtin
from audit.stats.checks import Settings
from audit.stats.checks_edge import check_edges
from reference_impl import ChrfParams
from tests.fixtures.procs import with_command

FAST = Settings(trials=40)
ROOT = Path(__file__).resolve().parents[1]
HYPS = ["the cat sat on the mat", "a dog barked at night", "Rain fell all day long."]
HYPS_B = ["the cat sat on a mat", "dogs bark at nights", "It rained the whole day."]
REFS = [["the cat sat on the mat", "a cat was on the mat"], ["the dog barked at night", "a dog barks"],
        ["It rained all day.", "Rain fell all day."]]


def _planted_sacrebleu(tmp_path: Path, tail: str = "", init_tail: str = "") -> Path:
    """A copy of the installed sacreBLEU with ``tail`` appended to significance.py and
    ``init_tail`` to __init__.py; returns the directory to put on PYTHONPATH."""
    import sacrebleu  # the test process may import it: it is the parent of nothing here
    src = Path(sacrebleu.__file__).parent
    dest = tmp_path / "planted" / "sacrebleu"
    shutil.copytree(src, dest, ignore=shutil.ignore_patterns("__pycache__"))
    with open(dest / "significance.py", "a", encoding="utf-8") as f:
        f.write("\n" + tail + "\n")
    with open(dest / "__init__.py", "a", encoding="utf-8") as f:
        f.write("\n" + init_tail + "\n")
    return dest.parent


def _workers() -> list[int]:
    """Live (non-zombie) processes hosting audit.stats.sacrebleu_calls."""
    # of this checkout (its root is the workers' import directory): other checkouts on the
    # machine may run the same tests at the same time
    return sorted(set(with_command("audit.stats.sacrebleu_calls")) & set(with_command(str(ROOT))))


CHILD = r"""
import json, os, sys
from audit.stats import builtin
from reference_impl import ChrfParams
hyps, hyps_b, refs = json.loads(sys.argv[1])
params = ChrfParams.make(char_order=4, word_order=2, beta=1, lowercase=True)
out = {}
for proc in builtin.sacrebleu_procedures(params):
    if proc.kind == "ci":
        o = proc.ci(hyps, refs, resamples=50, alpha=0.05, seed=7)
    else:
        o = proc.paired(hyps, hyps_b, refs, resamples=50, seed=7)
    out[proc.name] = {"kind": o.kind, "values": o.values, "detail": o.detail,
                      "worker": proc.process.proc.pid}
    proc.close()
out["parent"] = os.getpid()
out["sacrebleu_imported"] = sorted(m for m in sys.modules if m.split(".")[0] == "sacrebleu")
out["seed_env"] = os.environ.get("SACREBLEU_SEED")
print(json.dumps(out))
"""


def test_sacrebleu_runs_only_in_workers_with_the_parameters_and_seed_it_is_given():
    env = {k: v for k, v in os.environ.items() if k != "SACREBLEU_SEED"}
    res = subprocess.run([sys.executable, "-c", CHILD, json.dumps([HYPS, HYPS_B, REFS])], cwd=ROOT,
                         env=env, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    got = json.loads(res.stdout)
    assert got["sacrebleu_imported"] == [] and got["seed_env"] is None
    pids = {got[n]["worker"] for n in ("sacrebleu:ci", "sacrebleu:paired-ar", "sacrebleu:paired-bs")}
    assert len(pids) == 3 and got["parent"] not in pids

    # the same calls made directly (here, in the test process) with the same CHRF and seed
    from sacrebleu.metrics import CHRF
    from sacrebleu.significance import PairedTest
    streams = [list(x) for x in zip(*REFS)]
    metric = dict(char_order=4, word_order=2, beta=1, lowercase=True)
    old = os.environ.get("SACREBLEU_SEED")
    os.environ["SACREBLEU_SEED"] = "7"
    try:
        s = CHRF(**metric).corpus_score(HYPS, streams, n_bootstrap=50)
        p = {}
        for t in ("ar", "bs"):
            scores = PairedTest([("a", HYPS), ("b", HYPS_B)], {"chrF": CHRF(**metric)}, streams,
                                test_type=t, n_samples=50)()[1]
            p[t] = scores[next(k for k in scores if k != "System")][1].p_value
    finally:
        os.environ.pop("SACREBLEU_SEED") if old is None else os.environ.__setitem__("SACREBLEU_SEED", old)
    assert got["sacrebleu:ci"]["kind"] == "value"
    assert got["sacrebleu:ci"]["values"] == {"score": s.score, "low": s._mean - s._ci, "high": s._mean + s._ci}
    assert got["sacrebleu:ci"]["values"]["score"] != CHRF().corpus_score(HYPS, streams).score  # params arrived
    for t in ("ar", "bs"):
        assert got[f"sacrebleu:paired-{t}"] == {"kind": "value", "values": {"p_value": p[t]}, "detail": "",
                                                "worker": got[f"sacrebleu:paired-{t}"]["worker"]}


def test_procedure_keeps_sacrebleus_name_claims_and_source_and_starts_its_worker_at_the_first_call():
    proc = builtin.SacrebleuPaired("bs", ChrfParams.make())
    try:
        assert (proc.name, proc.library, proc.kind) == ("sacrebleu:paired-bs", "sacrebleu", "paired")
        assert proc.source.startswith("sacrebleu/significance.py:_paired_bs_test")
        assert proc.claims.statistic == "bootstrap" and proc.claims.resamples == 1000 and proc.claims.strict
        from importlib.metadata import version
        assert proc.version == version("sacrebleu")
        assert proc.process.proc is None  # nothing started until a call
        out = proc.paired(HYPS, HYPS, REFS, resamples=199, seed=2000)
        assert out.kind == "value" and out.values["p_value"] == pytest.approx(1 / 200)
        assert proc.process.proc.pid != os.getpid()
        assert "PairedTest" in proc.snippet({"hyps": HYPS, "hyps_b": HYPS, "refs": REFS, "seed": 1,
                                             "resamples": 9})
    finally:
        proc.close()
    assert proc.process.proc is None


def test_planted_sacrebleu_that_exits_is_a_crash_finding_not_the_audits_end(tmp_path, monkeypatch):
    planted = _planted_sacrebleu(tmp_path, "import os\nPairedTest.__call__ = lambda self: os._exit(3)")
    monkeypatch.setenv("PYTHONPATH", str(planted))
    proc = builtin.SacrebleuPaired("ar")
    try:
        res = [r for r in check_edges(proc, FAST) if r.is_finding]
        assert res and all(r.family == "robustness" and r.outcome == "crash" for r in res)
        assert "process died: exit status 3" in res[0].summary
        assert proc.process.restarts >= len(res)  # a fresh worker after every crash
        # the unplanted CI in the same process still computes (the audit goes on)
        monkeypatch.delenv("PYTHONPATH")
        ci = builtin.SacrebleuCI()
        try:
            assert ci.ci(HYPS, REFS, resamples=20, alpha=0.05, seed=1).kind == "value"
        finally:
            ci.close()
    finally:
        proc.close()
    deadline = time.monotonic() + 10
    while _workers() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _workers() == []


def test_planted_sacrebleu_that_dies_on_import_or_hangs_gives_crash_and_timeout(tmp_path, monkeypatch):
    dying = _planted_sacrebleu(tmp_path / "a", init_tail="import os\nos._exit(4)")
    monkeypatch.setenv("PYTHONPATH", str(dying))
    ci = builtin.SacrebleuCI()
    try:
        out = ci.ci(HYPS, REFS, resamples=20, alpha=0.05, seed=1)
        assert (out.kind, out.values) == ("crash", None) and "exit status 4" in out.detail
    finally:
        ci.close()
    hanging = _planted_sacrebleu(tmp_path / "b", "import time\nPairedTest.__call__ = lambda self: time.sleep(600)")
    monkeypatch.setenv("PYTHONPATH", str(hanging))
    proc = builtin.SacrebleuPaired("bs", timeout=3)  # hang detection: the planted call never returns
    try:
        out = proc.paired(HYPS, HYPS_B, REFS, resamples=20, seed=1)
        assert out.kind == "timeout" and "no answer within 3 s" in out.detail
    finally:
        proc.close()
    assert not [p for p in procs.live() if p.poll() is None and "sacrebleu_calls" in " ".join(p.args)]


def test_exception_text_is_kept_verbatim_as_the_in_process_call_reported_it(tmp_path, monkeypatch):
    """A multi-line message keeps its whitespace and is cut at 300 characters, as ``guarded``
    did; a user callable's message is still folded to one line (callable_worker._short)."""
    msg = "first line\n   second  line " + "x" * 400
    planted = _planted_sacrebleu(tmp_path, f"def _boom(self):\n    raise ValueError({msg!r})\n"
                                           "PairedTest.__call__ = _boom")
    monkeypatch.setenv("PYTHONPATH", str(planted))
    proc = builtin.SacrebleuPaired("ar")
    try:
        out = proc.paired(HYPS, HYPS_B, REFS, resamples=20, seed=1)
    finally:
        proc.close()
    assert (out.kind, out.detail) == ("exception", f"ValueError: {msg}"[:300])
    from audit.stats.callable_worker import answer

    def user_fn(a, b, refs):
        raise ValueError(msg)
    assert answer(user_fn, "paired", {})["error"] == " ".join(f"ValueError: {msg}".split())[:300]
