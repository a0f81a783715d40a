"""One owner of every child process: outside ``audit/processes/`` no module of ``audit`` starts a
process itself (no ``subprocess.run``/``Popen``/``call``, no ``os.fork``/``spawn*``/``exec*``, no
``multiprocessing``/``ProcessPoolExecutor``).  Workers, external programs, patch jobs, the
``--jobs`` pool and helper commands all go through ``audit.processes.owner``, so SIGTERM, Ctrl-C
and a killed parent end all of them the same way."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

STARTERS = {("subprocess", n) for n in ("run", "Popen", "call", "check_call", "check_output", "getoutput",
                                         "getstatusoutput")} \
    | {("os", n) for n in ("fork", "forkpty", "system", "popen", "spawnv", "spawnl", "execv", "execvp",
                           "posix_spawn", "posix_spawnp")}
MODULES = {"multiprocessing", "concurrent.futures.process"}
#: Dask's cluster managers and workers start processes too: only ``audit.processes.cluster`` (whose
#: LocalCluster's workers are ``owner.spawn``'s) may build one
NAMES = {"ProcessPoolExecutor", "Popen", "get_context", "LocalCluster", "SpecCluster", "SubprocessCluster", "Nanny"}


def starts(source: str) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and isinstance(node.func.value, ast.Name) and (node.func.value.id, node.func.attr) in STARTERS:
            found.append(f"{node.func.value.id}.{node.func.attr}")
        elif isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name.split(".")[0] == "multiprocessing"]
        elif isinstance(node, ast.ImportFrom):
            mod = node.module or ""
            if mod.split(".")[0] == "multiprocessing" or mod in MODULES:
                found.append(mod)
            found += [f"{mod}.{a.name}" for a in node.names if a.name in NAMES]
    return found


def test_no_child_process_started_outside_the_owner():
    offenders = {}
    for path in sorted((ROOT / "audit").rglob("*.py")):
        if path.parent.name == "processes":
            continue
        got = starts(path.read_text(encoding="utf-8"))
        if got:
            offenders[str(path.relative_to(ROOT))] = got
    assert offenders == {}


def test_the_check_catches_what_it_is_for():
    assert starts("import subprocess\nsubprocess.run(['x'])\n") == ["subprocess.run"]
    assert starts("def f():\n    from concurrent.futures import ProcessPoolExecutor\n") == [
        "concurrent.futures.ProcessPoolExecutor"]
    assert starts("from multiprocessing import get_context\n") == ["multiprocessing", "multiprocessing.get_context"]
    assert starts("import os\nos.fork()\n") == ["os.fork"]
    assert starts("import subprocess\nsubprocess.list2cmdline(['a'])\nsubprocess.PIPE\n"
                  "def f() -> subprocess.Popen: pass\n") == []
    assert starts("from concurrent.futures import ThreadPoolExecutor\n") == []
    assert starts("from distributed import LocalCluster, Client\n") == ["distributed.LocalCluster"]
