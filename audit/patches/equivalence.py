"""The check of what an opt-in patch's keywords are together: a program from the library's record
(``records.IssueNote.check``: the patched library against the implementation of the definition
the keywords are said to give, on random inputs) run on the patched copy, its printed lines
recorded as they are.  The issue prints the program and its output, and the claim holds only
when the output says it does (``holds``: a line fragment the record names)."""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Optional

from ..processes import owner as procs
from ..processes.stderr_lines import informative

#: seconds before the check counts as hung (a few hundred random corpora take seconds)
TIMEOUT = 600.0
#: the most lines of output kept
LINES = 20


def run_check(program: str, after_root: Path, holds: str) -> dict:
    """``program`` run with the patched copy first on the path: ``{"output": [lines], "holds":
    bool, "error": None | one line}``."""
    from .jobs import worker_env

    with tempfile.TemporaryDirectory(prefix="chrf-audit-check-") as tmp:
        proc = procs.spawn([sys.executable, "-c", program], cwd=tmp, stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, errors="replace",
                           env=worker_env(after_root, with_cwd=False))
        try:
            out, err = proc.communicate(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            return {"output": [], "holds": False, "error": f"took more than {TIMEOUT:g} s"}
        finally:
            procs.stop(proc)
    lines = [line.rstrip() for line in out.splitlines() if line.strip()][:LINES]
    if proc.returncode != 0:
        return {"output": lines, "holds": False, "error": informative(err) or f"exit status {proc.returncode}"}
    return {"output": lines, "holds": any(holds in line for line in lines), "error": None}


def problem(check: Optional[dict]) -> Optional[str]:
    """Why the check keeps a patch from being verified (None: it holds, or there is none)."""
    if check is None or check["holds"]:
        return None
    if check["error"]:
        return f"the check of the keywords together could not run ({check['error']})"
    return "the check of the keywords together does not find the definition they are said to give"
