"""Bad output paths (issue 12, item 2): every output path is checked before the audit starts
(one line, exit 2) and reports are written atomically, one consistent set per directory."""

import dataclasses
import json
import xml.etree.ElementTree as ET
import multiprocessing
import os

import jsonschema
import pytest

from audit.cli import main
from audit.enrich import enrich
from audit.errors import UsageError
from audit.files.outputs import atomic_write, check_dir, check_file
from audit.files.report_set import MANIFEST
from audit.commands.writing import write_reports
from audit.render import SCHEMA_PATH
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


def _files(root):
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())


def test_a_run_of_another_implementation_keeps_the_first_ones_reports(tmp_path):
    """Run A reports nltk and sacreBLEU, run B only sacreBLEU (issue 19, item 11): nltk's report
    and charts stay, audit.json and junit.xml still describe nltk (with the run that audited
    it), the user's own README.md stays, and the manifest lists what is there."""
    full = example_result()
    (tmp_path / "README.md").write_text("mine\n")
    write_reports(enrich(full), tmp_path)
    before = _files(tmp_path)
    nltk_md = (tmp_path / "nltk.md").read_bytes()
    only_sb = dataclasses.replace(full, seed=7, adapters=[a for a in full.adapters if a.implementation != "nltk"])
    write_reports(enrich(only_sb), tmp_path)
    assert _files(tmp_path) == before and (tmp_path / "nltk.md").read_bytes() == nltk_md
    doc = json.loads((tmp_path / "audit.json").read_text())
    assert [i["implementation"] for i in doc["implementations"]] == ["sacrebleu", "nltk"]
    assert doc["run"]["seed"] == 7 and doc["implementations"][1]["run"]["seed"] == 0
    jsonschema.Draft202012Validator(json.loads(SCHEMA_PATH.read_text())).validate(doc)
    assert {f["implementation"] for f in doc["findings"]} == {"nltk"} and len(doc["findings"]) == 4
    junit = ET.parse(tmp_path / "junit.xml").getroot()
    assert [s.get("name") for s in junit.findall("testsuite")] == ["chrf-audit.sacrebleu", "chrf-audit.nltk"]
    assert junit.get("tests") == "5" and junit.get("failures") == "4"
    manifest = json.loads((tmp_path / MANIFEST).read_text())
    assert manifest["files"] == [f for f in before if f not in (MANIFEST, "README.md")]
    assert manifest["owners"]["nltk.md"] == "nltk" and "audit.json" not in manifest["owners"]


def test_three_runs_of_three_implementations_keep_three_reports(tmp_path):
    full = example_result(sacrebleu=False)
    for name in ("a", "b", "c"):
        adapters = [dataclasses.replace(full.adapters[0], implementation=name,
                                        findings=[dataclasses.replace(f, implementation=name)
                                                  for f in full.adapters[0].findings])]
        write_reports(enrich(dataclasses.replace(full, adapters=adapters), with_upstream=False), tmp_path)
    assert {"a.md", "b.md", "c.md"} <= set(_files(tmp_path))
    doc = json.loads((tmp_path / "audit.json").read_text())
    assert [i["implementation"] for i in doc["implementations"]] == ["c", "b", "a"]  # this run first
    assert [i["report"] for i in doc["implementations"]] == ["c.md", "b.md", "a.md"]


def test_a_rerun_of_the_same_implementation_removes_its_stale_files(tmp_path):
    """nltk audited again with one family fewer: that family's chart goes, the rest is
    replaced; nothing of an implementation this run audits is carried."""
    full = example_result(sacrebleu=False)
    write_reports(enrich(full), tmp_path)
    assert (tmp_path / "charts" / "nltk-requested-order-divisor.svg").is_file()
    nltk = full.adapters[0]
    fewer = dataclasses.replace(nltk, findings=[f for f in nltk.findings if f.family != "requested-order-divisor"])
    write_reports(enrich(dataclasses.replace(full, adapters=[fewer])), tmp_path)
    assert not (tmp_path / "charts" / "nltk-requested-order-divisor.svg").exists()
    assert (tmp_path / "charts" / "nltk-f-score-averaged.svg").is_file()
    doc = json.loads((tmp_path / "audit.json").read_text())
    assert len(doc["implementations"]) == 1 and len(doc["findings"]) == 3


def _planted_manifest(root, names, hashes=True):
    import hashlib

    def digest(rel):
        p = root / rel
        return hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "0" * 64

    doc = {"files": names}
    if hashes:
        doc["sha256"] = {rel: digest(rel) for rel in names}
        doc["owners"] = {rel: "nltk" for rel in names}
    (root / MANIFEST).write_text(json.dumps(doc))


def test_a_planted_manifest_deletes_nothing_of_the_users(tmp_path):
    """A manifest naming the user's notes, a source file, the baseline, a README (with their
    true hashes), an edited report and a chart reached through a symbolic link to another
    directory (issue 19, item 3): a run into that directory deletes none of them."""
    victims = {"notes.txt": "mine\n", "src/mod.py": "x = 1\n", "chrf-audit-baseline.json": "{}\n",
               "README.md": "# mine\n", "nltk.md": "# chrF audit of nltk, with my notes\n"}
    for rel, text in victims.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    elsewhere = tmp_path.parent / (tmp_path.name + "-elsewhere")
    elsewhere.mkdir()
    (elsewhere / "x.svg").write_text("<svg/>")
    (tmp_path / "charts").symlink_to(elsewhere)
    _planted_manifest(tmp_path, sorted(victims) + ["charts/x.svg"])
    (tmp_path / "nltk.md").write_text("# edited after the manifest was written\n")
    only_sb = dataclasses.replace(example_result(), adapters=[a for a in example_result().adapters
                                                                if a.implementation == "sacrebleu"])
    write_reports(enrich(only_sb), tmp_path)
    for rel, text in victims.items():
        if rel != "nltk.md":
            assert (tmp_path / rel).read_text() == text, rel
    assert (tmp_path / "nltk.md").read_text() == "# edited after the manifest was written\n"
    assert (elsewhere / "x.svg").read_text() == "<svg/>"


def test_a_manifest_without_hashes_proves_nothing(tmp_path):
    """An older chrf-audit's manifest (names only) is a claim, not a proof: what it names stays."""
    (tmp_path / "old.md").write_text("# chrF audit of old\n")
    _planted_manifest(tmp_path, ["old.md"], hashes=False)
    write_reports(enrich(example_result(sacrebleu=False)), tmp_path)
    assert (tmp_path / "old.md").is_file()
    assert "old.md" not in json.loads((tmp_path / MANIFEST).read_text())["files"]


def test_run_into_the_current_directory_with_a_planted_manifest(tmp_path, monkeypatch):
    """The issue's command, `chrf-audit run --reports-dir .`, into a checkout holding a planted
    manifest that names a source file, notes and the baseline: all three survive."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "cases").mkdir()
    victims = {"notes.txt": "n\n", "mod.py": "def f(h, r):\n    return 100.0 if h in r else 0.0\n",
               "chrf-audit-baseline.json": "{}\n"}
    for rel, text in victims.items():
        (tmp_path / rel).write_text(text)
    _planted_manifest(tmp_path, sorted(victims))
    code = main(["run", "--impl", "mod:f", "--quiet", "--max-examples", "5", "--cases", "cases",
                 "--reports-dir", ".", "--no-verify"])
    assert code in (0, 1)
    assert {rel: (tmp_path / rel).read_text() for rel in victims} == victims
    assert (tmp_path / "audit.json").is_file()


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


def test_a_name_too_long_for_its_report_files_fails_before_the_audit(here, capsys):
    """--name of 300 characters ran the whole audit, then "File name too long" lost everything
    (issue 19, item 9): now one line, exit 2, and the implementation is never called."""
    (here / "spy.py").write_text("import pathlib\ndef f(h, r):\n    pathlib.Path('called').touch()\n    return 0.0\n")
    (here / "cases").mkdir()
    err = _err(capsys, ["run", "--impl", "spy:f", "--name", "n" * 300, "--quiet", "--max-examples", "3",
                        "--cases", "cases", "--reports-dir", "r", "--json", "a.json"])
    assert "is too long for a file name" in err and "give a shorter --name" in err
    assert not (here / "called").exists() and not (here / "a.json").exists()


def test_saved_cases_count_too(here, capsys):
    """A name that fits a report (200 + ".md") but not a saved case's file name
    (<name>--<family>--corpus.json) fails only with --save-cases, before the audit."""
    (here / "mod.py").write_text("def f(h, r):\n    return 0.0\n")
    (here / "cases").mkdir()
    args = ["run", "--impl", "mod:f", "--name", "n" * 200, "--quiet", "--max-examples", "3", "--cases", "cases",
            "--no-verify", "--json", "a.json"]
    assert "is too long for a file name" in _err(capsys, args + ["--save-cases"])
    assert main(args + ["--reports-dir", "r"]) == 1
    assert (here / "r" / ("n" * 200 + ".md")).is_file() and (here / "a.json").is_file()
