"""Releases that cannot be used with an interpreter, remembered: ``<envs>/<name>.skipped``.

Why: ``versions nltk all`` tried each release nltk 2.x (Python 2 sources) with every
interpreter of the machine in every run, a pip download and a failed build each time.  A
release that cannot be installed or imported with Python X.Y for a lasting reason (pip
refuses the Python version or the build fails, the import raises) is tried once per Python
version and remembered as skipped, with the reason, for the same package index settings
(``--index-url``, ``--find-links``, the ``PIP_*`` and ``UV_*`` variables, kept as a hash) and
the same chrf-audit version.  A failure that may pass (a timeout, the network, the disk, memory,
permissions: ``lasting`` is False) is never remembered: a cache only spares work, it decides
nothing another attempt could decide otherwise.  Removing the file (or the ``envs``
directory) tries the release again.

The file is read like every cached file: a regular file, not a link, at most ``MAX_BYTES``,
JSON of the expected shape; anything else is no entry.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
from pathlib import Path
from typing import Optional

from .. import __version__
from ..files.outputs import atomic_write

SUFFIX = ".skipped"
MAX_BYTES = 64 * 1024
#: what says a failure may pass on another attempt (never remembered)
_PASSING = re.compile(r"no end within|no space left|disk quota|read-only file system|permission denied|"
                      r"connection|timed? ?out|temporar|could not fetch|network|unreachable|name resolution|"
                      r"resolve|ssl|proxy|\(from versions: none\)|memoryerror|cannot allocate|too many open files|"
                      r"killed|signal", re.IGNORECASE)


def lasting(said: str) -> bool:
    """Whether a failure that said ``said`` (everything it printed) would fail again."""
    return not _PASSING.search(said or "")


def key(index_settings: dict) -> str:
    """The hash of what decides whether a release installs, besides the release and Python."""
    environment = sorted((k, v) for k, v in os.environ.items() if k.startswith(("PIP_", "UV_")))
    text = json.dumps({"index": index_settings, "environment": environment, "chrf-audit": __version__},
                      sort_keys=True)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _read(path: Path) -> Optional[bytes]:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_BYTES:
            return None
        return os.read(fd, MAX_BYTES + 1)
    except OSError:
        return None
    finally:
        os.close(fd)


def recall(root: Path, name: str, settings_key: str) -> Optional[str]:
    """The remembered reason why environment ``name`` cannot be made, for these settings."""
    data = _read(root / f"{name}{SUFFIX}")
    try:
        entry = json.loads(data.decode("utf-8")) if data is not None and len(data) <= MAX_BYTES else None
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None
    if not isinstance(entry, dict) or entry.get("key") != settings_key:
        return None
    reason = entry.get("reason")
    return reason if isinstance(reason, str) and reason.strip() and len(reason) <= 2000 else None


def keep(root: Path, name: str, settings_key: str, reason: str) -> None:
    """Remember ``reason`` (best effort: the cache only spares work)."""
    try:
        atomic_write(root / f"{name}{SUFFIX}", json.dumps({"key": settings_key, "reason": reason[:2000]}) + "\n")
    except OSError:
        pass
