"""Hostile diffs (issue 12, item 1): patch application only ever writes inside its temporary
copy, refuses paths that leave it, refuses patches to chrf-audit itself and to anything but the
implementation's package, and never touches an installed package."""

import shutil
from pathlib import Path

import pytest

from audit.cli import main
from audit.upstream.patching import PatchError, apply_to_copy, apply_unified_diff, safe_relpath

ROOT = Path(__file__).resolve().parents[1]
PLANTED = ROOT / "tests" / "planted"
BUGGY = "plantedpkg:requested_order_divisor"
VICTIM = "precious = 1\n"


def _traversal(prefix: str) -> str:
    return (f"--- a/{prefix}victim.py\n+++ b/{prefix}victim.py\n"
            "@@ -1 +1 @@\n-precious = 1\n+precious = 'overwritten'\n")


@pytest.fixture
def project(tmp_path, monkeypatch):
    shutil.copytree(PLANTED, tmp_path / "plantedpkg", ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "victim.py").write_text(VICTIM)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_traversal_diff_is_refused_and_writes_nothing(project, monkeypatch, capsys):
    """a/plantedpkg/../../<...>/victim.py: on c994a20 the built-in applier (no `patch` on
    PATH) rewrote victim.py outside the temporary copy.  (No `patch` program is used since
    issue 19: one applier on every machine.)"""
    escape = "plantedpkg/" + "../" * 40 + str(project).lstrip("/") + "/"
    (project / "t.diff").write_text(_traversal(escape))
    code = main(["validate-patch", "--impl", f"{BUGGY}.sentence", "--patch", "t.diff", "--max-examples", "5"])
    err = capsys.readouterr().err
    assert code == 2 and "unsafe path" in err and err.count("\n") == 1, err
    assert (project / "victim.py").read_text() == VICTIM


@pytest.mark.parametrize("rel", ["../x.py", "pkg/../../x.py", "/etc/passwd", "~/x", "C:/x", "a\\..\\x", ""])
def test_safe_relpath_refuses_escapes(rel):
    with pytest.raises(PatchError):
        safe_relpath(rel)


def test_safe_relpath_keeps_plain_paths():
    assert safe_relpath("nltk/./translate//chrf_score.py") == "nltk/translate/chrf_score.py"


def test_builtin_applier_refuses_symlink_out_of_root(tmp_path):
    """A path that is textually inside the copy but resolves outside it (a symlink) is refused."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "victim.py").write_text(VICTIM)
    root = tmp_path / "root"
    root.mkdir()
    (root / "pkg").symlink_to(outside)
    with pytest.raises(PatchError, match="leaves the patched copy"):
        apply_unified_diff(_traversal("pkg/"), root)
    assert (outside / "victim.py").read_text() == VICTIM


def test_apply_to_copy_refuses_traversal_before_copying(tmp_path):
    with pytest.raises(PatchError, match="unsafe path"):
        apply_to_copy(_traversal("pkg/../../"), tmp_path, tmp_path / "dest")
    assert not (tmp_path / "dest" / "pkg").exists()


def test_diff_of_chrf_audit_itself_is_refused(project, capsys):
    """A diff of reference_impl would make the after-audit use a patched oracle."""
    diff = ("--- a/reference_impl/scoring.py\n+++ b/reference_impl/scoring.py\n"
            "@@ -1 +1 @@\n-" + (ROOT / "reference_impl" / "scoring.py").read_text().splitlines()[0]
            + "\n+# patched oracle\n")
    (project / "o.diff").write_text(diff)
    code = main(["validate-patch", "--impl", f"{BUGGY}.sentence", "--patch", "o.diff", "--max-examples", "5"])
    err = capsys.readouterr().err
    assert code == 2 and "patches chrf-audit itself" in err, err


def test_diff_of_an_arbitrary_directory_is_refused(project, capsys):
    """An absolute path to a directory that Python can import as a namespace package (any
    directory under the current one) is not the implementation's package."""
    evil = project / "evil"
    evil.mkdir()
    (evil / "victim.py").write_text(VICTIM)
    (project / "e.diff").write_text(_traversal(f"{evil}/".lstrip("/")).replace("a/", "/", 1).replace("b/", "/", 1))
    code = main(["validate-patch", "--impl", f"{BUGGY}.sentence", "--patch", "e.diff", "--max-examples", "5"])
    err = capsys.readouterr().err
    assert code == 2 and "not the implementation's package" in err, err
    assert (evil / "victim.py").read_text() == VICTIM


def test_git_headers_cannot_name_other_files():
    """GNU patch honours git extended headers (``rename to``) and ``Index:``: only the
    checked ---/+++ headers may reach it; hunk lines that look like headers stay."""
    from audit.upstream.patching import plain_unified

    diff = ("diff --git a/pkg/x.py b/pkg/x.py\nrename from pkg/x.py\nrename to ../../y.py\nIndex: ../z.py\n"
            "--- a/pkg/x.py\n+++ b/pkg/x.py\n@@ -1,3 +1,3 @@\n-index 5\n+Index: 6\n rename to z\n")
    assert plain_unified(diff) == ("--- a/pkg/x.py\n+++ b/pkg/x.py\n@@ -1,3 +1,3 @@\n-index 5\n+Index: 6\n"
                                   " rename to z\n")


def test_a_rename_header_stays_in_the_copy(tmp_path):
    site = tmp_path / "site"
    (site / "pkg").mkdir(parents=True)
    (site / "pkg" / "victim.py").write_text(VICTIM)
    diff = ("diff --git a/pkg/victim.py b/pkg/victim.py\nrename from pkg/victim.py\nrename to ../escaped.py\n"
            + _traversal("pkg/"))
    dest = apply_to_copy(diff, site, tmp_path / "dest")
    assert (dest / "pkg" / "victim.py").read_text() == "precious = 'overwritten'\n"
    assert (site / "pkg" / "victim.py").read_text() == VICTIM
    assert not (tmp_path / "escaped.py").exists() and not (tmp_path / "dest" / "escaped.py").exists()


# ------------------------------------------------------------------ issue 29 item 11


@pytest.mark.parametrize("diff", [
    "--- a/m.py\n+++ b/m.py\n@@ -1,2 +1,2 @@\n-a\n+b\n c\n",
    "--- a/m.py\n+++ b/m.py\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+b\n\\ No newline at end of file\n",
    "--- a/m.py\n+++ b/m.py\n@@ -1,3 +1,3 @@\n-a\n+b\n\n c\n",  # an empty line is context
    "--- a/m.py\n+++ b/m.py\n@@ -1,0 +1 @@\n+new\n@@ -5 +6 @@\n-x\n+y\n",
])
def test_complete_hunks_pass(diff):
    from audit.patches.diffs import check_complete

    check_complete(diff, "p.diff")


@pytest.mark.parametrize("diff, holds", [
    ("--- a/m.py\n+++ b/m.py\n@@ -1,3 +1,3 @@\n-a\n+b\n", "holds 1 and 1"),
    ("--- a/m.py\n+++ b/m.py\n@@ -1 +1 @@\n-a\n+b\n@@ -9,2 +9,2 @@\n x\n", "at line 6 announces 2 old and 2 new"),
])
def test_a_truncated_hunk_is_refused(diff, holds):
    from audit.errors import UsageError
    from audit.patches.diffs import check_complete

    with pytest.raises(UsageError, match="truncated diff") as e:
        check_complete(diff, "p.diff")
    assert holds in str(e.value)


def test_no_header_is_imported_in_chrf_audits_process(project, capsys):
    """``find_spec("setup.py")`` imported ``setup``: a header ``a/setup.py/x`` ran the project's
    setup.py in chrf-audit's process (its ``sys.exit`` ended the command); ``a/this.py`` printed
    the Zen of Python."""
    import sys

    (project / "setup.py").write_text("open('setup-ran', 'w').close()\nimport sys\nsys.exit(1)\n")
    for header in ("setup.py/x", "this.py"):
        (project / "p.diff").write_text(f"--- a/{header}\n+++ b/{header}\n@@ -1 +1 @@\n-x\n+y\n")
        sys.modules.pop("this", None)
        assert main(["validate-patch", "--impl", f"{BUGGY}.sentence", "--patch", "p.diff", "--quiet"]) == 2
        out, err = capsys.readouterr()
        assert "not a file of any importable package" in err and out == "" and err.count("\n") == 1
    assert not (project / "setup-ran").exists() and "this" not in sys.modules
