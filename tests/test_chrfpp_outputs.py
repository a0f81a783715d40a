"""The ``chrfpp`` definition against Popovic's chrF++.py, on every CI run, without the script.

``tests/data/chrfpp_outputs.json`` holds the script's own outputs (plain numbers) on 222
fixed documents: the hand-made cases under four parameter sets, its misbehaviour on segments
that match nothing, and 200 seeded random documents with tabs, NBSP, U+3000, punctuation.
Regenerate it with ``python tests/data/make_chrfpp_outputs.py /path/to/chrF++.py``; the
tests in test_reference_differential.py that run the script itself still need
``CHRFPP_SCRIPT``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reference_impl import corpus_score, sentence_score

DATA = json.loads((Path(__file__).parent / "data" / "chrfpp_outputs.json").read_text(encoding="utf-8"))
DOCS = DATA["documents"]
TOL = 1e-9  # on 0..100


def _kw(doc) -> dict:
    return dict(char_order=doc["char_order"], word_order=doc["word_order"], beta=doc["beta"], definition="chrfpp")


def _float_tie(h, refs, kw) -> bool:
    """References whose exact F ties with different statistics: float decides, not the
    definition (the script may pick either; the sentence score is the same)."""
    cands = [sentence_score(h, [r], **kw) for r in refs]
    top = max(c.score for c in cands)
    tied = [c for c in cands if c.score == top]
    if len({c.stats for c in tied}) > 1:
        return True
    others = sorted((c.score for c in cands if c.score != top), reverse=True)
    return bool(others) and top - others[0] <= 1e-12


def _script_segments(doc, kw):
    """The segments whose counts the script really sums: a segment that matches none of its
    references re-adds the previous segment's counts (its best-reference variables are
    still bound), so it is replaced by that segment with its best reference."""
    out = []
    for h, refs in zip(doc["hypotheses"], doc["references"]):
        result = sentence_score(h, refs, **kw)
        if result.score > 0:
            out.append((h, [refs[result.chosen_reference]]))
        else:
            out.append(out[-1])
    return out


def test_the_data_covers_what_it_claims():
    assert len(DOCS) == 222
    assert sum("error" in d for d in DOCS) >= 20
    assert sum(any(not isinstance(s, float) or s == 0 for s in d.get("sentences", [])) for d in DOCS) >= 20
    assert any("\u3000" in h for d in DOCS for h in d["hypotheses"])


@pytest.mark.parametrize("i", range(len(DOCS)))
def test_definition_matches_script_document(i):
    doc = DOCS[i]
    kw = _kw(doc)
    hyps, refs = doc["hypotheses"], doc["references"]
    sentences = [sentence_score(h, r, **kw) for h, r in zip(hyps, refs)]
    if "error" in doc:
        # the script crashes exactly when its first segment matches none of its references
        assert doc["error"] == "UnboundLocalError"
        assert sentences[0].score == 0
        return
    assert sentences[0].score > 0
    for s, theirs in zip(sentences, doc["sentences"]):
        if isinstance(theirs, str):  # a one-line document of a non-matching segment crashes
            assert theirs == "UnboundLocalError" and s.score == 0
        else:
            assert abs(float(s.score) - 100 * theirs) <= TOL
    if any(_float_tie(h, r, kw) for h, r in zip(hyps, refs)):
        return  # an exact tie between references with different statistics: float picks one
    segments = _script_segments(doc, kw)
    ours = corpus_score([h for h, _ in segments], [r for _, r in segments], **kw).score
    assert abs(float(ours) - 100 * doc["document"]) <= TOL, (ours, doc["document"])
    if all(s.score > 0 for s in sentences):  # the definition's own corpus score, unmodified
        assert abs(float(corpus_score(hyps, refs, **kw).score) - 100 * doc["document"]) <= TOL


def test_enough_documents_are_checked_in_full():
    kw_docs = [(d, _kw(d)) for d in DOCS if "error" not in d]
    full = [d for d, kw in kw_docs if not any(_float_tie(h, r, kw) for h, r in zip(d["hypotheses"], d["references"]))]
    assert len(full) >= 120


@pytest.mark.parametrize("case", DATA["cli"], ids=lambda c: f"cli-{len(c['hypotheses'])}seg")
def test_script_command_line_lines(case):
    kw = _kw(case)
    nc, nw, b = case["char_order"], case["word_order"], case["beta"]
    hyps, refs = case["hypotheses"], case["references"]
    tag = f"c{nc}+w{nw}"
    expected = [f"{i}::{tag}-F{b}\t{float(sentence_score(h, r, **kw).score):.4f}"
                for i, (h, r) in enumerate(zip(hyps, refs), 1)]
    expected.append(f"{tag}-F{b}\t{float(corpus_score(hyps, refs, **kw).score):.4f}")
    mean = sum(sentence_score(h, r, **kw).score for h, r in zip(hyps, refs)) / len(hyps)
    expected.append(f"{tag}-avgF{b}\t{float(mean):.4f}")
    assert case["lines"] == expected
