"""Point every pinned chrf-audit commit in the docs, the Action and the examples at one commit.

    python scripts/pin_commit.py [COMMIT]     (default: HEAD; a commit of this repository)

A pin cannot name the commit that writes it, so the pin is the last commit before the one
that runs this script; ``tests/test_pinned_commit.py`` holds every pin to one commit of this
repository's history.
"""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FILES = ("README.md", "action.yml", "docs/ci.md", "examples/github-actions.yml", "examples/github-action-uses.yml")
PIN = re.compile(r"(OWNER/chrf-audit@|rev: )([0-9a-f]{40})\b")


def pins() -> dict[str, list[str]]:
    """Each file's pinned commits, in order."""
    return {name: [m.group(2) for m in PIN.finditer((ROOT / name).read_text(encoding="utf-8"))] for name in FILES}


def main(argv: list[str]) -> int:
    rev = argv[0] if argv else "HEAD"
    done = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}"],
                          capture_output=True, text=True)
    if done.returncode != 0:
        print(f"pin_commit: {rev!r} is not a commit of this repository", file=sys.stderr)
        return 2
    commit = done.stdout.strip()
    for name in FILES:
        path = ROOT / name
        text = path.read_text(encoding="utf-8")
        path.write_text(PIN.sub(lambda m: m.group(1) + commit, text), encoding="utf-8")
    print(commit)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
