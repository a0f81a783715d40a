"""``versions PACKAGE all --bisect`` finishes when many releases cannot be installed (issue 39
item 11): the edge of what can be audited is bisected, not walked one release per round; the
releases beyond it are listed, not tried; the ranges it could not see are said; a release
that cannot be installed is tried once per Python version and remembered as skipped (a
failure that may pass is not); a run stopped half-way writes what it has.  The planted
package's local index with five releases for Python 2 only (``P.PY2_ONLY``); one interpreter."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

from audit.versions import bisect, coverage, matrix
from tests import planted_versions as P
from tests.fixtures.on_terminal import signal_when_shown

MARGIN = 120.0


def _result(families, status="audited"):
    return {"status": status, "families": families, "reason": None if status == "audited" else "cannot install",
            "findings": [], "sources": {}, "functions": {}}


def test_the_edge_of_what_can_be_audited_is_bisected_not_walked():
    """40 releases, the oldest 25 not installable, a family from the 33rd on: the edge costs
    O(log n) failed tries (it cost 25, one a round), the transition is found, the releases
    beyond the edge are listed as not tried and make one unseen range with the skipped ones."""
    versions = [f"1.{i}" for i in range(40)]
    truth = {v: None if i < 25 else (["f"] if i >= 32 else []) for i, v in enumerate(versions)}
    results, rounds = {}, 0
    while picks := bisect.next_round(versions, results):
        rounds += 1
        results.update({v: _result([], "skipped") if truth[v] is None else _result(truth[v]) for v in picks})
    skipped = [v for v in results if results[v]["status"] == "skipped"]
    assert len(skipped) <= 6 and rounds <= 10, (skipped, rounds)
    assert min(v for v in results if results[v]["status"] == "audited") == "1.25"  # the edge, exactly
    assert matrix.runs(versions, results, "f") == [["1.32", None]]
    beyond = bisect.beyond(versions, results)
    assert set(beyond) | set(skipped) == set(versions[:25])  # every release before the edge: tried or listed
    assert all(reason.startswith("not tried (--bisect): older than ") for reason in beyond.values())
    above = min((v for v in skipped if versions.index(v) > 1), key=versions.index)  # the skipped one above 1.1
    assert beyond["1.1"] == (f"not tried (--bisect): older than {above}, which could not be audited (taken as "
                             "not auditable either; 1.25 is the oldest audited)")
    doc = matrix.document("p", versions, results, implementations=["p:f"], settings={}, library=None,
                          inferred=bisect.inferred(versions, results), untried=beyond)
    assert coverage.unseen(doc) == [{"from": "1.0", "to": "1.24", "releases": 25, "before": None, "after": "1.25",
                                     "families": []}]


def test_a_transition_across_skipped_releases_is_said_to_lie_in_the_range():
    versions = ["1", "2", "3", "4"]
    results = {"1": _result([]), "2": _result([], "skipped"), "3": _result([], "skipped"), "4": _result(["f"])}
    doc = matrix.document("p", versions, results, implementations=["p:f"], settings={}, library=None)
    [span] = coverage.unseen(doc)
    assert span == {"from": "2", "to": "3", "releases": 2, "before": "1", "after": "4", "families": ["f"]}
    from audit.render.versions import unseen_text

    assert unseen_text(span) == "could not see 2..3 (2 releases): f changed between 1 and 4, somewhere in this " \
                                "range or at 4"
    from audit.render.versions import render

    page = render(dict(doc, unseen=[span], stopped="interrupted"), {})["p.md"].decode()
    assert ("## Ranges it could not see\n\n- could not see 2..3 (2 releases): f changed between 1 and 4, somewhere "
            "in this range or at 4\n\nThe run stopped before every release was audited (interrupted).") in page


def _env(tmp_path: Path, cache: Path) -> dict:
    (tmp_path / "no-pyenv").mkdir(exist_ok=True)
    return dict(P.env(cache), PYENV_ROOT=str(tmp_path / "no-pyenv"), PATH=str(Path(sys.executable).parent))


def test_all_with_bisect_over_uninstallable_releases_finishes_and_remembers_them(tmp_path):
    releases = {**{v: False for v in P.PY2_ONLY}, **P.RELEASES}
    url = P.build_index(tmp_path / "index", releases)
    cache = tmp_path / "cache"
    argv = P.argv(url, "all", "--bisect", "--jobs", "2", "--json", str(tmp_path / "a.json"))
    first = subprocess.run(argv, env=_env(tmp_path, cache), capture_output=True, text=True, timeout=1200,
                           cwd=tmp_path)
    assert first.returncode == 0, first.stderr[-3000:]
    doc = json.loads((tmp_path / "a.json").read_text())
    assert doc["families"] == {P.FAMILY: {"introduced": "1.1", "fixed": "1.3"}}
    got = {r["version"]: r for r in doc["releases"]}
    tried = [v for v in P.PY2_ONLY if not got[v]["reason"].startswith("not tried")]
    assert 1 <= len(tried) <= 3, tried  # the edge found in O(log n), not all five
    for v in tried:
        assert got[v]["status"] == "skipped"
        assert got[v]["reason"].startswith(f"cannot install {P.DIST}=={v} with Python ")
        assert "requires a different Python" in got[v]["reason"]
    assert doc["unseen"] == [{"from": "0.1", "to": "0.5", "releases": 5, "before": None, "after": "1.0",
                              "families": []}]
    assert "could not see 0.1..0.5 (5 releases)" in first.stdout
    # remembered: one entry per release tried and Python version, with the reason
    tag = "%d.%d" % sys.version_info[:2]
    marks = sorted(p.name for p in (cache / "versions" / "envs").glob("*.skipped"))
    assert marks == [f"{P.DIST}-{v}-py{tag}.skipped" for v in tried]
    # the second run does not try them again: their wheels gone from the index, the reasons stay
    for v in tried:
        (tmp_path / "index" / "wheels" / f"{P.MODULE}-{v}-py3-none-any.whl").unlink()
    argv[argv.index(str(tmp_path / "a.json"))] = str(tmp_path / "b.json")
    second = subprocess.run(argv, env=_env(tmp_path, cache), capture_output=True, text=True, timeout=1200,
                            cwd=tmp_path)
    assert second.returncode == 0, second.stderr[-3000:]
    assert (tmp_path / "b.json").read_bytes() == (tmp_path / "a.json").read_bytes()


def test_pip_says_why_on_one_line():
    """pip's ERROR line; a failed build's summary with its exception (not "note: This error
    originates from a subprocess", which nltk 2.0.1's reason was)."""
    from audit.versions.envs import installer_said

    build = ("      urllib.error.URLError: <urlopen error [Errno -2] Name or service not known>\n      [end of output]\n"
             "  note: This error originates from a subprocess, and is likely not a problem with pip.\n"
             "error: subprocess-exited-with-error\n\n× Getting requirements to build wheel did not run "
             "successfully.\n│ exit code: 1\n╰─> See above for output.\n\nnote: This error originates from a "
             "subprocess, and is likely not a problem with pip.\n")
    assert installer_said(build) == ("Getting requirements to build wheel did not run successfully: "
                                     "urllib.error.URLError: <urlopen error [Errno -2] Name or service not known>")
    assert installer_said("WARNING: x\nERROR: Package 'p' requires a different Python: 3.11.7 not in '<3'\n") == \
        "Package 'p' requires a different Python: 3.11.7 not in '<3'"


def test_a_failure_that_may_pass_is_not_remembered():
    from audit.versions.remembered import lasting

    assert lasting("ERROR: Package 'x' requires a different Python: 3.11.7 not in '<3'")
    assert lasting("cannot import it: ModuleNotFoundError: No module named 'collections.abc'")
    for passing in ("no end within 15 s", "OSError: [Errno 28] No space left on device",
                    "Could not fetch URL https://pypi.org/simple/x/: connection error",
                    "ERROR: Could not find a version that satisfies the requirement x==1 (from versions: none)",
                    "ReadTimeoutError: HTTPSConnectionPool: Read timed out.", "MemoryError"):
        assert not lasting(passing), passing


def test_a_run_stopped_half_way_writes_what_it_has(tmp_path):
    """SIGTERM once one of two releases is audited (the progress bar on a terminal shows 1/2),
    while the other's import hangs: exit 143, --json written with the audited release and the
    other 'stopped before it was audited'; the cached last result is not written."""
    url = P.build_index(tmp_path / "index", {"1.0": False, P.HANGING: False})
    argv = [a for a in P.argv(url, f"1.0,{P.HANGING}", "--jobs", "2", "--timeout", "120", "--json",
                              str(tmp_path / "out.json")) if a != "--quiet"]
    code, seen, took = signal_when_shown(argv, dict(_env(tmp_path, tmp_path / "cache"), COLUMNS="120"), tmp_path,
                                         b"1/2", signal.SIGTERM)
    assert code == 143 and took < MARGIN, seen[-2000:]
    doc = json.loads((tmp_path / "out.json").read_text())
    assert [(r["version"], r["status"], r["reason"]) for r in doc["releases"]] == [
        (P.HANGING, "skipped", "the run stopped before it was audited (terminated)"), ("1.0", "audited", None)]
    assert doc["stopped"] == "terminated" and doc["audited"] == 1
    assert not (tmp_path / "cache" / "versions" / f"{P.DIST}.json").exists()
