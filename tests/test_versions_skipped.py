"""``chrf-audit versions`` never reads as success when nothing was audited, and a release that
hangs costs seconds (issue 39 item 5): a release whose import hangs is skipped after
``max(--timeout, 15 s)`` (it was 600 s), an install that hangs after the install limit
(docs/limits.md), each run that audits nothing is exit 2 and one line naming the reasons;
PACKAGE is a distribution name before pip sees it.  The planted package's local index; the
machine's other interpreters hidden, so that a release is tried with one."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests import planted_versions as P
from tests.fixtures.slow_index import dripping

#: added to every bound: interpreter start-up, the embedded cluster and pip on a loaded machine
MARGIN = 120.0


def _env(tmp_path: Path, **extra) -> dict:
    (tmp_path / "no-pyenv").mkdir(exist_ok=True)
    return dict(P.env(tmp_path / "cache"), PYENV_ROOT=str(tmp_path / "no-pyenv"),
                PATH=str(Path(sys.executable).parent), **extra)


def _run(tmp_path, url, spec, *extra, env=None):
    started = time.monotonic()
    proc = subprocess.run(P.argv(url, spec, "--jobs", "1", "--json", str(tmp_path / "out.json"), *extra),
                          env=env or _env(tmp_path), capture_output=True, text=True, timeout=420, cwd=tmp_path)
    return proc, time.monotonic() - started


def _one_line_exit_2(proc) -> str:
    assert proc.returncode == 2, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr + proc.stdout and proc.stdout == "", proc.stdout[-2000:]
    [line] = proc.stderr.strip().splitlines()
    assert line.startswith("chrf-audit: error: ")
    return line


def test_a_release_whose_import_hangs_costs_max_timeout_15_s_and_nothing_audited_is_exit_2(tmp_path):
    url = P.build_index(tmp_path / "index", {P.HANGING: False})
    proc, took = _run(tmp_path, url, P.HANGING, "--timeout", "1")
    line = _one_line_exit_2(proc)
    assert line == (f"chrf-audit: error: no release of {P.DIST} was audited (1 release skipped): {P.HANGING}: "
                    "cannot import it: no end within 15 s")
    assert 15 <= took < 15 + MARGIN
    doc = json.loads((tmp_path / "out.json").read_text())  # what it has is written
    assert [(r["version"], r["status"]) for r in doc["releases"]] == [(P.HANGING, "skipped")]
    assert not (tmp_path / "cache" / "versions" / f"{P.DIST}.json").exists()  # the cache keeps the last good one
    assert list((tmp_path / "cache" / "versions" / "envs").glob("*.skipped")) == []  # a hang may pass: not kept


def test_an_install_that_hangs_is_stopped_by_the_install_limit(tmp_path):
    P.build_index(tmp_path / "index", {"1.0": False})
    with dripping(tmp_path / "index") as url:
        proc, took = _run(tmp_path, url, "1.0", env=_env(tmp_path, CHRF_AUDIT_MAX_INSTALL_SECONDS="5"))
    line = _one_line_exit_2(proc)
    assert line.startswith(f"chrf-audit: error: no release of {P.DIST} was audited (1 release skipped): 1.0: "
                           "cannot install chrf-planted-versions==1.0 with Python "), line
    assert line.endswith(": no end within 5 s (the install limit, CHRF_AUDIT_MAX_INSTALL_SECONDS)"), line
    assert took < 5 + MARGIN
    assert list((tmp_path / "cache" / "versions" / "envs").glob("*.skipped")) == []  # a hang may pass: not kept


@pytest.mark.parametrize("package", ["./chrf_planted_versions", "chrf-planted-versions==1.0", "git+https://x/y",
                                     "a/b", "-x", "x-"])
def test_package_is_a_distribution_name_before_pip_sees_it(package, tmp_path):
    url = P.build_index(tmp_path / "index", {"1.0": False})
    argv = [sys.executable, "-m", "audit.cli", "versions", f"--index-url={url}", "--impl", P.IMPL, "--quiet",
            "--", package, "1.0"]
    proc = subprocess.run(argv, env=_env(tmp_path), capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert _one_line_exit_2(proc) == (f"chrf-audit: error: PACKAGE {package!r} is not a distribution name (PEP 508: "
                                      "letters, digits, '.', '_' and '-', beginning and ending with a letter or "
                                      "digit)")


def test_skip_reasons_are_grouped_oldest_first():
    from audit.versions.coverage import nothing_audited

    releases = [{"version": v, "status": "skipped", "reason": why} for v, why in
                [("1.0", "a"), ("1.1", "b"), ("1.2", "a"), ("1.3", "a"), ("1.4", "a"), ("2.0", "x" * 300)]]
    line = nothing_audited({"package": "p", "releases": releases})
    assert line == ("no release of p was audited (6 releases skipped): 1.0, 1.2, 1.3 and 1 more: a; 1.1: b; 2.0: "
                    + "x" * 197 + "...")
    releases[1]["status"] = "audited"
    assert nothing_audited({"package": "p", "releases": releases}) is None
