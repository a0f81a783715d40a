"""The planted-bug table (tests/planted/catalogue.py) is consistent: every row names a family
of the registry, its specs resolve through the callable adapter, and every stated trigger
replays: the row gives the stated actual, ``reference_impl`` under the row's claims the
stated expected.  In-process, no audit: the audits are tests/test_runner_planted.py."""

from __future__ import annotations

import importlib
import math
import pkgutil
from fractions import Fraction

import pytest

import tests.planted as P
from audit.adapters import AdapterError, resolve
from audit.diagnose.deviations import REGISTRY
from reference_impl import corpus_score, sentence_score
from tests.planted import faults
from tests.planted.base import CLAIMS_CHRF
from tests.planted.catalogue import Row, Trigger

BUGS = [r for r in P.ROWS if r.family]
CORRECT = [r for r in P.ROWS if not r.family]
TRIGGERS = [(r, t) for r in BUGS for t in r.triggers]
_PARAMS = ("char_order", "word_order", "beta", "lowercase", "whitespace", "definition")


def stated(x, text: str) -> bool:
    """``x`` is the number ``text`` states: to its digits after the point, or exactly."""
    if x is None or isinstance(x, bool) or (isinstance(x, float) and not math.isfinite(x)):
        return False
    try:
        Fraction(text)
    except ValueError:  # an outcome ("exits 1", "None", ...) is not a number
        return False
    digits = len(text.partition(".")[2])
    return Fraction(x) == Fraction(text) if digits == 0 else f"{float(x):.{digits}f}" == text


def reference(row: Row, t: Trigger) -> Fraction:
    params = {k: row.claims[k] for k in _PARAMS}
    score = sentence_score if t.level == "sentence" else corpus_score
    return score(t.hyp, t.refs, **params).score


class _Exit(Exception):
    pass


def observe(row: Row, t: Trigger, monkeypatch, calls=None) -> list:
    """What the row does on the trigger, stated as in the table (one entry per call; as many
    calls as the trigger states, unless ``calls``)."""
    def exit_(code):
        raise _Exit(code)

    slept = []
    monkeypatch.setattr(faults.os, "_exit", exit_)
    monkeypatch.setattr(faults.time, "sleep", slept.append)
    monkeypatch.setattr(faults, "_calls", 0)  # nondeterminism: the first call of a process
    out = []
    for _ in range(calls or (len(t.actual) if isinstance(t.actual, tuple) else 1)):
        try:
            value = getattr(row, t.level)(t.hyp, t.refs)
        except _Exit as e:
            out.append(f"exits {e.args[0]}")
            continue
        except Exception as e:  # noqa: BLE001
            out.append(f"raises {type(e).__name__}")
            continue
        if slept:
            out.append(f"sleeps {slept.pop():g}")
        elif value is None or (isinstance(value, float) and math.isnan(value)):
            out.append(repr(value))
        else:
            out.append(value)
    return out


def agrees(observed: list, actual) -> bool:
    wanted = actual if isinstance(actual, tuple) else (actual,)
    return len(observed) == len(wanted) and all(
        o == w if isinstance(o, str) else stated(o, w) for o, w in zip(observed, wanted))


# ----------------------------------------------------------------------------- the rows


def test_rows_name_registry_families_and_claims():
    assert len(BUGS) == 36 and {r.name for r in CORRECT} == {
        "correct_float", "correct_float_chrfpp", "correct_exact", "correct_exact_chrfpp"}
    for r in P.ROWS:
        assert r.level in ("sentence", "corpus"), r.name
        assert set(r.claims) == set(CLAIMS_CHRF), r.name
        assert set(r.ops) <= {"sentence", "corpus"} and "sentence" in r.ops, r.name
        assert r.what and "\n" not in r.what, r.name
    for r in BUGS:
        assert r.family in REGISTRY, r.family
        assert r.name == r.family.replace("-", "_")
        assert r.triggers and r.triggers[0].level == r.level, r.name  # a trigger where it shows
        assert bool(r.switches) != (r.impl is not None), r.name  # a switch, or hand-written
    assert list(P.planted()) == [r.family for r in BUGS]
    # a row is an attribute of the package: no row may be shadowed by a submodule
    assert not set(P.names()) & {m.name for m in pkgutil.iter_modules(P.__path__)}


@pytest.mark.parametrize("row", P.ROWS, ids=lambda r: r.name)
def test_specs_resolve(row):
    [adapter] = resolve(row.spec("sentence"), corpus_impl=row.spec("corpus"), overrides=row.claims,
                        isolate=False)
    try:
        # both callables: the row; one: its spec
        assert adapter.name == (f"tests.planted:{row.name}" if row.spec("corpus") else row.spec("sentence"))
        assert (adapter.supports.sentence, adapter.supports.corpus) == ("sentence" in row.ops, "corpus" in row.ops)
        assert adapter.claims.beta == row.claims["beta"] and adapter.claims.word_order == row.claims["word_order"]
        # reports write the repro as ``<name>.sentence(...)`` and import ``<name>`` from the package
        for op in row.ops:
            src = adapter.sources[op]
            assert (src.module, src.qualname) == ("tests.planted", f"{row.name}.{op}")
            assert getattr(importlib.import_module(src.module), row.name) is row
    finally:
        adapter.close()


def test_a_missing_callable_is_a_one_line_error():
    row = P.get("references_averaged")
    assert row.spec("corpus") is None and row.spec("sentence") == "tests.planted:references_averaged.sentence"
    with pytest.raises(AdapterError, match="has no attribute 'references_averaged.corpus'"):
        resolve(corpus_impl="tests.planted:references_averaged.corpus", isolate=False)
    with pytest.raises(AdapterError, match="cannot import module 'tests.planted.beta_not_squared'"):
        resolve("tests.planted.beta_not_squared:sentence", isolate=False)  # the old module spec


def test_two_rows_of_one_module_keep_two_names():
    a, b = (resolve(P.get(n).spec("sentence"), corpus_impl=P.get(n).spec("corpus"), isolate=False)[0]
            for n in ("wrong_beta", "no_clipping"))
    mixed = resolve(P.get("wrong_beta").spec("sentence"), corpus_impl=P.get("no_clipping").spec("corpus"),
                    isolate=False)[0]
    try:
        assert (a.name, b.name) == ("tests.planted:wrong_beta", "tests.planted:no_clipping")
        assert mixed.name == "tests.planted"  # no shared object: the module, as for mod:f + mod:g
    finally:
        for x in (a, b, mixed):
            x.close()


# ----------------------------------------------------------------------------- the triggers


@pytest.mark.parametrize("row, trigger", TRIGGERS, ids=[f"{r.name}-{i}" for r in BUGS for i in range(len(r.triggers))])
def test_trigger_replays(row, trigger, monkeypatch):
    assert stated(reference(row, trigger), trigger.expected), (str(trigger), float(reference(row, trigger)))
    observed = observe(row, trigger, monkeypatch)
    assert agrees(observed, trigger.actual), (str(trigger), observed)
    if all(isinstance(o, float) for o in observed):  # a value bug: the value differs
        assert any(Fraction(o) != reference(row, trigger) for o in observed)


@pytest.mark.parametrize("row", CORRECT, ids=lambda r: r.name)
def test_correct_rows_agree_with_the_reference_on_every_trigger(row, monkeypatch):
    for _, t in TRIGGERS:
        [value] = observe(row, t, monkeypatch, calls=1)
        assert abs(value - reference(row, t)) < 1e-9, (row.name, str(t))


def test_the_checks_refuse_a_wrong_statement(monkeypatch):
    """The replay is not a rubber stamp: the triggers the modules' docstrings stated before
    the table (three were wrong) and near misses are refused."""
    assert not stated(83.3449, "83.33") and not stated(99.9999999, "100") and not stated(float("nan"), "0")
    assert stated(Fraction(250, 3), "83.33") and stated(100.0, "100")
    old = {"float32_arithmetic": Trigger("aa", ["a", ""], "55.555557", "55.555556"),
           "format_characters_deleted": Trigger("a\ufeff", ["a"], "100", "45.45"),
           "unmatched_segment_reference_dropped": Trigger(["ab", "xy"], [["ab"], ["zz"]], "55.56", "35.71")}
    for name, t in old.items():
        row = P.get(name)
        assert not stated(reference(row, t), t.expected)
    # a fault that does not fire, and an outcome stated for a value
    assert not agrees(observe(P.get("crash"), Trigger("a", ["a"], "exits 1", "100"), monkeypatch), "exits 1")
    assert not agrees(observe(P.get("correct_float"), Trigger("", [""], "None", "0"), monkeypatch), "None")
    assert not agrees(observe(P.get("nondeterminism"), Trigger("a", ["a"], ("100", "100"), "100"), monkeypatch),
                      ("100", "100"))
