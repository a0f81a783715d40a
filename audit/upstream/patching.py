"""Unified diffs against installed upstream sources, applied to temporary copies only.

``apply_to_copy`` copies the top-level package(s) a diff touches into a temporary directory
and applies the diff there with ``apply_unified_diff`` (exact hunks, at their line or the
nearest offset, like ``patch --fuzz=0``); the installed package is never written to.  No
external ``patch`` program is used: the same diff gives the same copy on every machine,
whether or not one is installed.  Every path a diff names
is checked (``safe_relpath``, ``contained``) before anything is copied or written.  Auditing
the patched copy is ``audit.patches``'s job.
"""

from __future__ import annotations

import difflib
import re
import shutil
from pathlib import Path


class PatchError(Exception):
    """A diff that does not apply."""


def safe_relpath(rel: str) -> str:
    """``rel`` (without empty and ``.`` components) when it is a relative path that stays
    inside the directory it is joined to; PatchError otherwise (absolute, ``..``, ``~``,
    backslash, NUL, drive letter).  Every path a diff names goes through here before
    anything is copied or written."""
    parts = [p for p in str(rel).split("/") if p not in ("", ".")]
    if (not parts or str(rel).startswith("/") or "\\" in rel or "\0" in rel or ".." in parts
            or parts[0].startswith("~") or re.match(r"^[A-Za-z]:", parts[0])):
        raise PatchError(f"unsafe path {rel!r} in the diff (it must stay inside the package)")
    return "/".join(parts)


def contained(root: Path, rel: str) -> Path:
    """``root / rel`` after checking that it resolves (symlinks included) inside ``root``."""
    root = Path(root).resolve()
    path = root / safe_relpath(rel)
    real = path.resolve()
    if real != root and root not in real.parents:
        raise PatchError(f"{rel} leaves the patched copy ({real})")
    return path


def make_diff(relative_file: str, old: str, new: str) -> str:
    return "".join(
        difflib.unified_diff(
            old.splitlines(keepends=True), new.splitlines(keepends=True),
            fromfile=f"a/{relative_file}", tofile=f"b/{relative_file}",
        )
    )


_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def parse_unified_diff(diff: str) -> list[tuple[str, list[tuple[int, list[str], list[str]]]]]:
    """[(path with one leading component stripped, [(old start, old lines, new lines)])]."""
    files: list = []
    lines = diff.splitlines(keepends=True)
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("--- ") and i + 1 < len(lines) and lines[i + 1].startswith("+++ "):
            target = lines[i + 1][4:].split("\t")[0].strip()
            if target == "/dev/null":
                raise PatchError("deleting files is not supported")
            parts = target.split("/", 1)
            files.append((safe_relpath(parts[1] if len(parts) == 2 else parts[0]), []))
            i += 2
            continue
        m = _HUNK.match(line)
        if m:
            if not files:
                raise PatchError("hunk before any file header")
            old_start = int(m.group(1))
            old_len = int(m.group(2)) if m.group(2) is not None else 1
            new_len = int(m.group(4)) if m.group(4) is not None else 1
            old, new = [], []
            i += 1
            last = ""
            while i < len(lines) and (len(old) < old_len or len(new) < new_len or lines[i].startswith("\\")):
                hl = lines[i]
                tag, body = hl[:1], hl[1:]
                if hl.startswith("\\"):  # "\ No newline at end of file": of the line before
                    for side in ((old,) if last == "-" else (new,) if last == "+" else (old, new)):
                        if side and side[-1].endswith("\n"):
                            side[-1] = side[-1][:-2] if side[-1].endswith("\r\n") else side[-1][:-1]
                    i += 1
                    continue
                if tag == " " or hl in ("\n", "\r\n"):
                    body = body if tag == " " else hl
                    old.append(body)
                    new.append(body)
                elif tag == "-":
                    old.append(body)
                elif tag == "+":
                    new.append(body)
                else:
                    raise PatchError(f"malformed hunk line: {hl!r}")
                last = tag
                i += 1
            files[-1][1].append((old_start, old, new))
            continue
        i += 1
    if not files:
        raise PatchError("no file in the diff")
    return files


def _apply_hunks(rel: str, hunks, text: list[str]) -> list[str]:
    """``text`` (lines) with each hunk applied: exactly, at its stated line or the nearest offset."""
    offset = 0
    for old_start, old, new in hunks:
        want = old_start - 1 + offset
        candidates = sorted(range(len(text) - len(old) + 1), key=lambda k: (abs(k - want), k))
        at = next((k for k in candidates if text[k:k + len(old)] == old), None)
        if at is None:
            raise PatchError(f"{rel}: hunk at line {old_start} does not apply")
        text[at:at + len(old)] = new
        offset = at - (old_start - 1) + len(new) - len(old)
    return text


def apply_diff_text(diff: str, text: str) -> str:
    """The text of a one-file ``diff``'s file after it is applied to ``text`` (in memory)."""
    files = parse_unified_diff(diff)
    if len(files) != 1:
        raise PatchError("a diff of one file was expected")
    rel, hunks = files[0]
    return "".join(_apply_hunks(rel, hunks, text.splitlines(keepends=True)))


def apply_unified_diff(diff: str, root: Path) -> list[Path]:
    """A minimal unified-diff applier (``-p1``): each hunk must match exactly, at its stated
    line or, failing that, at the nearest offset.  Returns the files changed."""
    changed = []
    for rel, hunks in parse_unified_diff(diff):
        path = contained(root, rel)
        if not path.is_file():
            raise PatchError(f"{rel}: no such file under {root}")
        text = _apply_hunks(rel, hunks, path.read_text(encoding="utf-8").splitlines(keepends=True))
        path.write_text("".join(text), encoding="utf-8")
        changed.append(path)
    return changed


#: Lines that make GNU patch pick file names (or modes) by itself: git extended headers
#: (``rename to ../x``), ``Index:``, ``Prereq:``, context-diff headers.  Only the ---/+++
#: headers checked by ``safe_relpath`` may name a file.
_FOREIGN_HEADER = re.compile(r"^(diff --git |rename |copy |similarity |dissimilarity |new file mode|"
                             r"deleted file mode|old mode|new mode|index |Index:|Prereq:|\*\*\* |Binary files|GIT binary)")


def plain_unified(diff: str) -> str:
    """``diff`` without the header lines outside hunks that could name other files."""
    out, in_hunk = [], 0
    for line in diff.splitlines(keepends=True):
        if line.startswith("@@"):
            in_hunk = 1
        elif line.startswith(("--- ", "+++ ")) and not in_hunk:
            pass
        elif line[:1] not in (" ", "+", "-", "\\") and line not in ("\n", "\r\n"):
            in_hunk = 0
        if not in_hunk and _FOREIGN_HEADER.match(line):
            continue
        out.append(line)
    return "".join(out)


def diff_files(diff: str) -> list[str]:
    return [rel for rel, _ in parse_unified_diff(diff)]


def apply_to_copy(diff: str, site_dir: Path, dest: Path) -> Path:
    """Copy each top-level package the diff touches from ``site_dir`` into ``dest`` and apply
    the diff there.  Returns ``dest`` (to put on PYTHONPATH)."""
    dest.mkdir(parents=True, exist_ok=True)
    rels = diff_files(diff)  # each one checked by safe_relpath
    for top in sorted({rel.split("/")[0] for rel in rels}):
        src = contained(Path(site_dir), top)
        if src.is_dir():
            shutil.copytree(src, dest / top, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        elif src.is_file():
            shutil.copy2(src, dest / top)
        else:
            raise PatchError(f"{top} is not in {site_dir}")
    for rel in rels:  # a symlink in the copy must not lead a write outside it
        contained(dest, rel)
    apply_unified_diff(plain_unified(diff), dest)
    return dest
