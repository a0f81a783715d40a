"""Frames from child processes, read and checked as data only.

The worker and external programs both speak JSON lines; ``read_frame`` reads until a
``take`` function finds one.  What the worker sends is validated field by field here
(``valid_result``, ``valid_description``): the implementation runs inside the worker and can
write anything to the protocol descriptor, so nothing received may be trusted, let alone
executed (issue 12: the frames used to be pickles).
"""

from __future__ import annotations

import json
import math
import os
import select
import time

from . import backends as B


class _Sentinel:
    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return self.name


#: What ``read_frame`` returns instead of a frame (objects, so no frame can be mistaken for them).
TIMEOUT = _Sentinel("TIMEOUT")
EOF = _Sentinel("EOF")


#: the longest single select() wait (seconds); a longer timeout is waited in slices
MAX_WAIT = 3600.0


def read_frame(fd: int, buf: bytes, take, timeout: float):
    """Read from ``fd`` until ``take(buf)`` finds a frame; return ``(frame, rest of buf)``,
    or ``(TIMEOUT, buf)`` / ``(EOF, buf)``.  Shared by the worker pipe and external
    programs (both JSON lines): only ``take`` differs."""
    deadline = time.monotonic() + timeout
    while True:
        got = take(buf)
        if got is not None:
            return got
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return TIMEOUT, buf
        # select() refuses a timeout past what the C type holds (OverflowError for 1e10 s):
        # wait in slices; the deadline decides
        ready, _, _ = select.select([fd], [], [], min(remaining, MAX_WAIT))
        if not ready:
            continue
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return EOF, buf
        buf += chunk


#: An answer line longer than this is not an answer (results are a few hundred bytes): the
#: worker's frames and external programs' lines alike.
MAX_FRAME = 1 << 20


class Overlong(str):
    """The first bytes of a line longer than MAX_FRAME (what a program flooding its output
    without a newline gets as its answer): never parsed, always an ``invalid`` answer, and
    the rest of the flood is dropped with the process (the caller restarts it)."""

    why = f"an answer line longer than {MAX_FRAME} bytes"


def take_line(buf: bytes):
    """The next non-blank line (decoded) and the rest, or None when no complete line is
    buffered: the framing of external programs, whose lines ``external._answer`` parses.
    A line that grows past MAX_FRAME is cut there and given as ``Overlong``, so a flood
    costs at most MAX_FRAME bytes of memory, not whatever it writes before the timeout."""
    while True:
        nl = buf.find(b"\n")
        if nl < 0:
            if len(buf) > MAX_FRAME:
                return Overlong(buf[:200].decode("utf-8", "replace")), b""
            return None
        line, buf = buf[:nl], buf[nl + 1 :]
        if len(line) > MAX_FRAME:
            return Overlong(line[:200].decode("utf-8", "replace")), buf
        if line.strip():
            return line.decode("utf-8", "replace"), buf


def excerpt(text, limit: int = 80) -> str:
    """What a program wrote instead of an answer, for a finding's detail: its first ``limit``
    characters, quoted, with control characters (ESC, BEL, newlines) escaped."""
    text = str(text)
    return repr(text[:limit]) + ("..." if len(text) > limit else "")


class BadFrame:
    """A line from the worker that is not a well-formed frame (what the implementation wrote
    to the protocol descriptor, or a desynchronized stream): data, never executed."""

    def __init__(self, raw: bytes, why: str):
        decoded = raw[:400].decode("utf-8", "replace")
        self.text = B.one_line(decoded, 200)
        self.excerpt = excerpt(decoded)
        self.why = why

    def __repr__(self) -> str:
        return f"<bad frame: {self.why}: {self.text!r}>"


def _take_frame(buf: bytes):
    """The next JSON-line frame from the worker (a non-empty list whose first element is a
    string), a BadFrame, or None when no complete line is buffered."""
    while True:
        nl = buf.find(b"\n")
        if nl < 0:
            if len(buf) > MAX_FRAME:
                return BadFrame(buf[:200], f"an answer line longer than {MAX_FRAME} bytes"), b""
            return None
        line, buf = buf[:nl], buf[nl + 1 :]
        if line.strip():
            break
    if len(line) > MAX_FRAME:
        return BadFrame(line[:200], f"an answer line longer than {MAX_FRAME} bytes"), buf
    try:
        obj = json.loads(line)
    except (ValueError, RecursionError):
        return BadFrame(line, "the worker's answer is not JSON"), buf
    if not (isinstance(obj, list) and obj and isinstance(obj[0], str)):
        return BadFrame(line, "the worker's answer is not a frame"), buf
    return obj, buf


def _str(x) -> bool:
    return isinstance(x, str)


def valid_result(r):
    """A result as ``backends.Backend.call`` makes it, checked field by field, as a tuple;
    None when it is anything else."""
    if not isinstance(r, list) or not r:
        return None
    kind = r[0]
    if kind == "value" and len(r) in (3, 4) and _str(r[2]) and isinstance(r[1], (int, float)) \
            and not isinstance(r[1], bool) and math.isfinite(r[1]) and (len(r) == 3 or (_str(r[3]) and r[3])):
        return ("value", float(r[1]), r[2]) + tuple(B.one_line(x, 200) for x in r[3:])
    if kind == "invalid" and len(r) == 3 and (r[1] is None or _str(r[1])) and _str(r[2]):
        return ("invalid", r[1], r[2])
    if kind == "exception" and len(r) == 2 and _str(r[1]):
        return ("exception", r[1])
    return None


def valid_description(d):
    """A backend description (``{"version": str|None, "sources": {key: [module, qualname,
    file|None, line|None]}}``) with tuples for the sources; None when malformed."""
    if not isinstance(d, dict) or not (d.get("version") is None or _str(d.get("version"))):
        return None
    sources = d.get("sources") or {}
    if not isinstance(sources, dict):
        return None
    out = {}
    for key, loc in sources.items():
        if not (isinstance(loc, list) and len(loc) == 4 and _str(loc[0]) and _str(loc[1])
                and (loc[2] is None or _str(loc[2]))
                and (loc[3] is None or (isinstance(loc[3], int) and not isinstance(loc[3], bool)))):
            return None
        out[key] = tuple(loc)
    return {"version": d.get("version"), "sources": out}


def _load_answer(frame):
    """("ok", description) | ("error", message) from a load answer, else None."""
    if isinstance(frame, list) and len(frame) == 2:
        if frame[0] == "ok":
            desc = valid_description(frame[1])
            return ("ok", desc) if desc is not None else None
        if frame[0] == "error" and _str(frame[1]):
            return ("error", frame[1])
    return None
