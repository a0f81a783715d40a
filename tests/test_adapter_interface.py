"""The adapter's interface is declared, not probed (issue 43, item 2).

Everything the audit may ask of an implementation is declared on ``audit.adapters.base.Adapter``,
an optional capability with its default; no module reads one with ``getattr``/``hasattr`` (a
probe makes the interface whatever the probes happen to ask) or assigns one from outside (an
adapter's claims change through ``with_claims``, a new view: the adapter a caller holds never
changes under it).

Which expressions stand for an adapter is read from the code: a name that says so
(``adapter``, ``self._adapter(...)``), a loop variable over adapters (``for a in adapters``,
``for a in made``), a name bound to what makes one (``resolve(...)``,
``ExternalAdapter.start(...)``, ``chosen.with_claims(...)``).  ``result.adapters`` holds
summaries (``AdapterSummary``), not adapters."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from audit.adapters.base import Adapter, Claims, Support

ROOT = Path(__file__).resolve().parents[1]
#: the capabilities an adapter declares (the base type's attributes, annotated or with a
#: default, properties and methods)
DECLARED = frozenset(n for n in [*dir(Adapter), *Adapter.__annotations__] if not n.startswith("__"))
#: calls whose value is a new adapter (besides those of a function named after adapters)
MAKERS = ("with_claims", "configure", ".start")


def _adapterish(node: ast.AST, names: set) -> bool:
    """Whether ``node`` stands for an adapter (see the module docstring)."""
    if isinstance(node, ast.Name):
        return "adapter" in node.id.lower() and node.id != "adapters" or node.id in names
    if isinstance(node, ast.Attribute):
        return "adapter" in node.attr.lower() and node.attr != "adapters"
    if isinstance(node, ast.Call):
        return _adapterish(node.func, names)
    return False


def _many(node: ast.AST, lists: set) -> bool:
    """Whether ``node`` is a list of adapters: ``adapters``, ``made``, what ``resolve`` gives
    (not ``x.adapters``: summaries)."""
    if isinstance(node, ast.Name):
        return node.id in lists or node.id in ("adapters", "made")
    return isinstance(node, ast.Call) and ast.unparse(node.func).split(".")[-1] == "resolve"


def _one(node: ast.AST, names: set, lists: set) -> bool:
    """Whether ``node`` is a value that is an adapter: one made (``with_claims``,
    ``ExternalAdapter.start``, ...), or the first of a list of adapters (``next(...)``)."""
    if isinstance(node, ast.Call):
        func = ast.unparse(node.func)
        if func.endswith(MAKERS) and (not func.endswith(".start") or "Adapter" in func):
            return True
        if func == "next" and node.args and isinstance(node.args[0], ast.GeneratorExp):
            return _many(node.args[0].generators[0].iter, lists)
    return _adapterish(node, names)


def _bound(tree: ast.AST) -> set:
    """Names bound to adapters anywhere in the module (loops, comprehensions, assignments)."""
    names: set = set()
    lists: set = set()
    for node in sorted(ast.walk(tree), key=lambda n: getattr(n, "lineno", 0)):
        if isinstance(node, (ast.For, ast.comprehension)) and isinstance(node.target, ast.Name) \
                and _many(node.iter, lists):
            names.add(node.target.id)
        elif isinstance(node, ast.Assign):
            pairs = [(node.targets[0], node.value)]
            if isinstance(node.targets[0], ast.Tuple) and isinstance(node.value, ast.Tuple):
                pairs = list(zip(node.targets[0].elts, node.value.elts))
            for t, v in pairs:
                if isinstance(t, ast.Name) and _many(v, lists):
                    lists.add(t.id)
                elif isinstance(t, ast.Name) and _one(v, names, lists):
                    names.add(t.id)
    return names


def reads_and_writes(root: Path) -> tuple[list[str], list[str]]:
    """(probes of an adapter's attributes, assignments to a declared capability from outside),
    as ``path:line: text``, in the modules under ``root/audit``."""
    probes, writes = [], []
    for path in sorted((root / "audit").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names, where = _bound(tree), path.relative_to(root).as_posix()
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                    and node.func.id in ("getattr", "hasattr") and len(node.args) >= 2 \
                    and isinstance(node.args[1], ast.Constant) and _adapterish(node.args[0], names):
                probes.append(f"{where}:{node.lineno}: {ast.unparse(node)}")
            targets = node.targets if isinstance(node, ast.Assign) else \
                [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else []
            for t in targets:
                if isinstance(t, ast.Attribute) and t.attr in DECLARED and _adapterish(t.value, names):
                    writes.append(f"{where}:{node.lineno}: {ast.unparse(t)} = ...")
    line = lambda found: (found.split(":")[0], int(found.split(":")[1]))  # noqa: E731
    return sorted(probes, key=line), sorted(writes, key=line)


def test_no_module_probes_an_adapter_for_a_capability():
    """A capability is read as declared (``adapter.spec``), never found by a probe: a probe
    with a default hides that the base type does not say what an adapter can do."""
    probes, _ = reads_and_writes(ROOT)
    assert probes == [], "declare these on audit.adapters.base.Adapter (with a default) and read them:\n" + \
        "\n".join(probes)


def test_no_module_assigns_an_adapters_capability_from_outside():
    """Claims, spec, name, support: given at construction; other claims are a view
    (``with_claims``), so an adapter never changes under whoever holds it."""
    _, writes = reads_and_writes(ROOT)
    assert writes == [], "\n".join(writes)


def test_the_scan_sees_the_probes_and_assignments_it_forbids(tmp_path):
    """The two checks above can fail: planted in a module, each form is found."""
    (tmp_path / "audit").mkdir()
    (tmp_path / "audit" / "planted.py").write_text(
        "def f(adapter, adapters, resolve):\n"
        "    getattr(adapter, 'spec', None)\n"
        "    [getattr(a, 'contract', None) for a in adapters]\n"
        "    made = resolve()\n"
        "    for b in made:\n"
        "        b.claims = None\n"
        "    chosen = next(a for a in made)\n"
        "    hasattr(chosen, 'request_body')\n"
        "    self._adapter('x').spec = {}\n"
        "    getattr(result.adapters[0], 'sources', {})\n"  # a summary, not an adapter
        "    x.claims = 1\n",  # not an adapter
        encoding="utf-8")
    probes, writes = reads_and_writes(tmp_path)
    assert [p.split(": ", 1)[1] for p in probes] == [
        "getattr(adapter, 'spec', None)", "getattr(a, 'contract', None)", "hasattr(chosen, 'request_body')"]
    assert [w.split(": ", 1)[1] for w in writes] == ["b.claims = ...", "self._adapter('x').spec = ..."]


class _Minimal(Adapter):
    """An adapter that gives only what it must: its name, claims and support."""

    def __init__(self, claims: Claims = Claims()):
        self.name, self.claims = "minimal", claims
        self.supports = Support(sentence=True, corpus=False, multi_reference=False)

    def with_claims(self, claims: Claims) -> "_Minimal":
        return _Minimal(claims)

    def _score(self, op: str, items: list) -> list[tuple]:
        return [("value", float(self.claims.beta), repr(self.claims.beta)) for _ in items]


def test_an_optional_capability_has_its_default_on_the_base_type():
    a = _Minimal()
    assert (a.version, a.accepts, dict(a.sources), a.accepts_surrogates, a.resolution, a.spec, a.contract) == \
        (None, frozenset(), {}, False, 0.0, None, None)
    assert a.source_record("sentence") is None and a.service() is None
    assert a.request_body("sentence", {"hypothesis": "a", "references": ["a"]}) is None
    assert a.raise_timeout(60.0) is None and a.signature == f"minimal|unknown|{Claims().text()}"


def test_with_claims_is_a_view_and_leaves_the_adapter_unchanged():
    a = _Minimal()
    before = a.claims
    view = a.with_claims(a.claims.replace(beta=5))
    assert view is not a and view.claims.beta == 5 and a.claims is before and a.claims.beta == 2
    assert [o.value for o in view.sentence_scores([("a", ["a"])])] == [5.0]
    assert [o.value for o in a.sentence_scores([("a", ["a"])])] == [2.0]


def test_configure_checks_what_the_adapter_accepts_then_gives_a_view():
    from audit.adapters import AdapterError

    a = _Minimal()
    with pytest.raises(AdapterError, match="cannot be configured with beta"):
        a.configure(beta=3)


def test_a_resolved_adapters_view_shares_its_worker_and_keeps_its_spec():
    """A built-in adapter in its isolated worker: the view scores with its own claims, the
    adapter with its own, closing the view leaves the adapter's worker running, and the view
    is made again in another process from the same spec (``--jobs``, a fresh worker's replay)."""
    from audit.adapters import resolve

    [a] = resolve("nltk", timeout=60)
    try:
        before = a.claims
        view = a.with_claims(a.claims.replace(beta=1))
        item = [("the cat sat on the mat", ["the cat is on the mat"])]
        with view:
            mine, theirs = a.sentence_scores(item)[0].value, view.sentence_scores(item)[0].value
            assert view.spec == a.spec and view.name == a.name and view.claims.beta == 1
        assert a.claims is before and before.beta == 3 and mine != theirs
        assert a.sentence_scores(item)[0].value == mine  # the worker still runs for the adapter
        assert a.spec["name"] == "nltk" and a.spec["impl"] == "nltk"
    finally:
        a.close()
