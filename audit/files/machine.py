"""The paths of the machine a run happens on, kept out of what a report says.

Reports are committed and read elsewhere: "python: No module named pytest" means the same on
any machine, "/home/me/src/chrf-audit/.venv/bin/python: No module named pytest" tells where
someone's checkout is and makes the report's bytes depend on the machine.  ``hide`` replaces
the paths a message of a child process or of the operating system can hold (a temporary
directory chrf-audit made, whose name is random; the interpreter, its virtual environment and
installation, the temporary directory, the current and the home directory) by short names, the
longest path first (a venv inside the home directory is named as the venv)."""

from __future__ import annotations

import os
import re
import sys
import tempfile


def places() -> list[tuple[str, str]]:
    """(path, the name that replaces it), longest path first; each path also as resolved."""
    named = [(sys.executable, "python"), (sys.prefix, "<venv>"), (sys.base_prefix, "<python>"),
             (tempfile.gettempdir(), "<tmp>"), (os.getcwd(), "."), (os.path.expanduser("~"), "~")]
    out = {}
    for path, name in named:
        for p in (path, os.path.realpath(path)):
            if p and len(p.rstrip("/")) > 1:
                out.setdefault(p.rstrip("/"), name)
    return sorted(out.items(), key=lambda item: -len(item[0]))


def hide(text: str) -> str:
    """``text`` with every path of this machine (``places``) replaced by its short name, and a
    temporary directory of chrf-audit's (``chrf-audit-verify-k3j_x9ab``) by "<temporary directory>"."""
    for tmp in dict.fromkeys((tempfile.gettempdir(), os.path.realpath(tempfile.gettempdir()))):
        text = re.sub(re.escape(tmp.rstrip("/")) + r"/chrf-audit-[A-Za-z0-9_.-]*", "<temporary directory>", text)
    for path, name in places():
        text = text.replace(path, name)
    return text
