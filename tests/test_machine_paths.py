"""No report holds a path of the machine it was made on (issue 39 item 9): a verification's
status ("not verified: the library's own tests could not run (/home/.../.venv/bin/python: No
module named pytest)") named the checkout and its venv in the committed reports.  The one
place the texts of a verification become report data, ``audit.patches.summary``, hides them
(``audit.files.machine``); every committed report is checked."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import pytest

from audit.files.machine import hide
from audit.patches import summary
from audit.patches.validate import Validation
from tests.fixtures.machine_paths import ROOT, machine_paths, rendered_reports

MANIFESTS = sorted(p.parent for p in (ROOT / "reports").rglob(".chrf-audit-manifest.json"))


def _validation(**kw) -> Validation:
    return Validation(implementation="nltk", patch="suggested patch", source=None, files=["nltk/x.py"],
                      before_versions={}, after_versions={}, **kw)


def test_a_verification_status_holds_no_path_of_the_machine():
    """The status of e24fcbf's first-command install, and a copy that could not be made."""
    tests = {"files": ["nltk/x.py"], "broken": None, "regression": None,
             "before": {"passed": 0, "failed": 0, "error": f"{sys.executable}: No module named pytest"},
             "after": {"passed": 0, "failed": 0, "error": f"{sys.executable}: No module named pytest"}}
    got = summary(_validation(library_tests=tests), [])["status"]
    assert got == "not verified: the library's own tests could not run (python: No module named pytest)"
    where = Path(tempfile.gettempdir()) / "chrf-audit-verify-abc" / "site"
    got = summary(_validation(error=f"[Errno 28] No space left on device: '{where}'"), ["f"])["status"]
    assert got == "not verified: [Errno 28] No space left on device: '<temporary directory>/site'"
    assert not machine_paths(got)


def test_hide_names_the_longest_place_first():
    home = str(Path("~").expanduser())
    assert hide(f"{sys.prefix}/lib and {home}/x and {Path.cwd()}/y") == "<venv>/lib and ~/x and ./y"


@pytest.mark.parametrize("directory", MANIFESTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_committed_report_holds_a_path_of_the_machine(directory):
    for rel, text in rendered_reports(directory).items():
        assert not machine_paths(text), (rel, machine_paths(text))
