"""The house drawn from its imports: no import cycle anywhere in ``audit`` (imports inside
functions count: they hide a cycle, they do not remove it), and the stage folders depend one
way, from the commands down to the plain records.

Why: a cycle means two modules cannot be understood (or moved) apart, and a stage that imports
a later one (the diagnosis importing the search, a reader of files importing the option table's
users) turns the pipeline a newcomer reads from the folder names into a tangle.  ``LAYERS`` is
the order of record; docs/ARCHITECTURE.md draws it."""

from __future__ import annotations

from pathlib import Path

from tests.fixtures.imports import import_targets

ROOT = Path(__file__).resolve().parents[1]

#: Stage folders (and the modules directly under ``audit/``), top to bottom: a module may import
#: its own folder and any folder of a *later* tier, never an earlier one or another folder of
#: its own tier.
LAYERS: list[tuple[str, ...]] = [
    ("cli",),
    ("commands",),
    ("survey",),  # chrf-audit survey: the registry's implementations audited side by side, a second route
    ("versions",),  # chrf-audit versions: releases installed, audited on Dask, the matrix
    ("gate",),  # check's baseline and configuration, the pytest plugin
    ("enrich",),
    ("patches",),
    ("stats",),
    ("collect",),
    ("impact",),
    ("adapters",),  # resolves names through the upstream registry, hosts its backends
    ("upstream",),  # one object per library (registry.LIBRARIES); knows no adapter
    ("render",),
    ("diagnose",),
    ("contract", "http"),
    ("files",),
    ("settings",),
    ("processes",),
    ("enriched", "findings", "errors", "__init__"),
]


def modules(package: Path = ROOT / "audit", name: str = "audit") -> dict[str, tuple[Path, bool]]:
    """Dotted module name -> (path, is a package) for every module under ``package``."""
    out = {}
    for p in sorted(package.rglob("*.py")):
        parts = [name] + list(p.relative_to(package).with_suffix("").parts)
        is_pkg = parts[-1] == "__init__"
        if is_pkg:
            parts = parts[:-1]
        out[".".join(parts)] = (p, is_pkg)
    return out


def imports(source: str, module: str, is_pkg: bool, known) -> set[str]:
    """The modules of ``known`` that ``source`` imports, anywhere in it (inside functions
    too); ``from a import b`` is an import of ``a.b`` when that is a module, else of ``a``."""
    found = set()
    for mod, names in import_targets(source, module, is_pkg):
        if names is None:
            found.add(mod)
        for a in names or ():
            found.add(f"{mod}.{a}" if f"{mod}.{a}" in known else mod)
    out = set()
    for name in found:
        while name and name not in known:
            name = name.rpartition(".")[0]
        if name and name != module:
            out.add(name)
    return out


def graph(mods=None) -> dict[str, set[str]]:
    mods = mods if mods is not None else modules()
    return {m: imports(p.read_text(encoding="utf-8"), m, is_pkg, mods) for m, (p, is_pkg) in mods.items()}


def cycles(g: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(g.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(g):
        if v not in index:
            visit(v)
    return sorted(out)


def stage(module: str) -> str:
    """``audit.collect.runner`` -> ``collect``; ``audit.errors`` -> ``errors``; ``audit`` ->
    ``__init__``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def tier(module: str) -> int:
    s = stage(module)
    for i, names in enumerate(LAYERS):
        if s in names:
            return i
    raise AssertionError(f"{module}: its folder {s!r} is not in LAYERS")


def upward(g: dict[str, set[str]]) -> list[str]:
    """Imports that cross folders against LAYERS (to an earlier tier, or across one tier)."""
    bad = []
    for a, targets in sorted(g.items()):
        for b in sorted(targets):
            if stage(a) != stage(b) and tier(a) >= tier(b):
                bad.append(f"{a} -> {b}")
    return bad


def test_no_import_cycle_in_the_package():
    assert cycles(graph()) == []


def test_stage_folders_depend_one_way():
    assert upward(graph()) == []


def test_every_folder_has_its_place():
    for m in modules():
        tier(m)


def test_the_checks_catch_what_they_are_for(tmp_path):
    """Planted packages: a cycle hidden in a function is found, and so is a stage importing
    an earlier one; a clean pair is not."""
    pkg = tmp_path / "audit"
    (pkg / "collect").mkdir(parents=True)
    (pkg / "diagnose").mkdir()
    for d in (pkg, pkg / "collect", pkg / "diagnose"):
        (d / "__init__.py").write_text("")
    (pkg / "collect" / "runner.py").write_text("from . import parallel\n")
    (pkg / "collect" / "parallel.py").write_text("def f():\n    from .runner import x\n")
    (pkg / "diagnose" / "models.py").write_text("def g():\n    from ..collect import search\n")
    (pkg / "collect" / "search.py").write_text("from ..diagnose.models import predict\n")
    g = graph(modules(pkg))
    assert cycles(g) == [["audit.collect.parallel", "audit.collect.runner"],
                         ["audit.collect.search", "audit.diagnose.models"]]
    assert upward(g) == ["audit.diagnose.models -> audit.collect.search"]
    (pkg / "collect" / "parallel.py").write_text("X = 1\n")
    (pkg / "diagnose" / "models.py").write_text("def predict(): pass\n")
    g = graph(modules(pkg))
    assert cycles(g) == [] and upward(g) == []
    # issue 34 probe (h): an upward import through import_module / __import__ with a literal
    for src in ("import importlib\ndef g():\n    return importlib.import_module('audit.collect.search')\n",
                "from importlib import import_module\nsearch = import_module('..collect.search', __package__)\n",
                "import importlib\nsearch = importlib.import_module('.search', package='audit.collect')\n",
                "def g():\n    return __import__('audit.collect.search')\n"):
        (pkg / "diagnose" / "models.py").write_text(src)
        assert upward(graph(modules(pkg))) == ["audit.diagnose.models -> audit.collect.search"], src
    # a name computed at run time is not a literal: nothing to resolve
    (pkg / "diagnose" / "models.py").write_text("import importlib\ndef g(n):\n    return importlib.import_module(n)\n")
    assert upward(graph(modules(pkg))) == []


#: the size a module of audit/ stays under: past it, a module holds more than one idea
MAX_LINES = 400


def test_every_module_is_small():
    big = {str(p.relative_to(ROOT)): n for p, _ in modules().values()
           if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert big == {}
