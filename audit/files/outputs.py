"""The one writer: output paths checked before any work, every rendered file written here.

The renderers (``audit.render``) return ``{relative path: bytes}`` and read nothing of the
environment; this module finds out the facts they take (the terminal's width and colour) and
puts their bytes where they go: a reports directory as one consistent set
(``write_reports``), a single file (``--json``, ``--junit``), standard output (the terminal
table) and the GitHub job summary ($GITHUB_STEP_SUMMARY, appended).

Why: an audit can take minutes; a report path that turns out to be a directory, a file where a
directory is needed, or an unwritable location must fail *before* the audit (one line, exit 2),
not lose its results in a traceback afterwards.  The checks probe for real (create the
directories, create and remove a temporary file) instead of trusting permission bits, which
say nothing for root or on read-only mounts.

Every report file is written to a temporary file in its own directory and renamed into place
(``atomic_write``), so a reader never sees half a file.  A reports directory is written as one
set under its lock (``audit.files.report_set``).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Optional, Union

from ..errors import UsageError, WriteError

def _why(exc: OSError) -> str:
    return exc.strerror or type(exc).__name__


def _probe(directory: Path, what: str) -> None:
    try:
        fd, name = tempfile.mkstemp(prefix=".chrf-audit-probe-", dir=directory)
        os.close(fd)
        os.unlink(name)
    except OSError as exc:
        raise UsageError(f"{what}: cannot write into {directory}: {_why(exc)}") from None


def _make_dir(directory: Path, what: str) -> None:
    for anc in [directory, *directory.parents]:
        if anc.exists():
            if not anc.is_dir():
                raise UsageError(f"{what}: {anc} is not a directory")
            break
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"{what}: cannot create {directory}: {_why(exc)}") from None


def check_file(path: Optional[Union[str, Path]], flag: str, *, create_parents: bool = True) -> None:
    """``path`` will be written as a file: it must not be a directory and its directory must
    be (made) writable.  None: nothing to check."""
    if path is None:
        return
    path = Path(path)
    what = f"{flag} {path}"
    if path.is_dir():
        raise UsageError(f"{what}: is a directory (expected a file path)")
    if path.exists() and not path.is_file():
        raise UsageError(f"{what}: is not a regular file")
    parent = path.parent
    if create_parents:
        _make_dir(parent, what)
    elif not parent.is_dir():
        raise UsageError(f"{what}: no such directory {parent}")
    _probe(parent, what)


def check_dir(path: Optional[Union[str, Path]], flag: str) -> None:
    """``path`` will hold a set of report files: it must be (made) a writable directory."""
    if path is None:
        return
    path = Path(path)
    what = f"{flag} {path}"
    if path.exists() and not path.is_dir():
        raise UsageError(f"{what}: is a file (expected a directory)")
    _make_dir(path, what)
    _probe(path, what)


def check_github_summary() -> None:
    """$GITHUB_STEP_SUMMARY, when set, must name a writable file in an existing directory
    (GitHub creates it; a wrong value is a configuration error)."""
    target = os.environ.get("GITHUB_STEP_SUMMARY")
    if target:
        check_file(target, "GITHUB_STEP_SUMMARY", create_parents=False)


def check_report_outputs(args, default_dir=None) -> None:
    """Everything ``write_outputs`` of run/check will write (before the audit starts)."""
    check_file(getattr(args, "json", None), "--json")
    check_file(getattr(args, "junit", None), "--junit")
    check_dir(getattr(args, "markdown", None), "--markdown")
    check_dir(getattr(args, "reports_dir", None) or default_dir, "--reports-dir")
    check_github_summary()


def atomic_write(path: Union[str, Path], data: Union[str, bytes]) -> Path:
    """Write ``data`` to ``path`` via a temporary file in the same directory and a rename.

    Text is UTF-8.  The renderers escape what is not printable (``report._text``) and JSON is
    ASCII (``jsontext``), so a lone surrogate never reaches this point; should one slip
    through a future renderer, it is written as its ``\\udXXX`` escape, never lost in a
    UnicodeEncodeError after the audit."""
    path = Path(path)
    raw = data.encode("utf-8", "backslashreplace") if isinstance(data, str) else data
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as exc:
        raise WriteError(path, exc) from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(raw)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):  # a full disk: the file it was writing, named (WriteError)
            raise WriteError(path, exc) from None
        raise
    return path


# -- the facts the renderers take, and the destinations -------------------------------------
def terminal_facts(stream=None) -> tuple[int, bool]:
    """(width, colour) of the terminal the table is printed on: its width when it is one (or
    $COLUMNS), else 100; colour only on a terminal and without NO_COLOR."""
    stream = stream or sys.stdout
    tty = hasattr(stream, "isatty") and stream.isatty()
    if tty or "COLUMNS" in os.environ:
        width = shutil.get_terminal_size((100, 24)).columns
    else:
        width = 100
    return width, tty and "NO_COLOR" not in os.environ


def step_summary_path() -> Optional[str]:
    """$GITHUB_STEP_SUMMARY (checked before the audit, ``check_github_summary``), or None."""
    return os.environ.get("GITHUB_STEP_SUMMARY") or None


def print_bytes(data: bytes, stream=None) -> None:
    """Rendered text to standard output (the terminal table)."""
    stream = stream or sys.stdout
    stream.flush()
    out = getattr(stream, "buffer", None)
    if out is not None:
        out.write(data)
        out.flush()
    else:  # a text stream (pytest's capture, StringIO)
        stream.write(data.decode("utf-8", "backslashreplace"))


#: standard output was closed when chrf-audit started (``guard_std_streams``)
_stdout_closed = False


def guard_std_streams() -> None:
    """Standard input, output or error closed at start (``chrf-audit run >&-``): /dev/null takes
    its descriptor, so that no file chrf-audit opens gets descriptor 0, 1 or 2 (a child process
    would inherit it as its own stdin, stdout or stderr and write into a report or lock).  A
    closed stdout is remembered: ``to_stdout`` says so, once every file is written."""
    global _stdout_closed
    for fd, mode in ((0, os.O_RDONLY), (1, os.O_WRONLY), (2, os.O_WRONLY)):
        try:
            os.fstat(fd)
        except OSError:
            new = os.open(os.devnull, mode)
            if new != fd:  # pragma: no cover - a lower descriptor was closed: it took that one
                os.dup2(new, fd)
                os.close(new)
            if fd == 1:
                _stdout_closed = True


@contextlib.contextmanager
def stdout_last():
    """A block writing a command's last output to standard output (the findings table, the
    gate's verdict, a rich table), entered once every file is written: a closed, full
    (``/dev/full``) or broken (``| head``) standard output is one ``UsageError`` line then,
    never a traceback, and everything else is on disk.  After a failure the descriptor is
    pointed at /dev/null, so that the interpreter's last flush does not fail again."""
    if _stdout_closed or sys.stdout is None:
        why = "it is closed"
    else:
        try:
            yield
            sys.stdout.flush()
            return
        except OSError as exc:
            why = _why(exc)
        except ValueError as exc:  # the stream was closed: "I/O operation on closed file"
            if "closed file" not in str(exc):
                raise
            why = "it is closed"
    if sys.stdout is None or sys.stdout is sys.__stdout__:
        with contextlib.suppress(OSError):
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, 1)
            os.close(null)
    raise UsageError(f"cannot write to standard output: {why} (every file was written)")


def to_stdout(data: bytes) -> None:
    """Rendered text as the command's last output (``stdout_last``)."""
    with stdout_last():
        print_bytes(data)


def append_file(path: Union[str, Path], data: bytes) -> Path:
    """Append to a file another program owns (the GitHub job summary)."""
    p = Path(path)
    try:
        with open(p, "ab") as fh:
            fh.write(data)
    except OSError as exc:
        raise WriteError(p, exc) from None
    return p
