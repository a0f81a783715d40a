"""``--bisect`` against the full matrix on the planted package's nine releases (the bug in the
4th to the 7th): the same transitions from fewer audits; and the issue's own check, ``chrf-audit
versions nltk 3.10.3..3.10.4`` (marked ``index``: it installs both releases from the package
index pip is configured for, which CI reaches)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests import planted_versions as P


def _run(argv, env, cwd):
    return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=1800, cwd=cwd)


def test_bisect_audits_fewer_releases_and_finds_the_full_matrix_transitions(tmp_path, tmp_path_factory):
    url = P.build_index(tmp_path / "index", P.BISECT_RELEASES)
    env = P.env(P.shared_cache(tmp_path_factory))
    full = _run(P.argv(url, "all", "--jobs", "2", "--json", str(tmp_path / "full.json")), env, tmp_path)
    assert full.returncode == 0, full.stderr[-3000:]
    bis = _run(P.argv(url, "all", "--jobs", "2", "--bisect", "--json", str(tmp_path / "bisect.json"),
                      "--markdown", str(tmp_path / "md")), env, tmp_path)
    assert bis.returncode == 0, bis.stderr[-3000:]
    full_doc, bis_doc = (json.loads((tmp_path / n).read_text()) for n in ("full.json", "bisect.json"))
    versions = list(P.BISECT_RELEASES)
    assert [r["version"] for r in full_doc["releases"]] == versions
    assert [r["families"] for r in full_doc["releases"]] == [[P.FAMILY] if bug else [] for bug in P.BISECT_RELEASES.values()]
    assert full_doc["families"] == {P.FAMILY: {"introduced": "1.1", "fixed": "1.3"}}
    assert bis_doc["families"] == full_doc["families"]
    assert bis_doc["diffs"] == full_doc["diffs"]
    # oldest, newest, middle; then the middles of the intervals whose ends differ
    audited = [r["version"] for r in bis_doc["releases"] if r["status"] == "audited"]
    assert audited == ["1.0", "1.0.2", "1.1", "1.1.1", "1.2.1", "1.3", "1.3.1"] and bis_doc["audited"] == 7 < 9
    for r in bis_doc["releases"]:  # what it did audit agrees with the full matrix
        if r["status"] == "audited":
            assert r["families"] == full_doc["releases"][versions.index(r["version"])]["families"]
        else:
            assert r["reason"].startswith("not audited (--bisect): between ")
    assert "monotone intervals per family" in (tmp_path / "md" / f"{P.DIST}.md").read_text()


@pytest.mark.index
def test_nltk_whitespace_regression_is_placed_in_3_10_4(tmp_path):
    """The issue's done-when: whitespace-set-white-space introduced in 3.10.4, the other three
    nltk families present in both releases; the newest has findings: exit 1."""
    argv = [sys.executable, "-m", "audit.cli", "versions", "nltk", "3.10.3..3.10.4", "--json", str(tmp_path / "out.json"),
            "--quiet"]
    import os

    proc = _run(argv, dict(os.environ, CHRF_AUDIT_CACHE=str(tmp_path / "cache"), PYTHONPATH=str(P.ROOT)), tmp_path)
    assert proc.returncode == 1, proc.stderr[-3000:]
    doc = json.loads((tmp_path / "out.json").read_text())
    assert [(r["version"], r["status"]) for r in doc["releases"]] == [("3.10.3", "audited"), ("3.10.4", "audited")]
    assert doc["families"] == {
        "whitespace-set-white-space": {"introduced": "3.10.4", "fixed": None},
        "requested-order-divisor": {"introduced": None, "fixed": None},
        "f-score-averaged": {"introduced": None, "fixed": None},
        "corpus-macro-average": {"introduced": None, "fixed": None},
    }
    diff = doc["diffs"]["whitespace-set-white-space"]["introduced"]
    assert diff["function"] == "_preprocess" and diff["file"] == "nltk/translate/chrf_score.py"
    assert '-        sent = re.sub(r"\\s+", "", sent)\n+        sent = redos.sub(r"\\s+", "", sent)\n' in diff["diff"]
    # no machine-wide copy of the result: run reads the project's (issue 39 item 10)
    assert not (tmp_path / "cache" / "versions" / "nltk.json").exists()
