"""The smaller faults of issue 19, item 11: what a run says (a lock it waits on, why a program
crashed, how to get torchmetrics), what it writes (no raw ESC or BEL of an implementation in
a report) and what it leaves (no Hypothesis directory of a killed run)."""

from __future__ import annotations

import fcntl
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

from audit.cli import main
from tests.fixtures.procs import until

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def _env(tmp_path: Path, **extra) -> dict:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(HERE), str(ROOT)]), **extra)
    env.pop("GITHUB_STEP_SUMMARY", None)
    return env


def test_escape_and_bell_of_an_implementation_never_reach_a_report(tmp_path, monkeypatch, capsys):
    """An external program answering errors that hold ESC sequences and BEL, and a callable
    raising one: the reports show them as \\u001b and \\u0007, the terminal too."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    (tmp_path / "cases").mkdir()
    (tmp_path / "prog.py").write_text(
        "import json, sys\n"
        "for line in sys.stdin:\n"
        "    req = json.loads(line)\n"
        "    print(json.dumps({'id': req['id'], 'error': '\\x1b]0;owned\\x07\\x1b[31mboom'}), flush=True)\n")
    (tmp_path / "mod.py").write_text("def f(h, r):\n    raise ValueError('\\x1b[2J\\x07 cleared')\n")
    for impl in (["--external", f"{sys.executable} prog.py", "--name", "prog"], ["--impl", "mod:f"]):
        assert main(["run", *impl, "--quiet", "--max-examples", "3", "--cases", "cases", "--reports-dir", "r"]) == 1
    out = capsys.readouterr().out
    texts = {p.name: p.read_text(encoding="utf-8") for p in (tmp_path / "r").glob("*.md")}
    assert set(texts) == {"prog.md", "mod-f.md"}
    for name, text in texts.items():
        assert "\x1b" not in text and "\x07" not in text, name
    # shown, escaped (markdown doubles the backslash of \u001b)
    assert "u001b]0;owned" in texts["prog.md"] and "u001b[2J" in texts["mod-f.md"] and "u0007 cleared" in texts["mod-f.md"]
    assert "\x1b" not in out and "\x07" not in out


def test_a_run_waiting_for_a_reports_dir_says_who_holds_it(tmp_path):
    (tmp_path / "r").mkdir()
    (tmp_path / "cases").mkdir()
    (tmp_path / "mod.py").write_text("def f(h, r):\n    return 0.0\n")
    fd = os.open(tmp_path / "r", os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_EX)  # another run writing its reports
    try:
        proc = subprocess.Popen([sys.executable, "-m", "audit.cli", "run", "--impl", "mod:f", "--quiet",
                                 "--max-examples", "3", "--cases", "cases", "--reports-dir", "r", "--no-verify"],
                                cwd=tmp_path, env=_env(tmp_path), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                text=True)
        lines: list = []
        threading.Thread(target=lambda: lines.extend(proc.stderr), daemon=True).start()
        assert until(lambda: lines, 120), "nothing said while waiting"
        assert lines[0] == f"chrf-audit: waiting for the lock on r held by pid {os.getpid()}\n", lines
        assert proc.poll() is None and not (tmp_path / "r" / "audit.json").exists()
    finally:
        os.close(fd)
    assert proc.wait(300) == 1, lines
    assert (tmp_path / "r" / "audit.json").is_file()


def _hypothesis_dirs(tmp: Path) -> set:
    return {p.name for p in tmp.glob("chrf-audit-hypothesis-*")}


def test_a_killed_runs_hypothesis_directory_goes_with_the_next_run(tmp_path):
    """SIGKILL (no handler, no atexit) left chrf-audit-hypothesis-* in $TMPDIR: the next run
    removes it; a live run's directory is left alone."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    (tmp_path / "cases").mkdir()
    (tmp_path / "hang.py").write_text("import time\ndef f(h, r):\n    time.sleep(300)\n    return 0.0\n")
    argv = [sys.executable, "-m", "audit.cli", "run", "--impl", "hang:f", "--quiet", "--max-examples", "3",
            "--cases", "cases", "--timeout", "120"]
    killed = subprocess.Popen(argv, cwd=tmp_path, env=_env(tmp_path, TMPDIR=str(tmp)),
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    live = None
    try:
        assert until(lambda: _hypothesis_dirs(tmp))
        left = _hypothesis_dirs(tmp)
        killed.send_signal(signal.SIGKILL)
        killed.wait(60)
        assert _hypothesis_dirs(tmp) == left  # what SIGKILL leaves
        live = subprocess.Popen(argv, cwd=tmp_path, env=_env(tmp_path, TMPDIR=str(tmp)),
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        assert until(lambda: _hypothesis_dirs(tmp) - left)
        assert not (_hypothesis_dirs(tmp) & left)  # the killed run's is gone
        mine = _hypothesis_dirs(tmp)
        quick = subprocess.run([sys.executable, "-m", "audit.cli", "run", "--impl", "no_such_module_x:f"],
                               cwd=tmp_path, env=_env(tmp_path, TMPDIR=str(tmp)), capture_output=True, timeout=120)
        assert quick.returncode == 2
        assert _hypothesis_dirs(tmp) == mine  # the live run's stays
    finally:
        killed.kill()
        if live is not None:
            live.send_signal(signal.SIGTERM)
            live.wait(120)
    assert until(lambda: not _hypothesis_dirs(tmp), 30)


def test_a_program_that_crashes_at_start_is_described_by_its_error_line(tmp_path, monkeypatch, capsys):
    """Node.js ends a crash with its version: the message keeps "Cannot find module".  (Node.js
    is on the machine: the README's --external example needs it.)"""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "cases").mkdir()
    assert main(["run", "--external", f"node {tmp_path / 'missing.js'}", "--quiet", "--cases", "cases"]) == 2
    err = capsys.readouterr().err
    assert "Error: Cannot find module" in err and "missing.js" in err and "Node.js v" in err, err


def test_a_python_program_crash_keeps_the_exception_not_the_noise(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "cases").mkdir()
    (tmp_path / "prog.py").write_text("import sys\nsys.stderr.write('Traceback (most recent call last):\\n'\n"
                                      "  '  File \"prog.py\", line 1\\nKeyError: the model file\\nbye\\n')\nsys.exit(3)\n")
    assert main(["run", "--external", f"{sys.executable} prog.py", "--quiet", "--cases", "cases"]) == 2
    err = capsys.readouterr().err
    assert "exit status 3): KeyError: the model file ... bye" in err, err


def test_torchmetrics_without_torch_says_how_to_install_it(tmp_path):
    """Whether or not torch is installed here: a torch that cannot be imported (first on
    PYTHONPATH) gives the install hint of the optional extra."""
    fake = tmp_path / "fake" / "torch"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise ModuleNotFoundError(\"No module named 'torch'\", name='torch')\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path / "fake"), str(ROOT)]))
    proc = subprocess.run([sys.executable, "-m", "audit.cli", "run", "--impl", "torchmetrics", "--quiet"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "install it with pip install -e '.[torchmetrics]' in the chrf-audit checkout" in proc.stderr, proc.stderr


_ADOPTER = r"""
import os, subprocess, sys, time
from audit.processes import subreaper
assert subreaper.become_subreaper()
code = subprocess.call(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
orphans = set()
for _ in range(20):  # 1 s after the exit: whatever the run left is re-parented to us
    orphans |= {pid for pid, (ppid, state, _) in subreaper._table().items() if ppid == os.getpid()}
    time.sleep(0.05)
print(code, len(orphans))
"""


def test_a_run_leaves_no_process_not_even_an_exited_one(tmp_path):
    """When ``chrf-audit run`` returns, every process it started has been waited for: none is
    re-parented (not even multiprocessing's resource tracker, which ends after its parent and
    was a zombie of init for a moment).  Watched by a subreaper that runs the command."""
    out = subprocess.run([sys.executable, "-c", _ADOPTER, sys.executable, "-m", "audit.cli", "run", "--impl",
                          "sacrebleu-chrf", "--max-examples", "5", "--no-verify", "--reports-dir", str(tmp_path / "r")],
                         cwd=tmp_path, env=_env(tmp_path), capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["0", "0"], out.stdout
