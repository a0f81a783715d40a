"""Packaging and layering: what a plain `pip install` ships, and the import rules the
architecture promises (``reference_impl`` acyclic, standard library only, no private
CPython names)."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _imports(path: Path):
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            yield node.level, node.module or "", [a.name for a in node.names]
        elif isinstance(node, ast.Import):
            for a in node.names:
                yield 0, a.name, []


def _graph() -> dict[str, set[str]]:
    graph = {}
    for p in (ROOT / "reference_impl").glob("*.py"):
        graph[p.stem] = {m.split(".")[0] for level, m, _ in _imports(p) if level == 1 and m}
    return graph


def test_reference_impl_has_no_import_cycle():
    graph, state = _graph(), {}

    def visit(node, stack):
        if state.get(node) == "done":
            return
        assert state.get(node) != "open", f"import cycle: {' -> '.join(stack + [node])}"
        state[node] = "open"
        for nxt in sorted(graph.get(node, ())):
            visit(nxt, stack + [node])
        state[node] = "done"

    for node in sorted(graph):
        visit(node, [])
    assert "segment" in graph and "stats" not in graph["scoring"]


def test_reference_impl_imports_only_the_standard_library():
    for p in (ROOT / "reference_impl").glob("*.py"):
        for level, module, _ in _imports(p):
            if level == 0 and module.split(".")[0] != "__future__":
                assert module.split(".")[0] in sys.stdlib_module_names, f"{p.name} imports {module}"


def test_no_private_names_from_other_packages():
    offenders = []
    for pkg in ("reference_impl", "audit"):
        for p in (ROOT / pkg).rglob("*.py"):
            for level, module, names in _imports(p):
                if level or module.split(".")[0] in ("audit", "reference_impl", "__future__"):
                    continue
                private = [n for n in names if n.startswith("_") and not n.startswith("__")]
                if private or any(part.startswith("_") for part in module.split(".")[1:]):
                    offenders.append(f"{p.relative_to(ROOT)}: from {module} import {names}")
    # Hypothesis's engine internals are read on purpose (documented where used), nothing else.
    offenders = [o for o in offenders if "hypothesis" not in o]
    assert offenders == []


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    # Built from a copy, so that setuptools' build/ and egg-info never land in the checkout.
    src, out = tmp_path_factory.mktemp("src"), tmp_path_factory.mktemp("wheel")
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    for name in ("audit", "reference_impl", "cases"):
        shutil.copytree(ROOT / name, src / name, ignore=shutil.ignore_patterns("__pycache__"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out), str(src)],
                   check=True, capture_output=True)
    return next(out.glob("chrf_audit-*.whl"))


def test_wheel_ships_the_cases_and_no_test_fixtures(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    shipped = sorted(n.rsplit("/", 1)[1] for n in names if "/share/chrf-audit/cases/" in n)
    assert shipped == sorted(p.name for p in (ROOT / "cases").glob("*.json"))
    assert not [n for n in names if n.startswith("tests/") or n.endswith("report/examples.py")]


def test_plugin_finds_the_cases_after_a_plain_install(wheel, tmp_path):
    env_dir = tmp_path / "env"
    venv.create(env_dir, with_pip=False)
    py = env_dir / "bin" / "python"
    subprocess.run([sys.executable, "-m", "pip", "--python", str(py), "install", "-q", "--no-deps",
                    "--no-index", str(wheel)], check=True, capture_output=True)
    code = "from audit.settings.options import packaged_cases; print(packaged_cases())"
    found = subprocess.run([str(py), "-c", code], check=True, capture_output=True, text=True,
                           cwd=tmp_path).stdout.strip()
    assert Path(found) == env_dir / "share" / "chrf-audit" / "cases"
    assert sorted(p.name for p in Path(found).glob("*.json")) == sorted(p.name for p in (ROOT / "cases").glob("*.json"))
