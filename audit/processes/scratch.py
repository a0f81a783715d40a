"""Temporary directories that a later run removes when the run that made them was killed.

Why: Hypothesis caches files under its home directory, which chrf-audit points at a
temporary directory (``chrf-audit-hypothesis-*``) removed at exit; a run ended by SIGKILL (no
handler, no atexit) left it behind, one per killed run.  Each such directory is held by an
``flock`` of the process that made it, for as long as that process (or a child it forked)
lives; ``make`` first removes the directories of the same prefix whose lock nobody holds any
more (their owner is dead), so a killed run's leftovers go with the next run.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import tempfile
from pathlib import Path

_held: dict[str, int] = {}  # path -> the descriptor holding its lock


def sweep(prefix: str, parent: str | None = None) -> list[str]:
    """Remove the directories ``<tmp>/<prefix>*`` of this user that no live process holds."""
    parent = parent or tempfile.gettempdir()
    removed = []
    try:
        names = os.listdir(parent)
    except OSError:
        return removed
    for name in names:
        path = os.path.join(parent, name)
        if not name.startswith(prefix) or path in _held:
            continue
        try:
            st = os.lstat(path)
            if not os.path.isdir(path) or os.path.islink(path) or st.st_uid != os.getuid():
                continue
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0))
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)  # held: its run is alive
            continue
        try:
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
        finally:
            os.close(fd)
    return removed


def make(prefix: str) -> str:
    """A new temporary directory ``<tmp>/<prefix>XXXX``, held by this process until
    ``release``; stale ones of the same prefix are removed first."""
    sweep(prefix)
    # made under a name no sweep looks at, locked, then renamed: another run's sweep never
    # sees it unlocked
    hidden = tempfile.mkdtemp(prefix=f".new-{prefix}")
    fd = os.open(hidden, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # new: nobody else holds it
    path = os.path.join(os.path.dirname(hidden), prefix + os.path.basename(hidden)[len(f".new-{prefix}"):])
    os.rename(hidden, path)
    _held[path] = fd
    return path


def release(path: str) -> None:
    """Remove a directory ``make`` gave and let go of its lock."""
    shutil.rmtree(path, ignore_errors=True)
    fd = _held.pop(path, None)
    if fd is not None:
        os.close(fd)


def held() -> list[Path]:
    return [Path(p) for p in _held]
