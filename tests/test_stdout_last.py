"""Standard output is written last (issue 29, item 8): a full (``/dev/full``), closed (``>&-``)
or broken (``| head``) stdout ended a run in a traceback after the audit, with neither the
reports nor ``--json`` written.  Now every file is written first, and the stdout failure is one
line on stderr and exit 2 (the command could not do all it was asked), no traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FULL = "cannot write to standard output: No space left on device (every file was written)"


@pytest.fixture
def project(tmp_path):
    # a correct implementation: what is tested is where the outputs go, not the audit (fast)
    (tmp_path / "good.py").write_text("from reference_impl import sentence_score\n\n\n"
                                      "def f(h, r):\n    return float(sentence_score(h, list(r)).score)\n")
    (tmp_path / "cases").mkdir()
    return tmp_path


def _env():
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("GITHUB_STEP_SUMMARY", None)
    return env


def chrf_audit(cwd: Path, *argv: str, stdout=None, shell_redirect: str = "") -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "audit.cli", *argv]
    if shell_redirect:  # e.g. ">&-": bash closes the descriptor before chrf-audit starts
        cmd = ["bash", "-c", f'exec "$@" {shell_redirect}', "bash", *cmd]
    return subprocess.run(cmd, cwd=cwd, env=_env(), stdout=stdout if stdout is not None else subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, timeout=600)


RUN = ("run", "--impl", "good:f", "--quiet", "--max-examples", "3", "--cases", "cases", "--no-verify",
       "--json", "a.json", "--junit", "j.xml", "--reports-dir", "r")


def _everything_written(d: Path) -> None:
    doc = json.loads((d / "a.json").read_text())
    assert doc["implementations"][0]["implementation"] == "good:f" and doc["implementations"][0]["examples"] > 0
    assert json.loads((d / "r" / "audit.json").read_text())["implementations"] == doc["implementations"]
    assert (d / "r" / "good-f.md").is_file() and (d / "j.xml").is_file()


def _one_line(proc, text: str) -> None:
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, (proc.returncode, proc.stderr[-2000:])
    assert proc.stderr == f"chrf-audit: error: {text}\n", proc.stderr


def test_run_into_a_full_stdout_writes_every_file(project):
    with open("/dev/full", "wb") as full:
        proc = chrf_audit(project, *RUN, stdout=full)
    _one_line(proc, FULL)
    _everything_written(project)


def test_run_with_stdout_closed_writes_every_file(project):
    proc = chrf_audit(project, *RUN, shell_redirect=">&-")
    _one_line(proc, "cannot write to standard output: it is closed (every file was written)")
    _everything_written(project)


def test_run_into_a_broken_pipe_writes_every_file(project):
    read, write = os.pipe()
    os.close(read)
    try:
        proc = chrf_audit(project, *RUN, stdout=write)
    finally:
        os.close(write)
    _one_line(proc, "cannot write to standard output: Broken pipe (every file was written)")
    _everything_written(project)


def test_check_updates_its_baseline_before_stdout(project):
    with open("/dev/full", "wb") as full:
        proc = chrf_audit(project, "check", "--impl", "good:f", "--quiet", "--max-examples", "3", "--cases", "cases",
                          "--update-baseline", "--json", "a.json", stdout=full)
    _one_line(proc, FULL)
    assert json.loads((project / "chrf-audit-baseline.json").read_text())["accepted"] == []
    assert json.loads((project / "a.json").read_text())["implementations"][0]["implementation"] == "good:f"


def test_report_from_into_a_full_stdout_writes_every_file(project):
    assert chrf_audit(project, *RUN).returncode == 0
    (project / "r" / "good-f.md").unlink()
    with open("/dev/full", "wb") as full:
        proc = chrf_audit(project, "report", "--from", "r/audit.json", stdout=full)
    _one_line(proc, FULL)
    assert (project / "r" / "good-f.md").is_file()
