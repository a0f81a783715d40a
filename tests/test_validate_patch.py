"""``chrf-audit validate-patch``: before/after audits in separate processes, each family
reported as fixed, still present or introduced; exit 0/1/2."""

import difflib
import json
import shutil
from pathlib import Path

import pytest

from audit.cli import main

ROOT = Path(__file__).resolve().parents[1]
PLANTED = ROOT / "tests" / "planted"
CASES = str(ROOT / "cases")
BUGGY = "plantedpkg:requested_order_divisor"
#: The row of tests/planted/catalogue.py that plants the divisor bug says this once.
BUG = 'dict(divisor="requested")'


def _diff(new: str, prefixes=("a/", "b/")) -> str:
    """A unified diff of the planted package's catalogue replacing the divisor bug's switches."""
    lines = (PLANTED / "catalogue.py").read_text(encoding="utf-8").splitlines(keepends=True)
    assert sum(BUG in line for line in lines) == 1
    patched = [line.replace(BUG, new) for line in lines]
    a, b = (f"{p}plantedpkg/catalogue.py" for p in prefixes)
    return "".join(difflib.unified_diff(lines, patched, a, b))


FIX = _diff('dict(divisor="effective")')


@pytest.fixture
def project(tmp_path, monkeypatch):
    shutil.copytree(PLANTED, tmp_path / "plantedpkg", ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NO_COLOR", "1")
    return tmp_path


def _planted(*extra):
    return ["validate-patch", "--impl", f"{BUGGY}.sentence", "--corpus-impl", f"{BUGGY}.corpus",
            "--max-examples", "20", "--cases", CASES, *extra]


def test_nltk_divisor_patch_is_validated(tmp_path, monkeypatch, capsys):
    """The project's own verified nltk patch, called with its opt-in keyword (--call-option):
    the divisor family fixed, nothing introduced, nltk's doctests pass before and after, the
    installed nltk untouched."""
    import audit.upstream as upstream
    from audit.upstream._base import module_source

    monkeypatch.chdir(tmp_path)
    diff = upstream.patch("nltk", "requested-order-divisor")
    assert diff
    (tmp_path / "fix.diff").write_text(diff, encoding="utf-8")
    installed, _, text = module_source("nltk.translate.chrf_score")
    code = main(["validate-patch", "--impl", "nltk", "--patch", "fix.diff", "--max-examples", "20",
                 "--cases", CASES, "--json", "v.json", "--call-option", "effective_order=true"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "  after the patch called with: effective_order=True" in out  # the opt-in keyword of the patch
    assert "library's own tests (nltk/translate/chrf_score.py): before 2 passed, 0 failed; after 2 passed, 0 failed" in out
    doc = json.loads((tmp_path / "v.json").read_text())
    status = {f["family"]: f["status"] for f in doc["families"]}
    assert status["requested-order-divisor"] == "fixed"
    assert "introduced" not in status.values()
    assert doc["verdict"] == "validated"
    assert "FIXED          nltk  requested-order-divisor" in out
    assert installed.read_text(encoding="utf-8") == text  # the installed package is never touched


def test_call_option_usage_errors(capsys):
    for args, msg in ((["--call-option", "x"], "expects NAME=VALUE"),
                      (["--call-option", "class=1"], "expects NAME=VALUE"),
                      (["--call-option", "a=[1]"], "a boolean, a number or a string")):
        assert main(["validate-patch", "--impl", "nltk", "--patch", "fix.diff", *args]) == 2
        assert msg in capsys.readouterr().err
    assert main(["validate-patch", "--impl", "m:f", "--patch", "fix.diff", "--call-option", "a=1"]) == 2
    assert "passes keywords to a built-in library" in capsys.readouterr().err


def test_planted_fix_is_validated(project, capsys, monkeypatch):
    """... with its progress drawn on stderr for a terminal (issue 23: 52 s of blank
    terminal), as run's."""
    import sys

    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    (project / "fix.diff").write_text(FIX, encoding="utf-8")
    assert main(_planted("--patch", "fix.diff")) == 0
    out, err = capsys.readouterr()
    assert "auditing before and after the patch (two processes)" in err and "0/2" in err
    assert "replaying 1 repro(s) on the other side" in err
    assert "FIXED          plantedpkg:requested_order_divisor  requested-order-divisor" in out
    assert 'repro (sentence): hyp "' in out and "expected 100, before 16.6666" in out and "after 100" in out
    assert "patch validated: 1 fixed, 0 still present, 0 introduced" in out
    assert BUG in (project / "plantedpkg" / "catalogue.py").read_text()  # the copy is not patched


def test_wrong_patch_introduces_families(project, capsys):
    wrong = _diff("dict(clip=False)", prefixes=("", ""))  # the divisor fixed, clipping lost
    (project / "wrong.diff").write_text(wrong, encoding="utf-8")
    assert main(_planted("--patch", "wrong.diff", "--json", "v.json")) == 1
    out = capsys.readouterr().out
    doc = json.loads((project / "v.json").read_text())
    introduced = [f for f in doc["families"] if f["status"] == "introduced"]
    assert {f["family"] for f in introduced} == {"no-clipping"} and doc["verdict"] == "not validated"
    assert all(f["repro"] and f["after"] is not None for f in introduced)
    assert "INTRODUCED" in out and "patch not validated" in out


def test_source_checkout(project, tmp_path, capsys, monkeypatch):
    checkout = tmp_path / "checkout"
    shutil.copytree(project / "plantedpkg", checkout / "src" / "plantedpkg")
    mod = checkout / "src" / "plantedpkg" / "catalogue.py"
    mod.write_text(mod.read_text().replace(BUG, 'dict(divisor="effective")'))
    import sys

    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    assert main(_planted("--source", str(checkout), "--quiet")) == 0
    out, err = capsys.readouterr()
    assert "patch validated: 1 fixed" in out and err == ""  # --quiet: no progress, even on a terminal
    assert not list(checkout.rglob("__pycache__"))  # nothing written into the checkout


@pytest.mark.parametrize("diff, message", [
    (FIX.replace('divisor="requested"', 'divisor="nope"'), "fix.diff does not apply to plantedpkg"),
    ("just some text\n", "fix.diff: malformed diff: no file in the diff"),
    (FIX.replace("catalogue.py", "missing.py"), "which is not a file of any importable package"),
])
def test_bad_diff_is_exit_2(project, capsys, diff, message):
    (project / "fix.diff").write_text(diff, encoding="utf-8")
    assert main(_planted("--patch", "fix.diff")) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1, err


@pytest.mark.parametrize("args, message", [
    (["--impl", "nltkk", "--patch", "fix.diff"], "unknown implementation 'nltkk'"),
    (["--impl", "nltk"], "needs --patch FILE"),
    (["--impl", "nltk", "--patch", "missing.diff"], "missing.diff: no such file"),
    (["--impl", "nltk", "--patch", "latin1.diff"], "latin1.diff line 1: invalid UTF-8"),
    (["--impl", "nltk", "--source", "nowhere"], "--source nowhere: no such directory"),
    (["--impl", "nltk", "--source", "."], "does not contain the package 'nltk'"),
    (["--impl", f"{BUGGY}.nope", "--patch", "fix.diff", "--cases", CASES], "has no attribute 'requested_order_divisor.nope'"),
])
def test_usage_errors(project, capsys, args, message):
    (project / "fix.diff").write_text(FIX, encoding="utf-8")
    (project / "latin1.diff").write_bytes(b"--- a/x\xe9\n")
    assert main(["validate-patch", "--max-examples", "5", *args]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1, err


# -- what "fixed" means (issue 19, item 5) ------------------------------------------------

def _before(family="corpus-macro-average", expected=100.0, actual=8.333333333333334):
    return {"implementation": "nltk", "family": family, "level": "corpus", "expected": expected, "actual": actual}


@pytest.mark.parametrize("replay, known, status", [
    # the repro now scores what the reference says
    ({"key": None, "actual": 100.0, "outcome": "value"}, set(), "fixed"),
    # nltk's real macro-average fix: what is left is the divisor bug nltk had before, nearer 100
    ({"key": ["requested-order-divisor"], "actual": 16.666666666666668, "outcome": "value"},
     {"requested-order-divisor"}, "fixed"),
    # `num_ngram_sizes = len(ngram_fscores) + 1`: another wrong value, farther from 100
    ({"key": ["unexplained"], "actual": 7.142857142857143, "outcome": "value"}, set(), "still present"),
    # farther, even though only a family it had before is named
    ({"key": ["requested-order-divisor"], "actual": 7.142857142857143, "outcome": "value"},
     {"requested-order-divisor"}, "still present"),
    # nearer, but as a divergence it did not have before
    ({"key": ["wrong-ngram-orders"], "actual": 50.0, "outcome": "value"}, {"requested-order-divisor"}, "still present"),
    # no number any more
    ({"key": None, "actual": None, "outcome": "weird"}, set(), "still present"),
])
def test_fixed_means_the_reference_value_not_another_wrong_one(replay, known, status):
    from audit.patches.validate import _vanished

    got, note = _vanished(_before(), dict(replay, implementation="nltk", family="corpus-macro-average",
                                          reproduces=False), known)
    assert got == status, note
    if status == "still present" and replay["key"]:
        assert note.startswith("its repro still diverges, now as " + " + ".join(replay["key"]))


def test_a_patch_that_worsens_nltk_fixes_nothing(worsening_nltk_patch):
    """The issue's patch: nltk's corpus score divided by one order too many.  Its repros move
    to other wrong values, farther from the reference: still present, nothing fixed."""
    proc, doc = worsening_nltk_patch
    status = {f["family"]: f for f in doc["families"]}
    assert proc.returncode == 1 and doc["verdict"] == "not validated", proc.stderr
    assert not [f for f in doc["families"] if f["status"] == "fixed"], proc.stdout
    macro = status["corpus-macro-average"]
    assert macro["status"] == "still present" and abs(macro["after"] - 100 / 14) < 1e-9
    # the patched audit still names corpus-macro-average; f-score-averaged's repro is no longer
    # explained by its family, and the verdict says it moved away from the reference
    fsa = status["f-score-averaged"]
    assert fsa["status"] == "still present" and "farther from the reference than before" in fsa["note"]
