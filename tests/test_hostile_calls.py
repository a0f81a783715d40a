"""What one call of the implementation may do to the worker and to chrf-audit (issue 29 items
7, 9 and 13): objects whose methods raise are findings, not a dead worker; a flood on stderr
costs neither disk nor memory, and a full temporary directory fails no call; the
implementation cannot signal chrf-audit through its parent."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest

from audit.adapters import backends as B, resolve

ROOT = Path(__file__).resolve().parents[1]

MODULE = textwrap.dedent("""
    import os, signal, sys
    from reference_impl import sentence_score

    def _score(h, r):
        return float(sentence_score(h, list(r)).score)

    class BadFloat(float):
        def __float__(self):
            raise RuntimeError("no float for you")

    class BadStr(Exception):
        def __str__(self):
            raise RuntimeError("no text for you")

    class BadClass:
        @property
        def __class__(self):
            raise KeyError("who am I")

    def bad_float(h, r):
        return BadFloat(1.0)

    def bad_str(h, r):
        raise BadStr()

    def bad_class(h, r):
        return BadClass()

    def chatty(h, r):
        sys.stderr.write("x" * (1 << 20))  # 1 MiB per call
        print("and some stdout")
        return _score(h, r)

    def term_parent(h, r):
        os.kill(os.getppid(), signal.SIGTERM)
        return _score(h, r)

    def stop_parent(h, r):
        os.kill(os.getppid(), signal.SIGSTOP)
        return _score(h, r)

    def term_parent_group(h, r):
        os.killpg(os.getpgid(os.getppid()), signal.SIGTERM)
        return _score(h, r)
""")


@pytest.fixture
def planted(tmp_path, monkeypatch):
    (tmp_path / "hostile.py").write_text(MODULE)
    (tmp_path / "cases").mkdir()
    monkeypatch.chdir(tmp_path)
    return tmp_path


# -------------------------------------------------------------------------- item 7


def test_classify_never_raises():
    class BadFloat(float):
        def __float__(self):
            raise RuntimeError("no float")

    class BadRepr:
        def __repr__(self):
            raise ValueError("no repr")

    kind, raw, why = B.classify(BadFloat(2.0))
    assert (kind, raw) == ("invalid", "2.0") and "RuntimeError: no float" in why
    assert B.classify(BadRepr())[0] == "invalid"

    class BadStr(Exception):
        def __str__(self):
            raise RuntimeError("x")

    assert B.exception_detail(BadStr()) == "BadStr: <its __str__ raised RuntimeError>"


@pytest.mark.parametrize("fn, kind, detail", [
    ("bad_float", "invalid", "returned BadFloat not convertible to float: RuntimeError: no float for you"),
    ("bad_str", "exception", "BadStr: <its __str__ raised RuntimeError>"),
    ("bad_class", "invalid", "cannot be examined: KeyError: 'who am I'"),
])
def test_objects_whose_methods_raise_are_findings_not_a_dead_worker(planted, fn, kind, detail):
    [adapter] = resolve(f"hostile:{fn}", timeout=30.0)
    with adapter:
        outs = adapter.sentence_scores([("a", ["a"]), ("b", ["b"])])
        assert adapter.restarts == 0  # before: every call killed the worker
    assert [o.kind for o in outs] == [kind, kind] and detail in outs[0].detail


# -------------------------------------------------------------------------- item 9


def test_a_flood_on_stderr_is_read_from_a_pipe_and_only_its_end_is_kept(planted):
    [adapter] = resolve("hostile:chatty", timeout=30.0)
    with adapter:
        host = adapter._host
        outs = adapter.sentence_scores([(f"a{i}", ["a"]) for i in range(8)])
        assert [o.kind for o in outs] == ["value"] * 8
        assert os.readlink(f"/proc/{host.proc.pid}/fd/2").startswith("pipe:")  # no file grows
        said = host._stderr.text()
        assert said.endswith("x" * 100 + "and some stdout\n") and len(host._stderr.buf) <= 16000


def test_a_full_temporary_directory_fails_no_call(planted, monkeypatch):
    """TMPDIR full: every file write there fails with ENOSPC (/dev/full).  The worker's stderr
    used to be a temporary file there, so a correct implementation's prints raised."""
    monkeypatch.setattr(tempfile, "TemporaryFile", lambda *a, **k: open("/dev/full", "w+b", buffering=0))
    [adapter] = resolve("hostile:chatty", timeout=30.0)
    with adapter:
        outs = adapter.sentence_scores([("ab", ["ab"])])
    assert (outs[0].kind, outs[0].value) == ("value", 100.0), outs[0]


# ------------------------------------------------------------------------- item 13


@pytest.mark.parametrize("fn", ["term_parent", "stop_parent", "term_parent_group"])
def test_the_implementation_cannot_signal_the_audit_through_its_parent(planted, fn):
    """Its parent is a waiting subreaper, never chrf-audit: a SIGTERM to it (or its group)
    ends the worker at most (a crash finding), a SIGSTOP stops nothing of the audit."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("GITHUB_STEP_SUMMARY", None)
    proc = subprocess.Popen([sys.executable, "-m", "audit.cli", "run", "--impl", f"hostile:{fn}", "--quiet",
                             "--max-examples", "5", "--cases", "cases", "--timeout", "20"],
                            cwd=planted, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=600)
    except subprocess.TimeoutExpired:  # stopped: before, SIGSTOP froze the audit for ever
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        pytest.fail(f"the audit was frozen by its implementation: {err[-300:]}")
    assert proc.returncode in (0, 1), (proc.returncode, err[-500:])  # not 143: not terminated
    assert "Traceback" not in err


def test_a_call_that_changes_the_lists_it_was_given_says_so(planted):
    """An implementation that clears its caller's reference list, or sorts its hypotheses, was
    not flagged (issue 29): its value says what it changed (``arguments-mutated``)."""
    from audit.adapters.arguments import changes, snapshot

    refs = ["a", "b"]
    kept = snapshot(("h", refs))
    refs.clear()
    assert changes(kept, ("h", refs)) == "the call changed the references it was given (references: length 2 became 0)"
    hyps = ["b", "a"]
    kept = snapshot((hyps, [["x"], ["y"]]))
    hyps.sort()
    assert "hypotheses: sorted in place" in changes(kept, (hyps, [["x"], ["y"]]))
    assert changes(snapshot(("h", ["r"])), ("h", ["r"])) == ""

    (planted / "mutating.py").write_text("def f(h, r):\n    r.append('x')\n    return 0.0 if h != r[0] else 100.0\n")
    [adapter] = resolve("mutating:f", timeout=30.0)
    with adapter:
        [out] = adapter.sentence_scores([("a", ["a"])])
    assert (out.kind, out.value) == ("value", 100.0)
    assert out.mutated == "the call changed the references it was given (references: length 1 became 2)"
