"""Metamorphic relations catch what no bug model describes, and stay quiet otherwise."""

from audit.adapters import resolve
from audit.collect.runner import run_audit


def _families(spec=None, corpus=None, **claims):
    adapters = resolve(spec, corpus_impl=corpus, overrides=claims or None, timeout=10)
    try:
        result = run_audit(adapters, seed=0, max_examples=40, cases_dir=None, derandomize=True)
    finally:
        for a in adapters:
            a.close()
    return {f.family: f for f in result.findings}


def _breaking(found: dict, relation: str):
    """The finding that reports ``relation``: the relation's own, or the unexplained row it
    is folded into (its inputs diverge in a way no model explains: issue 30), which names it."""
    if relation in found:
        return found[relation]
    f = found["unexplained"]
    assert relation in f.absorbs and f"it breaks {relation}" in f.evidence, (f.absorbs, f.evidence)
    return f


def test_segment_order_dependence_is_reported():
    found = _families(corpus="tests.planted_metamorphic.order_dependent:corpus")
    f = _breaking(found, "metamorphic-segment-order")
    assert f.level == "corpus"
    hyps = f.minimal.inputs["hypotheses"]
    assert len(hyps) >= 2
    assert f.minimal.actual != f.minimal.expected


def test_added_reference_penalty_is_reported():
    found = _families("tests.planted_metamorphic.reference_penalty:sentence")
    f = _breaking(found, "metamorphic-added-reference")
    assert len(f.minimal.inputs["references"]) >= 2
    assert f.minimal.actual < f.minimal.expected


def test_correct_implementation_breaks_no_relation():
    found = _families("tests.planted:correct_exact.sentence", corpus="tests.planted:correct_exact.corpus")
    assert found == {}
