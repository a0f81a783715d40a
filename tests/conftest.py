"""Shared test configuration: Hypothesis profiles, Ctrl-C however pytest was launched
(tests/fixtures/signals.py), and the costly session fixtures (run once per session, not
once per xdist worker: ``once_per_session``).

Profiles (no on-disk example database anywhere: saved cases live under cases/ only; no
./.hypothesis either):

* ``dev`` (default): random, Hypothesis' default deadline.
* ``ci``: derandomized, no deadline, failing examples printed as reproduction blobs.
  Selected when the environment variable ``CI`` is set (any value) or
  ``CHRF_AUDIT_PROFILE=ci``; ``CHRF_AUDIT_PROFILE`` may also name ``dev`` explicitly.
"""

import atexit
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import settings
from hypothesis.configuration import set_hypothesis_home_dir

from tests.fixtures.signals import restore_ctrl_c

# Hypothesis keeps caches (mined constants, the Unicode table) under its home directory,
# ./.hypothesis by default: the test session uses a temporary one, so that running the tests
# leaves nothing in the checkout (chrf-audit itself does the same, see audit.settings.hypothesis_profiles).
_HOME = tempfile.mkdtemp(prefix="chrf-audit-tests-hypothesis-")
set_hypothesis_home_dir(_HOME)
atexit.register(shutil.rmtree, _HOME, True)

settings.register_profile("dev", database=None)
settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True, database=None)

_profile = os.environ.get("CHRF_AUDIT_PROFILE") or ("ci" if os.environ.get("CI") else "dev")
settings.load_profile(_profile)


def pytest_configure(config):
    """In the controller and in each xdist worker (tests/fixtures/signals.py says why)."""
    restore_ctrl_c()


def once_per_session(tmp_path_factory, name: str, make) -> tuple[Path, dict]:
    """``make(directory)`` (a JSON-able result) run once per test session, not once per xdist
    worker: for the costly runs whose fixtures serve tests in several files, which
    ``--dist loadfile`` spreads over both workers.  The first worker to need it runs it under
    a lock in the session's shared temporary directory and records the result; the others
    wait for the lock and read it.  What ``make`` leaves in the directory is only read after."""
    import fcntl
    import json

    base = tmp_path_factory.getbasetemp()
    where = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / name
    where.mkdir(exist_ok=True)
    record = where / "result.json"
    with open(where / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not record.exists():
            record.write_text(json.dumps(make(where)))
        return where, json.loads(record.read_text())


def _completed(argv, proc) -> dict:
    return {"argv": [str(a) for a in argv], "returncode": proc.returncode, "stdout": proc.stdout, "stderr": proc.stderr}


def _process(d: dict) -> subprocess.CompletedProcess:
    return subprocess.CompletedProcess(d["argv"], d["returncode"], d["stdout"], d["stderr"])


@pytest.fixture(scope="session")
def fresh_stats_run(tmp_path_factory):
    """The README's `chrf-audit stats` from an empty cache, run once per session: (cache,
    reports dir, completed process).  It creates evaluatio's venv for real (about 10 s with
    the configured package registries), which the tests of evaluatio's procedures then use."""
    def make(where: Path) -> dict:
        cache, out = where / "empty-cache", where / "stats-reports"
        cache.mkdir()
        out.mkdir()
        env = dict(os.environ, CHRF_AUDIT_CACHE=str(cache), PYTHONPATH=str(Path(__file__).resolve().parents[1]))
        argv = [sys.executable, "-m", "audit.cli", "stats", "--reports-dir", str(out)]
        return _completed(argv, subprocess.run(argv, env=env, capture_output=True, text=True, timeout=1800, cwd=out))

    where, done = once_per_session(tmp_path_factory, "fresh-stats-run", make)
    return where / "empty-cache", where / "stats-reports", _process(done)


@pytest.fixture(scope="session")
def worsening_nltk_patch(tmp_path_factory):
    """`chrf-audit validate-patch` of issue 19's patch that makes nltk worse
    (``num_ngram_sizes = len(ngram_fscores) + 1``), run once per session: (completed process,
    its --json)."""
    def make(work: Path) -> dict:
        import difflib
        import json

        from audit.upstream._base import module_source

        _, _, text = module_source("nltk.translate.chrf_score")
        worse = text.replace("num_ngram_sizes = len(ngram_fscores)\n", "num_ngram_sizes = len(ngram_fscores) + 1\n")
        assert worse != text
        (work / "worse.diff").write_text("".join(difflib.unified_diff(
            text.splitlines(True), worse.splitlines(True), "a/nltk/translate/chrf_score.py",
            "b/nltk/translate/chrf_score.py")), encoding="utf-8")
        root = Path(__file__).resolve().parents[1]
        argv = [sys.executable, "-m", "audit.cli", "validate-patch", "--impl", "nltk", "--patch", "worse.diff",
                "--max-examples", "20", "--cases", str(root / "cases"), "--json", "v.json"]
        proc = subprocess.run(argv, cwd=work, env=dict(os.environ, PYTHONPATH=str(root), NO_COLOR="1"),
                              capture_output=True, text=True, timeout=1800)
        doc = json.loads((work / "v.json").read_text()) if (work / "v.json").is_file() else {"families": []}
        return {"process": _completed(argv, proc), "doc": doc}

    _, done = once_per_session(tmp_path_factory, "worsening-nltk-patch", make)
    return _process(done["process"]), done["doc"]


@pytest.fixture(scope="session")
def docs_runner(tmp_path_factory):
    """The docs tests' project directory and their runs of its commands, shared by
    test_readme_commands and test_docs_commands (tests/docs_harness.py)."""
    from tests.docs_harness import Runner, make_project

    return Runner(make_project(tmp_path_factory.mktemp("docs-project")), tmp_path_factory.mktemp("docs-scratch"))
