"""evaluatio's private venv (issue 19, item 1): created for real from an empty cache by the
README's `chrf-audit stats`, once when two runs start together, never left half-made, and a
failure names the ways around it (--evaluatio-python, --sacrebleu).

The end-to-end run (``fresh_stats_run`` in conftest.py) creates the venv with the package
registries pip is configured with: no skip when it is missing, it is made."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
from pathlib import Path

from audit.stats import evaluatio_env

ROOT = Path(__file__).resolve().parents[1]
VENV = f"evaluatio-{evaluatio_env.EVALUATIO_VERSION}"


def test_stats_from_an_empty_cache_exits_1_with_both_reports(fresh_stats_run):
    """`CHRF_AUDIT_CACHE=$(mktemp -d) chrf-audit stats`: the venv is created, both libraries
    are audited and reported (sacreBLEU's interval crash is a finding: exit 1)."""
    cache, out, proc = fresh_stats_run
    assert proc.returncode == 1, proc.stderr[-3000:]
    assert f"creating {cache / 'stats' / VENV}" in proc.stderr
    assert (cache / "stats" / VENV / evaluatio_env.READY).read_text().startswith("evaluatio==0.5.2\n")
    assert "sacrebleu:ci" in proc.stdout and "evaluatio:ci" in proc.stdout
    assert (out / "sacrebleu.md").is_file() and (out / "evaluatio.md").is_file()


def _env(cache: Path, **extra) -> dict:
    return dict(os.environ, CHRF_AUDIT_CACHE=str(cache), PYTHONPATH=str(ROOT), **extra)


def test_a_failed_creation_leaves_nothing_and_names_the_ways_around(tmp_path):
    """pip cannot find evaluatio (no index, an empty find-links): one line, exit 2, the
    informative pip line and both flags named; the half-made venv of an earlier killed run and
    this run's own attempt are both gone."""
    half = tmp_path / "cache" / "stats" / VENV
    half.mkdir(parents=True)
    (half / "pyvenv.cfg").write_text("home = /nowhere\n")  # a creation killed half-way: no marker
    (tmp_path / "wheels").mkdir()
    proc = subprocess.run([sys.executable, "-m", "audit.cli", "stats", "--evaluatio", "--quiet"],
                          env=_env(tmp_path / "cache", PIP_NO_INDEX="1", PIP_FIND_LINKS=str(tmp_path / "wheels")),
                          capture_output=True, text=True, timeout=600, cwd=tmp_path)
    err = proc.stderr.strip().splitlines()
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr and err[-1].startswith("chrf-audit: error: cannot prepare")
    assert "--evaluatio-python" in err[-1] and "--sacrebleu" in err[-1]
    assert "evaluatio==0.5.2" in err[-1] and "No matching distribution" in err[-1]
    assert not half.exists()


def test_two_runs_create_the_venv_once(tmp_path):
    """While another process holds the venv's lock, `ensure` says who holds it and waits; once
    the holder has made the venv, the waiter uses it and creates nothing."""
    root = tmp_path / "stats"
    root.mkdir()
    fd = os.open(root / f"{VENV}.lock", os.O_WRONLY | os.O_CREAT, 0o644)
    fcntl.flock(fd, fcntl.LOCK_EX)
    code = ("from audit.stats import evaluatio_env as e\n"
            "print(e.ensure(log=lambda m: print(m, flush=True)), flush=True)\n")
    waiter = subprocess.Popen([sys.executable, "-c", code], env=_env(tmp_path), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    try:
        first = waiter.stdout.readline()
        assert first.startswith(f"waiting for the lock on {root / (VENV + '.lock')} held by pid {os.getpid()}"), first
        assert not (root / VENV).exists()
        # the "other run" finishes its venv: an interpreter and the ready marker
        (root / VENV / "bin").mkdir(parents=True)
        os.symlink(sys.executable, root / VENV / "bin" / "python")
        (root / VENV / evaluatio_env.READY).write_text("evaluatio==0.5.2\n")
    finally:
        os.close(fd)
    out, err = waiter.communicate(timeout=120)
    assert waiter.returncode == 0, err
    assert out.strip() == str(root / VENV / "bin" / "python") and "creating" not in out
