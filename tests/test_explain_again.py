"""An unexplained key that stood for two mechanisms keeps the one nothing explains (issue 30:
every uncatalogued bug an ``unexplained`` row whose repro activates it).

``audit.collect.assemble.explain_again`` classifies a key's examples again once the model is
fitted.  It used to move the whole key by one example (its repro, or -- before the shrink run
set one -- its largest): on ``tests/planted_multibug/topmost_order`` the largest of 79
unexplained sentence examples was one the fitted ``first-reference-only`` explains, and the 78
others (the uncatalogued "highest order alone" bug) went with it; the only unexplained row left
was the fit's remainder, whose smallest input showed a HIDDEN whitespace bug instead.
"""

from __future__ import annotations

import importlib
from fractions import Fraction

from audit.collect.regroup import explain_again
from audit.collect.checker import Observation
from audit.collect.search import _Collected


class _Out:
    kind, raw, detail = "value", None, ""

    def __init__(self, value):
        self.value = value


def _obs(hyp: str, key: tuple, value: float) -> Observation:
    out = Observation("sentence", None, {"hypothesis": hyp, "references": ["r"]}, Fraction(50), _Out(value), key)
    out.replay_case = dict(out.inputs)
    return out


def test_one_example_does_not_carry_the_others_of_its_key():
    key = ("unexplained",)
    small, other, large = _obs("ab", key, 40.0), _obs("abc", key, 95.0), _obs("abcdef", key, 0.0)
    c = _Collected(largest=large, count=79,
                   seeds={"claimed": [((False, 1), 0, "c1", small), ((False, 2), 1, "c2", other)]})
    found = {key: c}
    now = {"abcdef": ("first-reference-only",)}  # the fitted model explains the largest alone

    def recheck(o):
        return _obs(o.inputs["hypothesis"], now.get(o.inputs["hypothesis"], key), o.outcome.value)

    out = explain_again(found, recheck)
    assert set(out) == {key, ("first-reference-only",)}
    kept, moved = out[key], out[("first-reference-only",)]
    assert kept.count == 78 and moved.count == 1
    assert [s[2] for s in kept.seeds["claimed"]] == ["c1", "c2"]  # the shrink run starts from what stays
    assert kept.largest.inputs["hypothesis"] == "abc"
    assert moved.largest.inputs["hypothesis"] == "abcdef" and moved.minimal.inputs["hypothesis"] == "abcdef"


def test_a_key_whose_examples_all_move_goes_whole_to_its_smallest_examples_key():
    key = ("unexplained",)
    small, large = _obs("ab", key, 10.0), _obs("abcdef", key, 0.0)
    c = _Collected(largest=large, count=5, seeds={"claimed": [((False, 1), 0, "c1", small)]},
                   absorbs=["metamorphic-whitespace"])
    now = {"ab": ("wrong-beta",), "abcdef": ("first-reference-only",)}
    out = explain_again({key: c}, lambda o: _obs(o.inputs["hypothesis"], now[o.inputs["hypothesis"]], o.outcome.value))
    assert key not in out
    assert out[("wrong-beta",)].count == 4 and out[("wrong-beta",)].absorbs == ["metamorphic-whitespace"]
    assert out[("first-reference-only",)].count == 1 and out[("first-reference-only",)].absorbs == []
    assert [s[2] for s in out[("wrong-beta",)].seeds["claimed"]] == ["c1"]


def test_an_example_that_agrees_now_changes_nothing():
    key = ("unexplained",)
    c = _Collected(largest=_obs("ab", key, 0.0), count=3)
    out = explain_again({key: c}, lambda o: _obs("ab", None, 0.0))
    assert out == {key: c} and c.count == 3


def test_the_uncatalogued_bug_behind_a_named_one_keeps_a_row_whose_repro_activates_it(tmp_path):
    """In process, the sentence unit of topmost_order (seconds): its unexplained row's repro
    scores differently with the uncatalogued bug switched off."""
    from audit.adapters import resolve
    from audit.collect.unit import audit_level

    name = "tests.planted_multibug.topmost_order"
    mod = importlib.import_module(name)
    [adapter] = resolve(f"{name}:sentence", corpus_impl=f"{name}:corpus", overrides=mod.CLAIMS, isolate=False)
    (tmp_path / "cases").mkdir()
    unit = audit_level(adapter, "sentence", seed=0, max_examples=100, cases_dir=tmp_path / "cases")
    every = frozenset(mod.BUGS) | frozenset(mod.UNCATALOGUED)
    [top] = mod.UNCATALOGUED
    on, off = mod._make(every)[0], mod._make(every - {top})[0]
    rows = [f.minimal.inputs for f in unit.findings if f.family == "unexplained"]
    assert rows, [f.family for f in unit.findings]
    assert any(abs(on(r["hypothesis"], r["references"]) - off(r["hypothesis"], r["references"])) > 1e-9
               for r in rows), rows
