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
