"""The commit the docs, the Action and the examples pin (issue 29 item 15: it was 62 commits
behind main): one commit everywhere, a commit of this repository, and recent.  Moved with
``python scripts/pin_commit.py``."""
import importlib.util
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("pin_commit", ROOT / "scripts" / "pin_commit.py")
pin_commit = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(pin_commit)

MOST_BEHIND = 40  # commits between the pin and HEAD; a release process would tag instead


def _git(*args):
    return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True)


def test_every_file_pins_the_same_commit():
    found = pin_commit.pins()
    assert all(found.values()), {k: v for k, v in found.items() if not v}  # every file still pins one
    assert len({c for cs in found.values() for c in cs}) == 1, found


def test_the_pin_is_a_recent_commit_of_this_history():
    [commit] = {c for cs in pin_commit.pins().values() for c in cs}
    if _git("rev-parse", "--is-shallow-repository").stdout.strip() == "true" and \
            _git("cat-file", "-e", f"{commit}^{{commit}}").returncode != 0:
        # a shallow clone (a CI's) holds no history to place the pin in; its depth bounds it
        depth = int(_git("rev-list", "--count", "HEAD").stdout)
        assert depth <= MOST_BEHIND
        return
    assert _git("merge-base", "--is-ancestor", commit, "HEAD").returncode == 0, commit
    behind = int(_git("rev-list", "--count", f"{commit}..HEAD").stdout)
    assert behind <= MOST_BEHIND, f"the pin is {behind} commits behind HEAD: python scripts/pin_commit.py"


def test_a_pin_that_is_not_a_commit_is_refused(capsys):
    assert pin_commit.main(["not-a-commit"]) == 2
    assert "is not a commit of this repository" in capsys.readouterr().err
