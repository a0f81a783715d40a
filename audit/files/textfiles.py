"""Reading segment files (one segment per line, UTF-8) with errors a user can act on.

Every problem is an ``audit.errors.UsageError`` whose message names the file (and the line
where there is one), so the CLI prints one line and exits 2.
"""

from __future__ import annotations

import errno
import os
import stat
from typing import Mapping, Optional, Sequence

from ..errors import UsageError


def _split_lines(data: bytes) -> list[bytes]:
    """Split on the line terminators "\\n", "\\r\\n" (and a lone "\\r" is kept as text: only
    "\\n" ends a line, so a stray CR inside a segment is not a segment break).  The final
    terminator does not start an empty segment."""
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    return [ln[:-1] if ln.endswith(b"\r") else ln for ln in lines]


_KINDS = ((stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def read_bytes(path, kind: str, *, follow_link: bool = True, most: Optional[int] = None) -> bytes:
    """A user-named file's bytes, or one ``UsageError`` line saying why not (``kind`` names
    what the file should have been, e.g. "a text file", "a diff").

    Only a regular file is read (a symbolic link to one is fine, unless ``follow_link`` is
    False: then the file is opened with ``O_NOFOLLOW`` and a link is refused): a FIFO would
    block the read for ever, ``/dev/zero`` would grow until MemoryError.  It is opened without
    blocking (a FIFO opens without waiting for a writer) and refused by what ``fstat`` says;
    at most ``most`` bytes, by default the file-size limit (``audit.settings.limits``,
    CHRF_AUDIT_MAX_FILE_BYTES), are read."""
    from ..settings.limits import ENV, limit

    name = os.fspath(path)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | (0 if follow_link else getattr(os, "O_NOFOLLOW", 0))
    try:
        fd = os.open(name, flags)
    except FileNotFoundError:
        raise UsageError(f"{name}: no such file") from None
    except IsADirectoryError:
        raise UsageError(f"{name}: is a directory, not {kind}") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP and not follow_link:
            raise UsageError(f"{name}: is a symbolic link, not {kind} (no link is followed here)") from None
        raise UsageError(f"{name}: cannot read: {exc.strerror or exc}") from None
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise UsageError(f"{name}: is a directory, not {kind}")
        if not stat.S_ISREG(st.st_mode):
            what = next((w for test, w in _KINDS if test(st.st_mode)), "not a regular file")
            raise UsageError(f"{name}: is {what}, not {kind} (only regular files are read)")
        where = ENV["file_bytes"] if most is None else "the most it may hold"
        most = int(limit("file_bytes")) if most is None else most
        if st.st_size > most:
            raise UsageError(f"{name}: {st.st_size} bytes, more than the limit of {most} ({where})")
        with os.fdopen(os.dup(fd), "rb") as fh:
            data = fh.read(most + 1)
        if len(data) > most:  # it grew while being read
            raise UsageError(f"{name}: more than the limit of {most} bytes ({where})")
        return data
    except OSError as exc:
        raise UsageError(f"{name}: cannot read: {exc.strerror or exc}") from None
    finally:
        os.close(fd)


def read_text(path, kind: str) -> str:
    """A user-named file decoded as UTF-8 (a leading byte order mark kept), or one
    ``UsageError`` line naming the file and the line of the first invalid byte."""
    data = read_bytes(path, kind)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise UsageError(f"{os.fspath(path)} line {line}: invalid UTF-8 (byte 0x{data[exc.start]:02x})") from None


def read_json(path, kind: str):
    """A user-named JSON file (``kind`` as in ``read_bytes``), or one ``UsageError`` line."""
    import json

    text = read_text(path, kind)
    try:
        return json.loads(text)
    except ValueError as exc:
        raise UsageError(f"{os.fspath(path)}: invalid JSON ({exc})") from None
    except RecursionError:
        raise UsageError(f"{os.fspath(path)}: invalid JSON (nested too deeply)") from None


def read_segments(path: str | os.PathLike) -> list[str]:
    """The segments of a UTF-8 text file, one per line, with only the line terminator
    ("\\n" or "\\r\\n") removed: leading/trailing spaces, tabs and other whitespace are kept.

    A UTF-8 byte order mark at the start of the file is dropped.  A line longer than the
    limit (``audit.settings.limits``, default 100000 characters) is refused: it would make the n-gram
    statistics of one segment, not the file, decide the memory used.  Raises ``UsageError`` for a
    missing or unreadable file and for invalid UTF-8, naming the file, line and column, e.g.
    ``sys.txt line 17: invalid UTF-8 (byte 0xff at column 4)`` (columns count bytes, from 1).
    """
    name = os.fspath(path)
    data = read_bytes(name, "a text file")
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    segments: list[str] = []
    from ..settings.limits import check_line, limit

    longest = limit("line_length")
    for lineno, raw in enumerate(_split_lines(data), start=1):
        if len(raw) > longest:  # bytes >= characters: decode only what may fit
            check_line(name, lineno, len(raw.decode("utf-8", "replace")))
        try:
            segments.append(raw.decode("utf-8"))
        except UnicodeDecodeError as exc:
            bad = raw[exc.start]
            raise UsageError(
                f"{name} line {lineno}: invalid UTF-8 (byte 0x{bad:02x} at column {exc.start + 1})"
            ) from None
    return segments


def check_same_length(named: Mapping[str, Sequence[str]]) -> int:
    """Check that every named list of segments has the same length; return that length.

    ``named`` maps a file name to its segments; the first entry is the yardstick.  Raises
    ``UsageError`` naming both files and both counts, e.g.
    ``sys.txt has 3003 lines but ref.txt has 3004``; an empty file is an error too."""
    items = list(named.items())
    if not items:
        raise UsageError("no input files")
    first_name, first = items[0]
    for name, segs in items:
        if len(segs) == 0:
            raise UsageError(f"{name} is empty: at least one segment (line) is needed")
    for name, segs in items[1:]:
        if len(segs) != len(first):
            raise UsageError(
                f"{name} has {_lines(len(segs))} but {first_name} has {_lines(len(first))}: "
                "every file must have one line per segment"
            )
    return len(first)


def _lines(n: int) -> str:
    return f"{n} line" if n == 1 else f"{n} lines"
