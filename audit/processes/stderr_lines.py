"""What a failed child said on stderr, in one line that keeps the informative part.

Why: error messages name the reason a program, a worker or pip failed, but stderr often ends
in noise: Node.js ends every crash with "Node.js v20.20.2" after the stack, pip with a hint
about upgrading.  The last line alone loses "Error: Cannot find module ...".  So the line
kept is the last *error line* (not indented, not a stack frame, naming an error, exception,
"fatal" or "panic"), followed by the last line when that is another one.
"""

from __future__ import annotations

import re

_ERROR = re.compile(r"error|exception|fatal|panic|traceback \(most recent|cannot|not found|no such",
                    re.IGNORECASE)
_FRAME = re.compile(r"^(at |File \"|Traceback \(most recent call last\))")
#: how much of the end of stderr is looked at (a Node.js stack is about 1 kB)
WINDOW = 16000


def one_line(text: str, limit: int) -> str:
    """Whitespace runs (newlines included) as one space; at most ``limit`` characters."""
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def informative(text: str, limit: int = 300) -> str:
    """The last error line of ``text`` and, when different, its last line, as one line."""
    lines = [ln.rstrip() for ln in text.splitlines() if ln.strip()]
    if not lines:
        return ""
    last = lines[-1].strip()
    errors = [ln for ln in lines if not ln[:1].isspace() and not _FRAME.match(ln) and _ERROR.search(ln)]
    if not errors or errors[-1].strip() == last:
        return one_line(last, limit)
    return one_line(f"{errors[-1].strip()} ... {last}", limit)


def file_tail(f, limit: int = 300) -> str:
    """``informative`` of the end of a spooled stderr file (binary, left at its end)."""
    import os

    if f is None:
        return ""
    try:
        f.flush()
        f.seek(0, os.SEEK_END)
        size = f.tell()
        f.seek(max(0, size - WINDOW))
        text = f.read().decode("utf-8", "replace")
        f.seek(0, os.SEEK_END)
    except (OSError, ValueError):
        return ""
    return informative(text, limit)


class StderrTail:
    """A child's stderr, read from a pipe: only its last ``WINDOW`` bytes are kept, in memory.

    Why not a file: an implementation printing on every call filled the worker's spooled
    stderr file to 504 MiB in 10 examples, and with the temporary directory full, a correct
    implementation's prints failed (ENOSPC) and became ``exception`` findings (issue 29).
    A pipe costs no disk and never fails a write while someone reads it: a daemon thread
    per child drains it; ``text()`` first takes whatever is already in the pipe, so the
    last words of a child that just died are there."""

    def __init__(self, window: int = WINDOW):
        import threading

        self.window = window
        self.lock = threading.Lock()
        self.buf = bytearray()
        self.pipes: list = []  # each child's pipe: {"fd", "open", "stop"}

    def pipe(self) -> int:
        """A new pipe for the next child: its write end (the caller closes it once the child
        has it); a thread drains the read end until every writer is gone."""
        import os
        import threading

        r, w = os.pipe()
        pipe = {"fd": r, "open": True, "stop": False}
        with self.lock:
            self.pipes = [p for p in self.pipes if p["open"]] + [pipe]
        threading.Thread(target=self._drain, args=(pipe,), daemon=True).start()
        return w

    def _drain(self, pipe: dict) -> None:
        import select

        while pipe["open"] and not pipe["stop"]:
            try:
                ready, _, _ = select.select([pipe["fd"]], [], [], 0.5)
            except (OSError, ValueError):
                break
            if ready:
                self._read(pipe)
        with self.lock:
            self._close(pipe)

    def _read(self, pipe: dict) -> None:
        """Read what is there, at most 4 MiB (a flood does not hold the lock for ever)."""
        import os
        import select

        with self.lock:
            for _ in range(64):
                if not pipe["open"] or not select.select([pipe["fd"]], [], [], 0)[0]:
                    return
                try:
                    chunk = os.read(pipe["fd"], 1 << 16)
                except OSError:
                    chunk = b""
                if not chunk:  # every writer is gone
                    self._close(pipe)
                    return
                self.buf += chunk
                del self.buf[:-self.window]

    def _close(self, pipe: dict) -> None:
        import os

        if pipe["open"]:
            pipe["open"] = False
            try:
                os.close(pipe["fd"])
            except OSError:
                pass

    def text(self) -> str:
        for pipe in list(self.pipes):
            self._read(pipe)
        with self.lock:
            return bytes(self.buf).decode("utf-8", "replace")

    def tail(self, limit: int = 300) -> str:
        """``informative`` of the end of what the children said."""
        return informative(self.text(), limit)

    def close(self) -> None:
        """Stop reading: each thread closes its pipe within half a second."""
        for pipe in list(self.pipes):
            pipe["stop"] = True
