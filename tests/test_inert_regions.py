"""Where a pervasive unexplained bug is inert (issue 41, item 4; ``audit.diagnose.inert``).

A region counts only when the implementation gives the fitted model's score on every probe of
it: the highest order alone and a geometric mean over the orders are inert with one effective
n-gram order, a weighted arithmetic F where P = R; add-one smoothing and a damping factor move
every score, so no region is inert for them (their HIDDEN families stay hidden,
tests/planted_multibug).  A family's inputs projected onto a region have its shape and still
change the score there.
"""

from __future__ import annotations

import importlib

import pytest

from audit.adapters import resolve
from audit.collect.unit import UnitAudit
from audit.diagnose import inert
from audit.diagnose.deviations.triggers import pool
from audit.diagnose.fitted import CLAIMED
from audit.diagnose.variants import TextVariant


def _unit(module: str) -> UnitAudit:
    mod = importlib.import_module(f"tests.planted_multibug.{module}")
    [a] = resolve(f"tests.planted_multibug.{module}:sentence", corpus_impl=f"tests.planted_multibug.{module}:corpus",
                  overrides=mod.CLAIMS, isolate=False, name=module, accepts=getattr(mod, "ACCEPTS", None))
    return UnitAudit(a, "sentence", seed=0, max_examples=10, tolerance=1e-9, cases_dir=None, progress=None,
                     profile=None)


@pytest.mark.parametrize("module, regions", [
    ("geometric_class", ["one-order"]), ("topmost_order", ["one-order"]), ("numpy_arith_f", ["balanced"]),
    ("exact_add_one", []), ("damped_counter", []),
])
def test_a_region_is_inert_only_where_the_implementation_scores_every_probe_as_the_model(module, regions):
    u = _unit(module)
    c, v = u.checker.classifier, u.model.variant()
    try:
        found = inert.inert_regions(lambda b: c.scores(u.adapter, "sentence", b), u.params, "sentence", v,
                                    lambda s, x: c.judge.agrees(s, u.params, "sentence", v, x, u.scale))
    finally:
        u.adapter.close()
    assert [r.id for r in found] == regions


@pytest.mark.parametrize("region", inert.REGIONS, ids=lambda r: r.id)
def test_projected_inputs_have_the_regions_shape_and_still_matter(region):
    u = _unit("geometric_class")
    u.adapter.close()
    model = (TextVariant(case="case-folded"), CLAIMED[1])
    matters = inert.differs_from(u.params, "sentence", model, [CLAIMED], 1e-9)
    projected = inert.project(pool("case-folded", u.params, "sentence", 1), region, u.params, "sentence", model, matters)
    assert len(projected) >= 4
    assert all(inert.has_shape(region, s, u.params, model) and matters(s) for s in projected)


@pytest.mark.parametrize("module, expected", [
    ("geometric_class", True), ("numpy_arith_f", True), ("topmost_order", True), ("exact_add_one", True),
    ("damped_counter", True), ("two_exceptions", False), ("drop_empty_refs", False),
])
def test_behind_judging_runs_only_behind_a_deviation_that_changes_most_plain_inputs(module, expected):
    """The pervasive modules change most plain scores; modules whose bugs live in particular
    inputs (exceptions on a class, empty references) change none of them."""
    u = _unit(module)
    c, v = u.checker.classifier, u.model.variant()
    try:
        got = inert.pervasive(lambda b: c.scores(u.adapter, "sentence", b), u.params, "sentence", v,
                              lambda s, x: c.judge.agrees(s, u.params, "sentence", v, x, u.scale))
    finally:
        u.adapter.close()
    assert got is expected
