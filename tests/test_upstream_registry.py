"""One object per upstream library, one list of them: ``audit.upstream.registry.LIBRARIES`` is
the only place a library's names, claims and backend are declared.  Every name ``--impl``
accepts resolves through it, the default audit is its ``default`` adapters, and a library
added to it (a module's ``Upstream`` plus one line) is resolved, scored, named in errors and
grouped in a worker like the built-in ones, with no other change."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from audit.adapters import AdapterError, Claims, resolve
from audit.adapters.kinds import builtin_names
from audit.settings import options
from audit.upstream import registry
from audit.upstream.library import BuiltinAdapter, Upstream

ROOT = Path(__file__).resolve().parents[1]


def test_names_the_cli_accepts_are_the_registry_s():
    for library in registry.LIBRARIES:
        assert builtin_names(library.name) == list(library.adapter_names())
        for a in library.adapters:
            assert builtin_names(a.name) == [a.name]
            assert registry.library_of(a.name) is library
    assert builtin_names(None) == ["nltk", "sacrebleu-chrf", "sacrebleu-chrf++", "sacrebleu-chrf-eps",
                                   "sacrebleu-chrf++-eps"]
    with pytest.raises(AdapterError) as e:
        builtin_names("nltkk")
    assert ("expected one of nltk, sacrebleu, torchmetrics, sacrebleu-chrf, sacrebleu-chrf++, sacrebleu-chrf-eps, "
            "sacrebleu-chrf++-eps, torchmetrics-chrf, torchmetrics-chrf++ or package.module:function") in str(e.value)


def test_the_help_of_impl_names_every_library():
    text = options.OPTIONS["impl"].help
    for library in registry.LIBRARIES:
        assert library.name in text


def test_builtin_claims_are_the_ones_held_before_the_registry():
    """The claims each built-in adapter is held to (as the pre-registry BUILTINS table had them)."""
    got = {a.name: Claims(**a.claims) for u in registry.LIBRARIES for a in u.adapters}
    assert got["nltk"] == Claims(char_order=6, word_order=0, beta=3, whitespace=False, definition="sacrebleu", scale=1)
    assert got["sacrebleu-chrf++-eps"] == Claims(word_order=2, definition="sacrebleu-eps")
    assert got["torchmetrics-chrf"] == Claims(word_order=0, definition="chrfpp", scale=1)
    assert [u.name for u in registry.LIBRARIES if u.native_signature] == ["sacrebleu"]


def test_no_other_name_table():
    """The lists the registry replaced are gone: no module of audit/ (the library modules
    and the registry aside) spells a built-in adapter name."""
    names = set(registry.adapter_names()) - {"nltk"}  # "nltk" is also the package's name
    offenders = []
    for path in sorted((ROOT / "audit").rglob("*.py")):
        if path.parent.name == "upstream" and path.stem in {u.name for u in registry.LIBRARIES} | {"registry"}:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docs = {id(n.body[0].value) for n in ast.walk(tree)
                if isinstance(n, (ast.Module, ast.FunctionDef, ast.ClassDef)) and n.body
                and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs \
                    and node.value in names:
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.value!r}")
    assert offenders == []


class _FakeBackend:
    """A planted library: the reference's own chrF through sacreBLEU, at 0..1."""

    def __init__(self, half: bool = False):
        from sacrebleu.metrics.chrf import CHRF

        self.CHRF, self.half = CHRF, half

    def describe(self):
        return {"version": "9.9", "sources": {}}

    def sentence(self, claims, hypothesis, references):
        score = self.CHRF(word_order=claims["word_order"]).sentence_score(hypothesis, references).score / 100
        return score / 2 if self.half else score

    def corpus(self, claims, hypotheses, references):
        streams = [[r[0] for r in references]]
        return self.CHRF(word_order=claims["word_order"]).corpus_score(hypotheses, streams).score / 100


FAKE = Upstream(
    name="fakelib", distribution="fakelib", module="fakelib.chrf", default_claims={"scale": 1},
    adapters=(BuiltinAdapter("fakelib-chrf", {"word_order": 0, "scale": 1}, multi_reference=False),
              BuiltinAdapter("fakelib-chrf-half", {"word_order": 0, "scale": 1}, {"half": True},
                             multi_reference=False)),
    backend=_FakeBackend, repro_snippet=lambda finding, version=None: "", patched_source=lambda family: None,
    patch_descriptions={},
)


def test_a_library_added_to_the_registry_is_resolved_and_called(monkeypatch):
    """One more line in LIBRARIES: its names resolve (alone and as a group), its backend is
    built from the spec and called, its options reach it, and it is a built-in upstream."""
    from audit import upstream

    monkeypatch.setattr(registry, "LIBRARIES", registry.LIBRARIES + (FAKE,))
    assert builtin_names("fakelib") == ["fakelib-chrf", "fakelib-chrf-half"]
    assert upstream.is_builtin("fakelib-chrf-half") and upstream.get("fakelib-chrf").name == "fakelib"
    adapters = resolve("fakelib", isolate=False)  # in process: the monkeypatched registry is this process's
    try:
        assert [a.name for a in adapters] == ["fakelib-chrf", "fakelib-chrf-half"]
        whole, half = (a.sentence_scores([("abc", ["abd"])])[0] for a in adapters)
        assert whole.ok and half.ok and abs(half.value - whole.value / 2) < 1e-12 and whole.value > 0
        assert adapters[0].version == "9.9" and adapters[0].claims.scale == 1
        assert not adapters[0].supports.multi_reference
    finally:
        for a in adapters:
            a.close()
