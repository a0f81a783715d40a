"""Metamorphic relations: properties of any chrF implementation that need no reference.

Each relation scores a base input and a transformed one with the *implementation* and says
whether the two scores stand in the relation.  They catch what no bug model describes and
apply even where the claimed definition is in doubt.  The runner reports a violation only
when the differential search has not already explained the inputs involved.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

from hypothesis import strategies as st

from . import strategies as S

#: Code points each definition removes from character n-grams (whitespace not kept):
#: inserting one of them must not change the score.
_REMOVED = {
    "sacrebleu": S.WHITESPACE,
    "sacrebleu-eps": S.WHITESPACE,
    "chrfpp": " ",  # chrF++.py removes only U+0020 inside a line
}


@dataclass
class Violation:
    """Base and transformed inputs with the implementation's two scores."""

    level: str
    base: dict
    base_value: float
    transformed: dict
    transformed_value: float
    detail: str


@dataclass(frozen=True)
class Relation:
    family: str
    level: str
    applies: Callable  # (adapter) -> bool
    strategy: Callable  # (adapter) -> SearchStrategy of base inputs (+ transformation data)
    transform: Callable  # (case) -> (base inputs, transformed inputs)
    holds: Callable  # (base value or None, transformed value, tolerance) -> bool
    describe: str
    needs_base: bool = True  # False: the relation judges the transformed score alone


def _sentence(h, refs) -> dict:
    return {"hypothesis": h, "references": list(refs)}


def _identical_strategy(adapter):
    return S.texts(min_size=1).filter(lambda t: any(not c.isspace() for c in t))


def _segment_order_strategy(adapter):
    max_refs = adapter.supports.refs_limit(3)
    return S.corpus_inputs(max_refs=max_refs).filter(lambda c: len(c[0]) >= 2)


def _added_reference_strategy(adapter):
    return st.tuples(S.sentence_inputs(max_refs=adapter.supports.refs_limit(3) - 1), S.texts())


def _whitespace_strategy(adapter):
    removed = _REMOVED[adapter.claims.definition]
    return st.tuples(S.sentence_inputs(max_refs=1), st.integers(min_value=1, max_value=40), st.sampled_from(removed))


def _insert(case):
    (h, refs), pos, ch = case
    pos = min(pos, max(len(h) - 1, 1))  # inside the line: chrF++.py strips the ends
    return _sentence(h, refs), _sentence(h[:pos] + ch + h[pos:], refs)


RELATIONS = [
    Relation(
        "metamorphic-identical-not-perfect", "sentence",
        lambda a: a.supports.sentence and a.claims.definition == "sacrebleu" and not a.claims.whitespace,
        _identical_strategy,
        lambda t: (_sentence(t, [t]), _sentence(t, [t])),
        lambda base, new, tol: abs(new - 100) <= tol,
        "an identical non-empty hypothesis and reference must score 100 (effective-order definition)",
        needs_base=False,
    ),
    Relation(
        "metamorphic-segment-order", "corpus",
        lambda a: a.supports.corpus,
        _segment_order_strategy,
        lambda c: ({"hypotheses": list(c[0]), "references": [list(r) for r in c[1]]},
                   {"hypotheses": list(c[0])[::-1], "references": [list(r) for r in c[1]][::-1]}),
        lambda base, new, tol: abs(new - base) <= tol,
        "reversing the order of the segments must not change the corpus score",
    ),
    Relation(
        "metamorphic-added-reference", "sentence",
        lambda a: a.supports.sentence and a.supports.refs_limit(3) >= 2,
        _added_reference_strategy,
        lambda c: (_sentence(c[0][0], c[0][1]), _sentence(c[0][0], list(c[0][1]) + [c[1]])),
        lambda base, new, tol: new >= base - tol,
        "adding a reference must not lower a best-reference sentence score",
    ),
    Relation(
        "metamorphic-whitespace", "sentence",
        lambda a: a.supports.sentence and not a.claims.whitespace and a.claims.word_order == 0,
        _whitespace_strategy,
        _insert,
        lambda base, new, tol: abs(new - base) <= tol,
        "inserting whitespace that the definition removes must not change the score",
    ),
]


def score(adapter, level: str, inputs: dict) -> Optional[float]:
    """The implementation's score (0..100) or None when it gave no number."""
    if level == "sentence":
        out = adapter.sentence_scores([(inputs["hypothesis"], list(inputs["references"]))])[0]
    else:
        out = adapter.corpus_scores([(list(inputs["hypotheses"]), [list(r) for r in inputs["references"]])])[0]
    return out.value if out.kind == "value" else None


def check(relation: Relation, adapter, case, tolerance: float) -> Optional[Violation]:
    base, transformed = relation.transform(case)
    b = None
    if relation.needs_base:
        b = score(adapter, relation.level, base)
        if b is None:
            return None  # not a number: the differential search reports that outcome
    t = score(adapter, relation.level, transformed)
    if t is None:
        return None
    if relation.holds(b, t, tolerance):
        return None
    b_value = 100.0 if b is None else b
    return Violation(relation.level, base, b_value, transformed, t, f"{relation.describe}: {b_value!r} -> {t!r}")
