"""Rules of ``audit.collect.fitting`` that whole audits reach without stating them (issue 34
item 1: survivors of the mutation run on ``audit/collect/fitting.py``, docs/mutation.md): the
inputs of a level, when divergences count as unexplained, the repro a fitted family gets,
and the fit summary.  In-process adapters, no whole audit."""

from __future__ import annotations

from types import SimpleNamespace

from audit.collect import fitting
from audit.collect.repros import reduce_repros
from audit.collect.unit import UnitAudit
from audit.diagnose.reduce import inputs_of
from tests.test_classify_names import _checker


def test_inputs_of_each_level():
    assert inputs_of("sentence", [("h", ("r1", "r2"))]) == {"hypothesis": "h", "references": ["r1", "r2"]}
    assert inputs_of("corpus", [("a", ("x", "y")), ("b", ("z",))]) == {
        "hypotheses": ["a", "b"], "references": [["x", "y"], ["z"]]}


def _cand(minimal="none"):
    if minimal == "none":
        return SimpleNamespace(minimal=None)
    return SimpleNamespace(minimal=SimpleNamespace(changes=minimal))


def test_unexplained_means_an_unexplained_key_shown_without_changed_parameters():
    """An "unexplained" divergence counts when its repro is under the claimed parameters
    (no changes) or has no minimal repro; one seen only with a parameter changed does not,
    nor does a named family or the empty key."""
    assert fitting.has_unexplained({("unexplained",): _cand({})})
    assert fitting.has_unexplained({("unexplained", "~digits"): _cand()})
    assert not fitting.has_unexplained({("unexplained",): _cand({"lowercase": True})})
    assert not fitting.has_unexplained({("wrong-beta",): _cand({}), ("no-clipping",): _cand()})
    assert not fitting.has_unexplained({(): _cand({}), None: _cand()})
    assert fitting.has_unexplained({("wrong-beta",): _cand({}), ("unexplained",): _cand({})})


def test_a_fitted_family_gets_its_own_reduced_repro_and_the_fit_counts_what_it_explains():
    checker = _checker("wrong_beta", "tests.planted")
    u = UnitAudit(checker.adapter, "sentence", seed=0, max_examples=1, tolerance=checker.tolerance,
                  cases_dir=None, progress=None, profile=None)
    u.checker = checker
    obs = checker.check("sentence", {"hypothesis": "ab", "references": ["a"]})
    assert obs.key == ("wrong-beta",)
    out = reduce_repros(u)
    assert list(out) == ["wrong-beta"] and out["wrong-beta"].key == ("wrong-beta",)
    assert out["wrong-beta"].inputs == {"hypothesis": "aa", "references": ["a"]}
    assert ("wrong-beta",) in u.found  # fitted on targeted inputs alone: recorded with that repro
    fit = fitting.fit_summary(u)
    assert (fit["model"], fit["explained"], fit["observed"]) == (["wrong-beta"], 2, 2)
