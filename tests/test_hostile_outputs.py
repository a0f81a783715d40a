"""Bad output paths (issue 12, item 2): every output path is checked before the audit starts
(one line, exit 2) and reports are written atomically, one consistent set per directory."""

import dataclasses
import json
import multiprocessing
import os

import pytest

from audit.cli import main
from audit.enrich import enrich
from audit.errors import UsageError
from audit.outputs import MANIFEST, atomic_write, check_dir, check_file
from audit.report import write_reports
from tests.fixtures.report_examples import example_result

# An implementation that cannot even be imported: if the output check did not come first,
# the error would be about this module, not about the path.
NEVER = "no_such_module_for_chrf_audit:f"


@pytest.fixture
def here(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    (tmp_path / "adir").mkdir()
    (tmp_path / "afile").write_text("x")
    return tmp_path


def _err(capsys, argv, env=None):
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err, (code, err)
    return err


@pytest.mark.parametrize("flags, message", [
    (["--json", "adir"], "--json adir: is a directory"),
    (["--junit", "adir"], "--junit adir: is a directory"),
    (["--markdown", "afile"], "--markdown afile: is a file"),
    (["--reports-dir", "afile"], "--reports-dir afile: is a file"),
    (["--json", "afile/x.json"], "afile is not a directory"),
    (["--json", "/proc/chrf-audit.json"], "cannot write into /proc"),
])
def test_run_refuses_bad_output_before_the_audit(here, capsys, flags, message):
    assert message in _err(capsys, ["run", "--impl", NEVER, "--quiet", *flags])


def test_github_step_summary_is_checked_first(here, capsys, monkeypatch):
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", "/nonexistent/x")
    assert "GITHUB_STEP_SUMMARY /nonexistent/x: no such directory" in _err(capsys, ["run", "--impl", NEVER])


def test_check_refuses_bad_outputs_and_baseline(here, capsys):
    assert "--junit adir: is a directory" in _err(capsys, ["check", "--impl", NEVER, "--junit", "adir"])
    assert "--baseline adir: is a directory" in _err(
        capsys, ["check", "--impl", NEVER, "--baseline", "adir", "--update-baseline"])


def test_validate_patch_and_impact_refuse_a_directory_as_json(here, capsys):
    (here / "p.diff").write_text("--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\n")
    assert "--json adir: is a directory" in _err(
        capsys, ["validate-patch", "--impl", NEVER, "--patch", "p.diff", "--json", "adir"])
    (here / "ref.txt").write_text("a\n")
    assert "--json adir: is a directory" in _err(
        capsys, ["impact", "ref.txt", "--ref", "ref.txt", "--impl", NEVER, "--json", "adir"])


def test_check_helpers_create_missing_directories(tmp_path):
    check_file(tmp_path / "a" / "b" / "x.json", "--json")
    check_dir(tmp_path / "c" / "d", "--markdown")
    assert (tmp_path / "a" / "b").is_dir() and (tmp_path / "c" / "d").is_dir()
    assert not list((tmp_path / "a" / "b").iterdir())  # the probe file is gone
    with pytest.raises(UsageError, match="is a directory"):
        check_file(tmp_path / "c", "--json")


def test_atomic_write_replaces_whole_files(tmp_path):
    p = tmp_path / "r.json"
    atomic_write(p, "old\n")
    ino = os.stat(p).st_ino
    atomic_write(p, "new\n")
    assert p.read_text() == "new\n" and os.stat(p).st_ino != ino  # renamed into place, not rewritten
    assert [x.name for x in tmp_path.iterdir()] == ["r.json"]  # no temporary file left


def test_second_run_into_a_reports_dir_leaves_one_consistent_set(tmp_path):
    """Run A reports nltk and sacreBLEU, run B only sacreBLEU: after B, nltk.md and nltk's
    charts (A's) are gone, the user's own README.md stays, and the manifest lists B's files."""
    full = example_result()
    (tmp_path / "README.md").write_text("mine\n")
    write_reports(enrich(full), tmp_path)
    assert (tmp_path / "nltk.md").is_file() and list((tmp_path / "charts").glob("nltk-*.svg"))
    only_sb = dataclasses.replace(full, adapters=[a for a in full.adapters if a.implementation != "nltk"])
    paths = write_reports(enrich(only_sb), tmp_path)
    left = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file())
    assert left == sorted([MANIFEST, "README.md", "audit.json", "junit.xml", "sacrebleu.md"])
    manifest = json.loads((tmp_path / MANIFEST).read_text())["files"]
    assert manifest == sorted(p.relative_to(tmp_path).as_posix() for p in paths)
    doc = json.loads((tmp_path / "audit.json").read_text())
    assert {f["implementation"] for f in doc["findings"]} <= {"sacrebleu"}


def _writer(out, keep_nltk):
    full = example_result()
    res = full if keep_nltk else dataclasses.replace(
        full, adapters=[a for a in full.adapters if a.implementation != "nltk"])
    for _ in range(5):
        write_reports(enrich(res), out)


def test_concurrent_runs_into_one_reports_dir_do_not_mix(tmp_path):
    """Two processes writing different sets into one directory, repeatedly: the final set is
    exactly one run's (audit.json names nltk iff nltk.md is there)."""
    ctx = multiprocessing.get_context("fork")
    procs = [ctx.Process(target=_writer, args=(tmp_path, k)) for k in (True, False)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
        assert p.exitcode == 0
    doc = json.loads((tmp_path / "audit.json").read_text())
    names = {a["implementation"] for a in doc.get("adapters", [])} or {f["implementation"] for f in doc["findings"]}
    assert ("nltk" in names) == (tmp_path / "nltk.md").is_file()
    listed = set(json.loads((tmp_path / MANIFEST).read_text())["files"])
    assert listed == {p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*")
                      if p.is_file() and p.name != MANIFEST}
