"""The parts of ``chrf-audit versions`` that need no release installed: SPEC against what the
index offers, --bisect's rounds, transitions and root-cause diffs from results, pip's
configuration as uv flags, what is audited in a release, the usage errors (exit 2, one line)
and the report."""

from __future__ import annotations

import subprocess
import sys

import pytest

from audit.errors import UsageError
from audit.render import versions as render
from audit.versions import bisect, matrix, releases
from audit.versions.index import IndexOptions, uv_flags
from audit.versions.targets import targets

OFFERED = ["3.10.4", "3.10.3", "3.9", "3.5", "2.0.1rc2-git", "1.6.1.linux-x86_64", "3.10.0"]


def test_spec_range_list_and_all_against_the_index():
    assert releases.select(releases.parse("3.5..3.10.3"), OFFERED) == (["3.5", "3.9", "3.10.0", "3.10.3"], [])
    assert releases.select(releases.parse("3.10.3,3.10.4,3.11"), OFFERED) == (["3.10.3", "3.10.4"], ["3.11"])
    assert releases.select(releases.parse("all"), OFFERED)[0] == ["3.5", "3.9", "3.10.0", "3.10.3", "3.10.4"]
    assert releases.select(releases.parse("..3.9"), OFFERED)[0] == ["3.5", "3.9"]
    assert releases.select(releases.parse("3.10.1.."), OFFERED)[0] == ["3.10.3", "3.10.4"]


@pytest.mark.parametrize("spec,message", [
    ("", "SPEC is empty"), ("3.10..3.5", "lower bound is above"), ("abc", "not a version"),
    ("3.5..3.6..3.7", "one '..'"), ("3.5,,3.6", "empty version"), ("4.0..5.0", "no release between 4.0 and 5.0"),
])
def test_bad_specs_are_one_line_errors(spec, message):
    with pytest.raises(UsageError, match=message):
        releases.select(releases.parse(spec), OFFERED)


def _result(families, status="audited"):
    return {"status": status, "families": families, "sources": {}, "functions": {}}


def test_bisect_rounds_place_each_transition_between_neighbours():
    versions = [f"v{i}" for i in range(16)]
    truth = {v: (["f"] if 5 <= i <= 11 else []) + (["g"] if i >= 13 else []) for i, v in enumerate(versions)}
    results, rounds = {}, []
    while True:
        picks = bisect.next_round(versions, results)
        if not picks:
            break
        rounds.append(picks)
        results.update({v: _result(truth[v]) for v in picks})
    assert rounds[0] == ["v0", "v7", "v15"]
    assert len(results) < len(versions)
    full = {v: _result(truth[v]) for v in versions}
    for fam in ("f", "g"):
        assert matrix.runs(versions, results, fam) == matrix.runs(versions, full, fam)
    assert matrix.runs(versions, full, "f") == [["v5", "v12"]] and matrix.runs(versions, full, "g") == [["v13", None]]


def test_bisect_steps_over_skipped_releases_and_finds_the_first_audited_one():
    versions = [f"v{i}" for i in range(6)]
    truth = {"v0": None, "v1": None, "v2": [], "v3": ["f"], "v4": ["f"], "v5": ["f"]}
    results = {}
    while True:
        picks = bisect.next_round(versions, results)
        if not picks:
            break
        results.update({v: _result([], "skipped") if truth[v] is None else _result(truth[v]) for v in picks})
    audited = [v for v in versions if results.get(v, {}).get("status") == "audited"]
    assert audited[0] == "v2" and matrix.runs(versions, results, "f") == [["v3", None]]


def test_transitions_read_from_audited_releases_only():
    versions = ["1", "2", "3", "4", "5", "6"]
    results = {"1": _result(["f"]), "2": _result([]), "3": _result([], "skipped"), "4": _result(["f"]),
               "5": _result(["f"]), "6": _result([])}
    assert matrix.runs(versions, results, "f") == [[None, "2"], ["4", "6"]]
    doc = matrix.document("p", versions, results, implementations=["p:f"], settings={}, library=None)
    assert doc["families"] == {"f": {"introduced": "4", "fixed": "6", "intervals": [
        {"introduced": None, "fixed": "2"}, {"introduced": "4", "fixed": "6"}]}}
    assert doc["newest_audited"] == "6" and doc["newest_has_findings"] is False


NLTK_OLD = 'import re\n\ndef _preprocess(sent, ignore_whitespace):\n    if ignore_whitespace:\n        sent = re.sub(r"\\s+", "", sent)\n    return sent\n'
NLTK_NEW = NLTK_OLD.replace("import re\n", "from nltk import redos\n").replace("re.sub(", "redos.sub(")


def test_the_registry_pattern_locates_the_function_whose_diff_is_shown():
    old = {"sources": {"nltk/translate/chrf_score.py": NLTK_OLD}, "functions": {"sentence": "sentence_chrf"}}
    new = {"sources": {"nltk/translate/chrf_score.py": NLTK_NEW}, "functions": {"sentence": "sentence_chrf"}}
    d = matrix.root_cause_diff("whitespace-set-white-space", "nltk", old, new, "3.10.3", "3.10.4", bad=new)
    assert (d["file"], d["function"]) == ("nltk/translate/chrf_score.py", "_preprocess")
    assert d["diff"].splitlines()[-3:] == ['-        sent = re.sub(r"\\s+", "", sent)',
                                           '+        sent = redos.sub(r"\\s+", "", sent)', "     return sent"]
    same = matrix.root_cause_diff("whitespace-set-white-space", "nltk", new, new, "a", "b", bad=new)
    assert same["diff"] is None and "the same in both releases" in same["note"]


def test_function_source_by_qualified_name():
    text = "class A:\n    @staticmethod\n    def f(x):\n        return x\n\ndef f():\n    pass\n"
    assert matrix.function_source(text, "A.f") == "    @staticmethod\n    def f(x):\n        return x\n"
    assert matrix.function_source(text, "f") == "def f():\n    pass\n"
    assert matrix.function_source(text, "A") is None and matrix.function_source("def (", "f") is None


def test_pip_configuration_becomes_uv_flags_and_the_command_line_wins():
    config = {"index-url": ["https://example.invalid/simple"], "extra-index-url": ["file:///a", "file:///b"],
              "find-links": ["/w"], "constraint": ["/c.txt"]}
    got = uv_flags(config, IndexOptions("file:///mine/simple", ("/more",)))
    assert got == ["--index-url", "file:///mine/simple", "--extra-index-url", "file:///a", "--extra-index-url",
                   "file:///b", "--find-links", "/w", "--find-links", "/more", "--constraint", "/c.txt",
                   "--index-strategy", "unsafe-best-match"]
    assert uv_flags({"no-index": ["true"]}, IndexOptions())[:1] == ["--no-index"]


def test_what_is_audited_in_each_release():
    dist, specs = targets("sacrebleu")
    assert dist == "sacrebleu" and [s["name"] for s in specs] == [
        "sacrebleu-chrf", "sacrebleu-chrf++", "sacrebleu-chrf-eps", "sacrebleu-chrf++-eps"]
    dist, specs = targets("nltk", overrides={"beta": 2})
    assert specs[0]["claims"]["beta"] == 2 and specs[0]["supports"]["multi_reference"] is False
    dist, specs = targets("chrf-x", impl="chrf_x:score", max_refs=1, accepts="beta")
    assert specs[0]["backend"] == {"kind": "callable", "sentence": "chrf_x:score", "corpus": None, "accepts": ["beta"]}
    for kwargs, message in (({}, "not a built-in upstream"), ({"impl": "nltk"}, "is package.module:function"),
                            ({"impl": "x"}, "is package.module:function")):
        with pytest.raises(UsageError, match=message):
            targets("chrf-x", **kwargs)
    with pytest.raises(UsageError, match="not an adapter of nltk"):
        targets("nltk", impl="sacrebleu-chrf")


@pytest.mark.parametrize("args,message", [
    (["nltk", "3.10..3.5"], "lower bound is above"),
    (["chrf-x", "1.0"], "not a built-in upstream"),
    (["nltk", "all", "--jobs", "0"], "--jobs must be an integer >= 1, got 0"),
    (["nltk", "all", "--python", "/nonexistent/python"], "--python /nonexistent/python: not a Python interpreter"),
    (["nltk", "all", "--max-refs", "1"], "--max-refs describes"),
])
def test_usage_errors_are_one_line_exit_2(args, message, tmp_path):
    proc = subprocess.run([sys.executable, "-m", "audit.cli", "versions", *args], capture_output=True, text=True,
                          timeout=300, cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.strip().splitlines()[-1].startswith("chrf-audit: error: ") and message in proc.stderr
    assert "Traceback" not in proc.stderr


def test_an_unreachable_scheduler_is_a_usage_error(tmp_path, monkeypatch):
    from audit.versions.engine import Engine, Progress

    with pytest.raises(UsageError, match="--scheduler tcp://127.0.0.1:9: cannot reach the Dask scheduler: nothing listens"):
        with Engine("tcp://127.0.0.1:9", 1, Progress(False, "x")):
            pass


def test_a_refused_scheduler_address_is_told_at_once_and_a_listening_one_is_left_to_the_probe():
    """Nothing listening: refused before Dask's client retries for its 30 s; an address that
    accepts the connection is asked Dask's identity next (tests/test_versions_scheduler.py)."""
    import socket

    from audit.versions.scheduler import refused

    assert refused("127.0.0.1", 9, 30) == "nothing listens at 127.0.0.1:9 (connection refused)"
    with socket.socket() as listening:
        listening.bind(("127.0.0.1", 0))
        listening.listen()
        assert refused("127.0.0.1", listening.getsockname()[1], 30) is None


def test_the_report_shows_the_matrix_the_transitions_and_the_skipped():
    results = {"1.0": _result([]), "1.1": _result(["f"]), "1.2": _result([], "skipped") | {"reason": "cannot install"},
               "1.3": _result([])}
    doc = matrix.document("pkg", ["1.0", "1.1", "1.2", "1.3"], results, implementations=["pkg:f"],
                          settings={"seed": 0, "max_examples": 10, "tolerance": 1e-9}, library=None)
    out = render.render(doc, {})
    page = out["pkg.md"].decode()
    assert "| `f` | · | **x** | skipped | · |" in page
    assert "| `f` | 1.1 (1.0 correct) | 1.3 |" in page and "| 1.2 | cannot install |" in page
    svg = out["charts/pkg-versions.svg"].decode()
    assert svg.startswith("<svg") and "f @ 1.2: skipped" in svg and "f @ 1.1: present" in svg
    assert render.render(doc, {}) == out  # deterministic
