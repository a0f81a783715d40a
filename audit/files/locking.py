"""Exclusive advisory locks that say who holds them.

Why: two runs writing one reports directory, updating one baseline or creating one evaluatio
venv must not interleave, so the second one waits (``flock``: released by the kernel when the
holder dies, even by SIGKILL, so no lock is ever left stale).  A wait that says nothing looks
like a hang; before blocking, the waiter names the holder: "waiting for the lock on DIR held
by pid N".  The pid is read from ``/proc/locks`` (Linux), not from a pid file that a killed
run would leave behind; elsewhere the message says "another process".
"""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path
from typing import Callable, Optional, Union


def _say(message: str) -> None:
    print(f"chrf-audit: {message}", file=sys.stderr, flush=True)


def holder(fd: int) -> Optional[int]:
    """The pid holding an flock on the file open as ``fd`` (None when unknown)."""
    st = os.fstat(fd)
    ident = f"{os.major(st.st_dev):02x}:{os.minor(st.st_dev):02x}:{st.st_ino}"
    try:
        with open("/proc/locks", encoding="ascii", errors="replace") as fh:
            lines = fh.read().splitlines()
    except OSError:
        return None
    for line in lines:
        parts = line.split()
        # "1: FLOCK  ADVISORY  WRITE 9481 fe:00:260072 0 EOF" ("->" marks a blocked waiter)
        if len(parts) >= 6 and parts[1] == "FLOCK" and parts[2] != "->" and parts[5] == ident:
            with contextlib.suppress(ValueError):
                return int(parts[4])
    return None


@contextlib.contextmanager
def locked(path: Union[str, Path], *, say: Callable[[str], None] = _say):
    """Hold an exclusive ``flock`` on ``path`` (a directory, or a lock file created when
    missing) for the block.  When another process holds it, ``say`` is told who before this
    one waits."""
    import fcntl

    path = Path(path)
    if path.is_dir():
        fd = os.open(path, os.O_RDONLY)
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            pid = holder(fd)
            say(f"waiting for the lock on {path} held by " + (f"pid {pid}" if pid else "another process"))
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock
