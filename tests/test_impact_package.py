"""The ``audit.impact`` package as split by responsibility: no module reaches into another
module's private names, the study shares its exact reference work, the CLI's file reading
lives in the package, and ``audit.diagnose.text_model`` bounds its cache through a public function."""

from __future__ import annotations

import ast
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

import audit.impact as impact
from audit.diagnose import text_model, variants
from audit.errors import UsageError
from audit.impact import compare
from reference_impl import ChrfParams, sentence_score

PACKAGE = Path(impact.__file__).parent


def private_reaches(source: str) -> list[str]:
    """Private (underscore, not dunder) names this module takes from another module:
    ``from X import _y``, ``X._y`` and ``getattr(X, "_y")`` where ``X`` is an imported module."""
    tree = ast.parse(source)
    found, modules = [], set()

    def private(name: str) -> bool:
        return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))

    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if private(alias.name):
                    found.append(f"from {'.' * node.level}{node.module or ''} import {alias.name}")
                else:  # "from .. import models": models is a module name from now on
                    modules.add(alias.asname or alias.name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                modules.add(alias.asname or alias.name.split(".")[0])
                if any(private(part) for part in alias.name.split(".")):
                    found.append(f"import {alias.name}")
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and private(node.attr) and isinstance(node.value, ast.Name)
                and node.value.id in modules):
            found.append(f"{node.value.id}.{node.attr}")
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("getattr", "hasattr")
              and len(node.args) >= 2 and isinstance(node.args[0], ast.Name) and node.args[0].id in modules
              and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str)
              and private(node.args[1].value)):
            found.append(f"{node.func.id}({node.args[0].id}, {node.args[1].value!r})")
    return found


def test_no_module_of_audit_impact_reaches_into_private_names():
    files = sorted(PACKAGE.glob("*.py"))
    assert {p.stem for p in files} >= {"__init__", "compare", "implementation", "data", "attribution", "study"}
    reaches = {p.name: private_reaches(p.read_text(encoding="utf-8")) for p in files}
    assert reaches == {p.name: [] for p in files}


def test_the_private_reach_check_catches_what_the_old_module_did():
    # What audit/impact.py used to do, and its variants: each is caught.
    assert private_reaches("from . import models\n"
                           "c = getattr(models, '_profile_cached', None)\n") == ["getattr(models, '_profile_cached')"]
    assert private_reaches("from .compare import ranks, _call\n") == ["from .compare import _call"]
    assert private_reaches("from .. import models\nmodels._profile_cached.cache_clear()\n") == [
        "models._profile_cached"]
    assert private_reaches("import audit.diagnose.models as m\nm._profile(1)\n") == ["m._profile"]
    # Not reaches: a module's own private helpers, dunders, attributes of objects that are
    # not modules.
    assert private_reaches("def _h():\n    pass\n_h()\nx = object()\nx._y\nfrom . import __version__\n") == []


def test_every_module_of_audit_impact_stays_small():
    sizes = {p.name: len(p.read_text(encoding="utf-8").splitlines()) for p in PACKAGE.glob("*.py")}
    assert max(sizes.values()) < 400, sizes


def test_the_public_names_used_elsewhere_stay_importable():
    from audit.impact import (attribute_families, closest_systems, family_model, load_impact_data, ranks,  # noqa: F401
                              run_impact, skipped_record, study, study_record)

    assert set(impact.__all__) <= set(dir(impact))
    assert all(not name.startswith("_") for name in impact.__all__)


# --------------------------------------------------------------------------- audit.diagnose.text_model cache


def test_bound_profile_cache_empties_only_above_the_limit_and_changes_no_result():
    params = ChrfParams.make()
    tv = variants.TextVariant(ws="whitespace-kept")
    segs = [("a b c", ["a b d"]), ("der Hund", ["die Katze"])]
    first = text_model.text_stats(segs, params, tv)
    assert text_model.bound_profile_cache(10 ** 9) is False  # far below: untouched
    assert text_model.bound_profile_cache(0) is True  # the profiles above are cached: emptied
    assert text_model.bound_profile_cache(0) is False  # now empty
    assert text_model.text_stats(segs, params, tv) == first


# --------------------------------------------------------------------------- data


def test_load_system_files_names_shape_and_errors(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    for d in ("a", "b"):
        (tmp_path / d / "sys.txt").write_text(f"{d}1\n{d}2\n", encoding="utf-8")
    (tmp_path / "r1.txt").write_text("r1\nr2\n", encoding="utf-8")
    (tmp_path / "r2.txt").write_text("s1\ns2\n", encoding="utf-8")
    ref1, ref2 = str(tmp_path / "r1.txt"), str(tmp_path / "r2.txt")
    sa, sb = str(tmp_path / "a" / "sys.txt"), str(tmp_path / "b" / "sys.txt")
    systems, refs = impact.load_system_files([ref1, ref2], [sa])
    assert systems == {"sys.txt": ["a1", "a2"]} and refs == [["r1", "s1"], ["r2", "s2"]]
    # Two systems with the same base name keep their paths as names.
    systems, _ = impact.load_system_files([ref1], [sa, sb])
    assert list(systems) == [sa, sb]
    # A reference given as a system too is one file, not a length mismatch with itself.
    systems, refs = impact.load_system_files([ref1], [ref1, sa])
    assert systems["r1.txt"] == [r[0] for r in refs]
    with pytest.raises(UsageError, match="given twice"):
        impact.load_system_files([ref1], [sa, sa])
    (tmp_path / "short.txt").write_text("x\n", encoding="utf-8")
    with pytest.raises(UsageError, match="short.txt has 1 line"):
        impact.load_system_files([ref1], [str(tmp_path / "short.txt")])


# --------------------------------------------------------------------------- study reference cache


class MacroStub:
    """A macro-averaging implementation (exact sentence scores) claiming ``params``."""

    def __init__(self, name, params):
        self.name = name
        self.claims = SimpleNamespace(params=lambda: params)
        self.supports = SimpleNamespace(corpus=True)
        self._kw = dict(char_order=params.char_order, word_order=params.word_order, beta=params.beta)

    def corpus_scores(self, items):
        return [SimpleNamespace(kind="value", detail="",
                                value=float(np.mean([sentence_score(h, r, **self._kw).score_float
                                                     for h, r in zip(hyps, refs)])))
                for hyps, refs in items]


def _tiny():
    refs = [["der Hund sah die Katze"], ["ein Koch wurde heute gesehen"], ["und dann lief er nach Hause"]]
    systems = {"x": ["der Hund sah Katze", "ein Koch heute", "und er lief nach Hause"],
               "y": ["die Katze sah den Hund", "Koch gesehen", "dann lief er"],
               "z": ["der Hund", "ein Koch wurde gesehen", "nach Hause"]}
    return systems, refs


def test_study_shares_reference_results_between_implementations_with_the_same_params(monkeypatch):
    systems, refs = _tiny()
    calls = []
    real = compare.corpus_score
    monkeypatch.setattr(compare, "corpus_score", lambda *a, **k: calls.append(1) or real(*a, **k))
    cache: dict = {}
    p2, p3 = ChrfParams.make(beta=2), ChrfParams.make(beta=3)
    first = impact.study(MacroStub("one", p2), [], systems, refs, resamples=20, reference_cache=cache)
    assert len(calls) == 3 and set(cache[p2]) == {"x", "y", "z"}  # every system, all systems studied
    second = impact.study(MacroStub("two", p2), [], systems, refs, resamples=20, reference_cache=cache)
    assert len(calls) == 3  # same parameters: nothing recomputed
    assert [s["reference_score"] for s in first["systems"]] == [s["reference_score"] for s in second["systems"]]
    # Other parameters are another key: computed afresh, and the scores differ (beta 3 vs 2).
    third = impact.study(MacroStub("three", p3), [], systems, refs, resamples=20, reference_cache=cache)
    assert len(calls) == 6 and set(cache) == {p2, p3}
    assert [s["reference_score"] for s in third["systems"]] != [s["reference_score"] for s in first["systems"]]
    # Each record is what it would be without a cache.
    alone = impact.study(MacroStub("one", p2), [], systems, refs, resamples=20)
    assert alone == first
