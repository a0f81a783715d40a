"""Every module the project cites exists (issue 29 item 16, issue 34 item 5).

The committed ``reports/stats/`` cited ``audit/significance.py`` long after it had moved to
``audit/impact/significance.py``, ``docs/naming.md`` cited ``audit/diagnose/relational.py``
(a package now), a docstring cited ``audit.collect.runner.finish_summary`` (it is in
``audit.collect.unit``), and ``audit/versions/matrix.py`` cited ``DESIGN.md``, which is not in
the repository (``../shared`` is the team's, not the user's).  Historical remarks in tests
("what audit/impact.py used to do") are not citations and are not read.
"""

from __future__ import annotations

import importlib
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: A source path of the project: ``audit/impact/significance.py``, ``docs/stats.md``, ...
PATH = re.compile(r"(?<![\w./-])((?:audit|reference_impl|docs|benchmarks|scripts|examples)/[\w/.-]*\w\.(?:py|md))\b")
#: A dotted name under ``audit`` (not ``tool.chrf-audit.x``, not a file name such as audit.json)
DOTTED = re.compile(r"(?<![\w.-])(audit(?:\.[a-z_]\w*)+)")
FILE_SUFFIXES = ("json", "toml", "md", "py", "xml", "svg")


def _committed(*patterns: str) -> list[Path]:
    out = subprocess.run(["git", "ls-files", "--", *patterns], cwd=ROOT, capture_output=True, text=True,
                         check=True).stdout.split()
    return [ROOT / p for p in out if (ROOT / p).is_file()]


def _cited_paths(files) -> dict[str, str]:
    cited = {}
    for f in files:
        for m in PATH.finditer(f.read_text(encoding="utf-8")):
            cited.setdefault(m.group(1), str(f.relative_to(ROOT)))
    return cited


def _resolves(name: str) -> bool:
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for attr in parts[i:]:
            if not hasattr(obj, attr):
                return False
            obj = getattr(obj, attr)
        return True
    return False


def test_the_committed_reports_cite_modules_that_exist():
    reports = _committed("reports/*.md")
    assert any(f.parent.name == "stats" for f in reports)  # reports/stats/ is among them
    cited = _cited_paths(reports)
    assert any(p.startswith("audit/") for p in cited)  # the check reads something
    missing = {p: where for p, where in cited.items() if not (ROOT / p).exists()}
    assert not missing


def test_the_docs_and_the_code_cite_files_and_modules_that_exist():
    files = _committed("README.md", "docs/*.md", "audit/*.py", "reference_impl/*.py", "benchmarks/*.py")
    cited = _cited_paths(files)
    missing = {p: where for p, where in cited.items() if not (ROOT / p).exists()}
    assert not missing
    names = {}
    for f in _committed("audit/*.py", "reference_impl/*.py"):
        for m in DOTTED.finditer(f.read_text(encoding="utf-8")):
            name = m.group(1).rstrip(".")
            if name.rsplit(".", 1)[-1] not in FILE_SUFFIXES:
                names.setdefault(name, str(f.relative_to(ROOT)))
    assert len(names) > 50
    assert not {n: where for n, where in names.items() if not _resolves(n)}


def test_nothing_in_the_package_or_its_docs_cites_the_team_design_file():
    """DESIGN.md lives in ../shared, outside the repository: a user's clone has none."""
    hits = [str(f.relative_to(ROOT)) for f in _committed("audit/*.py", "reference_impl/*.py", "README.md", "docs/*.md")
            if "DESIGN.md" in f.read_text(encoding="utf-8")]
    assert hits == []
