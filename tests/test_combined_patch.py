"""One combined patch per implementation (issue 23, item 3): a single diff against the
released source that fixes every family with a patch, verified on the path of
``validate-patch`` (``verify_suggested``: all fixed, none introduced), while each
per-family patch still applies on its own to the released source."""

from __future__ import annotations

from pathlib import Path

import pytest

from audit import upstream
from audit.enrich import enrich
from audit.enrich.verification import COMBINED, verification_jobs
from audit.patches import FIXED, combined_patch, fixes_all, verify_suggested
from audit.upstream.patching import PatchError, apply_to_copy, apply_unified_diff
from tests.fixtures.report_examples import example_result, nltk_findings
from tests.test_upstream_patches import FAMILIES, PROBES, _installed_digest, _run

REL = "nltk/translate/chrf_score.py"


def _site() -> Path:
    import nltk

    return Path(nltk.__file__).parent.parent


@pytest.fixture(scope="module")
def before():
    return [f.to_dict() for f in nltk_findings()]


def test_combined_patch_fixes_every_family_on_a_copy_of_the_released_source(tmp_path, before):
    digest = _installed_digest()
    c = combined_patch("nltk", before)
    assert c.families == FAMILIES and c.files == [REL]
    assert c.diff.startswith(f"--- a/{REL}\n+++ b/{REL}\n")
    # the validate-patch machinery: the copy audited, each before repro replayed on it
    v = c.validation
    assert v.error is None and c.verified is True and fixes_all(v, FAMILIES)
    assert {s.family: s.status for s in v.families} == {f: FIXED for f in FAMILIES}
    for s in v.families:  # each repro now scores exactly what the reference says
        want = next(f for f in before if f["family"] == s.family)
        assert s.note == "" and s.before == want["actual"] and s.after == pytest.approx(want["expected"], abs=1e-9)
    # every family's probe passes on the patched copy (each fails on the installed nltk)
    root = apply_to_copy(c.diff, _site(), tmp_path / "site")
    assert [_run(PROBES[f], root) for f in FAMILIES] == ["True"] * 4
    assert _installed_digest() == digest


def test_combined_nltk_is_sacrebleu_at_beta_3(tmp_path):
    """The patched corpus_chrf computes the claimed definition on inputs none of the repros
    use (several segments, short ones, whitespace of every kind)."""
    root = apply_to_copy(upstream.combined_patch("nltk", FAMILIES)["diff"], _site(), tmp_path / "site")
    code = (
        "from nltk.translate.chrf_score import corpus_chrf, sentence_chrf\n"
        "from sacrebleu.metrics import CHRF\n"
        "hyps = ['The cat\\u2003sat.', 'a', '', 'xyz\\x1fq', 'the the the']\n"
        "refs = ['A cat sat on\\tthe mat.', 'a', 'b', 'xyzq', 'the cat']\n"
        "c = CHRF(beta=3)\n"
        "ok = abs(100 * corpus_chrf(refs, hyps) - c.corpus_score(hyps, [refs]).score) < 1e-9\n"
        "ok &= all(abs(100 * sentence_chrf(r, h) - c.sentence_score(h, [r]).score) < 1e-9 for h, r in zip(hyps, refs))\n"
        "print(ok)"
    )
    assert _run(code, root) == "True"


def test_each_per_family_patch_still_applies_alone(tmp_path):
    site = _site()
    for family in FAMILIES:
        root = apply_to_copy(upstream.patch("nltk", family), site, tmp_path / family)
        assert (root / REL).read_text() != (site / REL).read_text()
    # ... but not one after the other: why the combined patch exists
    root = apply_to_copy(upstream.patch("nltk", "requested-order-divisor"), site, tmp_path / "both")
    with pytest.raises(PatchError, match="does not apply"):
        apply_unified_diff(upstream.patch("nltk", "corpus-macro-average"), root)


def test_patches_that_do_not_overlap_combine_one_after_the_other(tmp_path):
    """Families whose edits are disjoint combine as their per-family patches applied in
    turn; overlapping ones without a combined edit give no combined patch; one family
    gives none (its own patch is the whole fix)."""
    pair = ["requested-order-divisor", "whitespace-set-white-space"]
    combined = upstream.combined_patch("nltk", pair)
    assert combined["families"] == pair
    site = _site()
    one = apply_to_copy(combined["diff"], site, tmp_path / "combined")
    turn = apply_to_copy(upstream.patch("nltk", pair[0]), site, tmp_path / "turn")
    apply_unified_diff(upstream.patch("nltk", pair[1]), turn)
    assert (one / REL).read_text() == (turn / REL).read_text()
    assert upstream.combined_patch("nltk", ["requested-order-divisor", "f-score-averaged"]) is None
    assert upstream.combined_patch("nltk", ["f-score-averaged", "no-clipping"]) is None
    assert upstream.combined_patch("sacrebleu", FAMILIES) is None
    assert upstream.combined_patch("mypkg.chrf:f", FAMILIES) is None


def test_verified_means_every_family_fixed_and_none_introduced():
    """``fixes_all``: a validation fixing three of four families does not verify a patch
    meant for four, nor one that introduces a family, nor one whose copy failed."""
    from audit.patches import INTRODUCED, STILL, FamilyStatus, Validation

    def validation(statuses, error=None):
        return Validation("nltk", "p", None, [REL], {}, {}, error=error,
                          families=[FamilyStatus("nltk", f, s, "sentence", {}, 1.0, 0.0, 1.0) for f, s in statuses])

    three = validation([(f, FIXED) for f in FAMILIES[:3]] + [(FAMILIES[3], STILL)])
    assert fixes_all(three, FAMILIES[:3]) and not fixes_all(three, FAMILIES)
    assert not fixes_all(validation([(f, FIXED) for f in FAMILIES] + [("x", INTRODUCED)]), FAMILIES)
    assert not fixes_all(validation([(f, FIXED) for f in FAMILIES], error="does not import"), FAMILIES)
    assert fixes_all(validation([(f, FIXED) for f in FAMILIES]), FAMILIES)


def test_the_enriched_result_carries_the_combined_patch():
    res = example_result()
    [nltk] = [a for a in res.adapters if a.implementation == "nltk"]
    jobs = verification_jobs(nltk)
    assert [j[1] for j in jobs] == FAMILIES + [COMBINED]
    assert jobs[-1][2] == upstream.combined_patch("nltk", FAMILIES)["diff"]
    plain = enrich(res, with_upstream=True, verified={("nltk", COMBINED): True})
    got = plain.combined_patch("nltk")
    assert got["families"] == FAMILIES and got["files"] == [REL] and got["verified"] is True
    assert got["diff"] == jobs[-1][2]
    assert enrich(res).combined_patch("nltk")["verified"] is None  # not checked
    assert enrich(res, with_upstream=False).combined_patches == {}
    assert all(a.implementation == "nltk" for a in res.adapters if plain.combined_patch(a.implementation))


def test_torchmetrics_combined_patch_fixes_its_three_families():
    """torchmetrics' per-family edits do not overlap: they combine one after the other, and
    the combined patch, verified against the committed report's repros, fixes all three."""
    pytest.importorskip("torch")
    pytest.importorskip("torchmetrics")
    import json

    from tests.docs_harness import ROOT

    doc = json.loads((ROOT / "reports" / "torchmetrics" / "audit.json").read_text(encoding="utf-8"))
    before = [f for f in doc["findings"] if f["implementation"] == "torchmetrics-chrf"]
    c = combined_patch("torchmetrics-chrf", before)
    assert set(c.families) == {"float32-arithmetic", "hypothesis-ngrams-where-reference-has-none",
                               "unmatched-segment-reference-dropped"}
    assert c.verified is True, c.validation
    assert {s.status for s in c.validation.families} == {FIXED}
