"""A library's own gates on a patched file: the formatter and linters its repository runs on a
change (``records.Gates``, the library's record), at the versions it pins.

Each file a patch changes is put, with its whole top-level package, into a scratch copy of the
repository's layout (``src/`` for torchmetrics) beside the configuration files the tools read;
each tool runs there as pre-commit runs it, in the mode that rewrites the file, and passes when
it exits 0 and leaves the file byte for byte as it was ("fails if any hooks performed a
change", as nltk's CI says).  A pattern gate (pre-commit's pygrep hooks) fails on a line that
matches.  The released file goes through the same gates (a gate it fails too is the
configuration's, not the patch's: the report says so).  Tools that cannot be installed make
every tool gate "not run", with the reason: such a patch is not checked, never verified.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Optional

from ..processes import owner as procs
from ..processes.stderr_lines import informative
from .gate_tools import ensure

#: seconds before a tool counts as hung (nothing waits longer)
TIMEOUT = 300.0


def _tool(argv: list[str], cwd: Path) -> tuple[int, str]:
    try:
        proc = procs.spawn(argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, errors="replace")
    except OSError as exc:  # the tool is not where its environment should have it
        return -1, f"cannot start {Path(argv[0]).name}: {exc.strerror or exc}"
    try:
        out, _ = proc.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return -1, f"took more than {TIMEOUT:g} s"
    finally:
        procs.stop(proc)
    return proc.returncode, out or ""


def _tree(gates, package_root: Path, top: str, scratch: Path) -> Path:
    """A copy of the repository's layout holding ``top`` from ``package_root`` and the
    configuration files; returns its root."""
    base = scratch / "repo"
    where = base / gates.layout if gates.layout else base
    where.mkdir(parents=True)
    shutil.copytree(package_root / top, where / top, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    for name, text in gates.config_files.items():
        (base / name).write_text(text, encoding="utf-8")
    return base


def _pattern(gate, text: str) -> dict:
    rx = re.compile(gate.pattern)
    hits = [n for n, line in enumerate(text.splitlines(), 1) if rx.search(line)]
    return {"gate": gate.name, "result": "failed" if hits else "passed",
            "detail": f"line {hits[0]} matches {gate.pattern!r}" if hits else None}


def _one(gate, tools: Optional[Path], why: Optional[str], base: Path, rel: str) -> dict:
    """One gate on ``base/rel``: {"gate", "result": passed | failed | not run, "detail"}."""
    path = base / rel
    if gate.pattern:
        return _pattern(gate, path.read_text(encoding="utf-8"))
    if tools is None:
        return {"gate": gate.name, "result": "not run", "detail": why}
    before = path.read_bytes()
    argv = [str(tools / gate.argv[0])] + [a.replace("{file}", rel) for a in gate.argv[1:]]
    rc, out = _tool(argv, base)
    after = path.read_bytes()
    path.write_bytes(before)  # the next gate sees the file as it came
    if rc == 0 and after == before:
        return {"gate": gate.name, "result": "passed", "detail": None}
    changed = after != before
    detail = (f"it rewrites {_lines_changed(before, after)} line(s)" if changed else
              informative(out) or f"exit status {rc}")
    return {"gate": gate.name, "result": "failed", "detail": detail}


def _lines_changed(before: bytes, after: bytes) -> int:
    """How many lines of the file the tool rewrites (or adds, when it only adds)."""
    import difflib

    a, b = before.decode("utf-8", "replace").splitlines(), after.decode("utf-8", "replace").splitlines()
    marks = [line[:1] for line in difflib.unified_diff(a, b, lineterm="", n=0)
             if line[:1] in "+-" and not line.startswith(("+++", "---"))]
    return max(marks.count("-"), marks.count("+"))


def run_gates(gates, site: Path, after_root: Path, rels: list[str]) -> Optional[dict]:
    """The library's gates on each patched file, after the patch and on the released file:
    ``{"where", "after": [{"gate", "result", "detail"}...], "before": [...], "not_run": [...]}``;
    None when the library has no gates record."""
    if gates is None or not rels:
        return None
    tools, why = (None, None)
    if any(not g.pattern for g in gates.gates):
        tools, why = ensure(gates.requirements())
    out: dict = {"where": gates.where, "before": [], "after": [],
                 "not_run": [f"{hook}: {reason}" for hook, reason in gates.not_run]}
    with tempfile.TemporaryDirectory(prefix="chrf-audit-gates-") as tmp:
        for side, root in (("before", Path(site)), ("after", Path(after_root))):
            for rel in rels:
                top = rel.split("/")[0]
                scratch = Path(tmp) / side / top
                base = _tree(gates, root, top, scratch)
                file = f"{gates.layout}/{rel}" if gates.layout else rel
                results = [_one(g, tools, why, base, file) for g in gates.gates]
                out[side] += [r for r in results if r not in out[side]]
    return out


def verdict_problem(result: Optional[dict]) -> Optional[str]:
    """Why the gates keep a patch from being verified (None: every gate passed):
    "not checked: <gates> (<why>)" or "fails <gate> (<what>)"."""
    if result is None:
        return "not checked: the library's gates (no record of them)"
    missing = [r for r in result["after"] if r["result"] == "not run"]
    if missing:
        return f"not checked: {', '.join(r['gate'] for r in missing)} ({missing[0]['detail']})"
    failed = [r for r in result["after"] if r["result"] == "failed"]
    if failed:
        also = {r["gate"] for r in result["before"] if r["result"] == "failed"}
        first = failed[0]
        return (f"the patched file fails {', '.join(r['gate'] for r in failed)} ({first['detail']}"
                + ("; the released file fails it too" if first["gate"] in also else "") + ")")
    return None
