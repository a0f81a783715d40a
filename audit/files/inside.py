"""Files written, and removed, strictly inside a directory: no symbolic link followed on the way.

Why: a reports directory is shared, committed and sometimes written by others (a checkout, a
CI cache, ``reports-dir: .`` in the Action).  A link planted in it -- ``reports/issues ->
../elsewhere``, ``reports/charts -> /home/user``, ``reports/nltk.md -> ~/.bashrc`` -- made a
run write its files wherever the link pointed.  What a user expects of "write the reports into
DIR" is that nothing outside DIR changes, so chrf-audit follows no link inside it and replaces
none: ``problem`` names the first link (or a file where a directory is needed, or a directory
where a file goes) on a path before anything is written, and the run stops with that one
line; the user removes the link (or points ``--reports-dir`` at the real directory: the
directory itself is the user's choice, and a link there is followed).

``write`` and ``unlink`` walk the path with ``O_NOFOLLOW`` directory descriptors, so a link
swapped in between the check and the write fails the write (``ELOOP``) instead of redirecting
it (races beyond that are out of scope); the temporary file of an atomic write is created
with ``O_EXCL | O_NOFOLLOW`` beside its target and renamed over it, so a reader never sees half
a file, and a link in the target's place is replaced, never written through.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from pathlib import Path
from typing import Optional, Union

from ..errors import WriteError
from .names import NAME_MAX

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)


def problem(root: Union[str, Path], rel: str) -> Optional[str]:
    """Why ``rel`` (a relative path, ``/``-separated) cannot be written inside ``root``
    without following a link, or None: a component that is a symbolic link, a file where a
    directory is needed, a directory where the file goes, a name too long for a file system.
    What does not exist yet is fine (it is created)."""
    parts = rel.split("/")
    path = Path(root)
    for i, part in enumerate(parts):
        here = "/".join(parts[:i + 1])
        if len(os.fsencode(part)) > NAME_MAX:
            return f"{here[:60]}...: a file name longer than {NAME_MAX} bytes"
        path = path / part
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            return None
        except OSError as exc:
            return f"{here}: {exc.strerror or type(exc).__name__}"
        if stat.S_ISLNK(st.st_mode):
            try:
                target = os.readlink(path)
            except OSError:
                target = "?"
            return (f"{here} is a symbolic link (to {target!r}); chrf-audit writes only inside the reports "
                    f"directory and follows or replaces no link there: remove it")
        last = i == len(parts) - 1
        if not last and not stat.S_ISDIR(st.st_mode):
            return f"{here} is not a directory"
        if last and stat.S_ISDIR(st.st_mode):
            return f"{here} is a directory"
    return None


@contextlib.contextmanager
def _directory(root: Union[str, Path], parts: list[str], create: bool):
    """A descriptor of ``root/parts...`` reached through no link (``create``: make what is
    missing)."""
    fd = os.open(root, os.O_RDONLY | _DIRECTORY | _CLOEXEC)  # the directory itself: the user's choice
    try:
        for part in parts:
            if create:
                with contextlib.suppress(FileExistsError):
                    os.mkdir(part, 0o777, dir_fd=fd)
            nxt = os.open(part, os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC, dir_fd=fd)
            os.close(fd)
            fd = nxt
        yield fd
    finally:
        os.close(fd)


def write(root: Union[str, Path], rel: str, data: bytes) -> Path:
    """``data`` atomically into ``root/rel`` (directories made as needed), through no link; a
    failed write (a full disk) is a ``WriteError`` naming ``root/rel``."""
    try:
        return _write(root, rel, data)
    except OSError as exc:
        raise WriteError(Path(root, rel), exc) from None


def _write(root: Union[str, Path], rel: str, data: bytes) -> Path:
    *dirs, name = rel.split("/")
    with _directory(root, dirs, create=True) as fd:
        while True:
            tmp = f".chrf-audit-{secrets.token_hex(8)}.tmp"
            try:
                out = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC, 0o644, dir_fd=fd)
                break
            except FileExistsError:  # pragma: no cover - 64 random bits
                continue
        try:
            with os.fdopen(out, "wb") as fh:
                fh.write(data)
                os.fchmod(fh.fileno(), 0o644)
            os.replace(tmp, name, src_dir_fd=fd, dst_dir_fd=fd)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp, dir_fd=fd)
            raise
    return Path(root, rel)


def unlink(root: Union[str, Path], rel: str) -> None:
    """Remove ``root/rel`` following no link on the way (a directory swapped for a link after
    the check cannot redirect the removal); nothing happens when it cannot be reached."""
    *dirs, name = rel.split("/")
    with contextlib.suppress(OSError), _directory(root, dirs, create=False) as fd:
        os.unlink(name, dir_fd=fd)
