"""The library's own tests, before and after a patch: what its CI would say of the patch.

For each file a patch changes, the module's doctests (``pytest --doctest-modules``, as nltk's
and torchmetrics' CI run them) and the distribution's own chrF test files where it ships any
(``test*chrf*.py`` inside the package), run once on the released package and once on the
patched copy, each in its own process (``audit.processes.owner``) in a temporary directory,
no bytecode written, no pytest plugin loaded but pytest's own.  ``regression_examples``
runs the doctest examples of the patched module against the RELEASED module: the examples a
patch adds as its regression test fail there (and pass on the copy: the "after" run).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Optional

from ..processes import owner as procs

#: seconds before a test process counts as hung (the report says so; nothing waits longer)
TIMEOUT = 180.0


def module_of(rel: str) -> Optional[str]:
    """``nltk/translate/chrf_score.py`` -> ``nltk.translate.chrf_score``."""
    if not rel.endswith(".py"):
        return None
    parts = rel[:-3].split("/")
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _env(first: Optional[Path]) -> dict:
    from .jobs import worker_env

    env = worker_env(first, with_cwd=False)
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    # the caller's own pytest settings are not the library's (a PYTEST_ADDOPTS naming a plugin
    # of the caller's made every library test "could not run")
    for name in ("PYTEST_ADDOPTS", "PYTEST_PLUGINS"):
        env.pop(name, None)
    return env


def _call(argv: list, first: Optional[Path], cwd: Path, timeout: float) -> tuple[int, str, str]:
    proc = procs.spawn(argv, cwd=cwd, env=_env(first), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        return -1, "", f"took more than {timeout:g} s"
    finally:
        procs.stop(proc)
    return proc.returncode, out, err


def test_files(root: Path, rels: list[str]) -> list[str]:
    """The files run, relative to ``root``: each patched module, then the chrF test files of
    the packages they belong to (sorted)."""
    out = list(dict.fromkeys(rels))
    for top in dict.fromkeys(rel.split("/")[0] for rel in rels):
        pkg = Path(root) / top
        if pkg.is_dir():
            out += sorted(p.relative_to(root).as_posix() for p in pkg.rglob("test*chrf*.py"))
    return out


def run_tests(root: Path, files: list[str], *, timeout: float = TIMEOUT) -> dict:
    """pytest over ``files`` (relative to ``root``, which is put first on the path):
    ``{"passed", "failed", "failures": [test names], "error"}``."""
    with tempfile.TemporaryDirectory(prefix="chrf-audit-libtests-") as tmp:
        xml = Path(tmp) / "junit.xml"
        ini = Path(tmp) / "pytest.ini"  # not the configuration of a project the files lie under
        ini.write_text("[pytest]\n", encoding="utf-8")
        argv = [sys.executable, "-m", "pytest", "-q", "-c", str(ini), "-p", "no:cacheprovider", "--doctest-modules",
                f"--junitxml={xml}", f"--rootdir={tmp}", *[str(Path(root) / f) for f in files]]
        rc, out, err = _call(argv, Path(root), Path(tmp), timeout)
        if rc == -1 or not xml.is_file():
            tail = (err or out).strip().splitlines()[-1:] or [f"exit {rc}"]
            return {"passed": 0, "failed": 0, "failures": [], "error": tail[0][:300]}
        cases = ET.parse(xml).getroot().iter("testcase")
    passed, failures = 0, []
    for case in cases:
        name = f"{case.get('classname', '')}::{case.get('name', '')}".strip(":")
        if case.find("failure") is not None or case.find("error") is not None:
            failures.append(name)
        elif case.find("skipped") is None:
            passed += 1
    return {"passed": passed, "failed": len(failures), "failures": failures, "error": None}


_EXAMPLES = r'''
import ast, doctest, importlib, json, sys
path, module = sys.argv[1], sys.argv[2]
source = open(path, encoding="utf-8").read()
released = importlib.import_module(module)
parser, failed, total = doctest.DocTestParser(), 0, 0
for node in [ast.parse(source)] + [n for n in ast.walk(ast.parse(source))
                                    if isinstance(n, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef))]:
    doc = ast.get_docstring(node, clean=False)
    if not doc:
        continue
    test = parser.get_doctest(doc, dict(vars(released)), getattr(node, "name", module), path, 0)
    for example in test.examples:
        one = doctest.DocTest([example], test.globs, test.name, path, 0, None)
        result = doctest.DocTestRunner(verbose=False, optionflags=0).run(one, out=lambda s: None)
        total += 1
        failed += result.failed
print(json.dumps({"examples": total, "failed_on_released": failed}))
'''


def regression_examples(patched_file: Path, module: str, *, timeout: float = TIMEOUT) -> dict:
    """The patched module's doctest examples run one by one against the released module
    (the patched copy NOT on the path): ``{"examples", "failed_on_released", "error"}``.
    Each example runs alone in the docstring's namespace, so an example that needs an
    earlier one's names fails too: compare with the same count of the released module."""
    import json

    with tempfile.TemporaryDirectory(prefix="chrf-audit-regression-") as tmp:
        rc, out, err = _call([sys.executable, "-c", _EXAMPLES, str(patched_file), module], None, Path(tmp), timeout)
    if rc != 0:
        tail = (err or out).strip().splitlines()[-1:] or [f"exit {rc}"]
        return {"examples": 0, "failed_on_released": 0, "error": tail[0][:300]}
    try:
        return {**json.loads(out.strip().splitlines()[-1]), "error": None}
    except (ValueError, IndexError):
        return {"examples": 0, "failed_on_released": 0, "error": "no result"}


def library_tests(site: Path, after_root: Path, rels: list[str], module: Optional[str], *,
                  timeout: float = TIMEOUT) -> dict:
    """The library's tests on the released package (``site``) and on the patched copy:
    ``{"files", "before", "after", "broken", "regression"}``; ``broken`` counts the tests
    that pass before and fail after (None when a side could not run)."""
    files = [f for f in test_files(after_root, rels) if (Path(site) / f).is_file() or f in rels]
    before = run_tests(site, files, timeout=timeout)
    after = run_tests(after_root, files, timeout=timeout)
    broken = None
    if before["error"] is None and after["error"] is None:
        broken = len(set(after["failures"]) - set(before["failures"]))
    out = {"files": files, "before": before, "after": after, "broken": broken, "regression": None}
    if module and rels:
        mine = regression_examples(Path(after_root) / rels[0], module, timeout=timeout)
        base = regression_examples(Path(site) / rels[0], module, timeout=timeout)
        if mine["error"] is None and base["error"] is None:
            out["regression"] = {"added": mine["examples"] - base["examples"],
                                 "failing_before": mine["failed_on_released"] - base["failed_on_released"]}
    return out


def site_of(top: str) -> Optional[Path]:
    """The directory the released top-level package is imported from (not imported here)."""
    from .diffs import package_root

    return package_root(top, with_cwd=False)


__all__ = ["module_of", "library_tests", "run_tests", "regression_examples", "test_files", "site_of", "TIMEOUT"]
