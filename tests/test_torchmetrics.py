"""torchmetrics' chrF: the built-in adapters give torchmetrics' own numbers, the upstream
knowledge finds its source lines, its patches fix what they say on a temporary copy, and the
repro snippets print the reported values.  Skipped where torchmetrics is not installed (CI
installs ``.[test]`` only: ``pip install '.[torchmetrics]'`` to run these)."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from fractions import Fraction
from pathlib import Path

import pytest

torchmetrics = pytest.importorskip("torchmetrics")
from torchmetrics.functional.text import chrf_score  # noqa: E402
from torchmetrics.text import CHRFScore  # noqa: E402

from audit import upstream  # noqa: E402
from audit.adapters import Claims, resolve  # noqa: E402
from audit.findings import Finding, Repro  # noqa: E402
from audit.upstream._base import module_source  # noqa: E402
from audit.upstream.patching import apply_to_copy  # noqa: E402
from audit.diagnose.models import variant_score
from audit.diagnose.text_model import text_stats
from audit.diagnose.variants import ScoreVariant, TextVariant
from reference_impl import ChrfParams, corpus_score, sentence_score  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def adapters():
    ads = {a.name: a for a in resolve("torchmetrics", isolate=False)}
    yield ads
    for a in ads.values():
        a.close()


def test_claims_and_description(adapters):
    assert list(adapters) == ["torchmetrics-chrf", "torchmetrics-chrf++"]
    pp = adapters["torchmetrics-chrf++"]
    assert pp.claims == Claims(word_order=2, definition="chrfpp", scale=1)
    assert adapters["torchmetrics-chrf"].claims.word_order == 0
    assert pp.version == torchmetrics.__version__
    assert pp.supports.multi_reference and pp.supports.sentence and pp.supports.corpus
    assert pp.sources["sentence"].qualname == "chrf_score"
    assert pp.sources["corpus"].qualname == "CHRFScore.compute"


def test_adapter_gives_torchmetrics_numbers(adapters):
    a = adapters["torchmetrics-chrf++"]
    items = [("the cat sat", ["the cat sat on the mat", "a cat"]), ("c", ["c"]), ("", ["abc"])]
    got = [o.value for o in a.sentence_scores(items)]
    want = [100 * chrf_score([h], [r]).item() for h, r in items]
    assert got == want
    # float32: 1/6 is 0.1666666716337204, not 0.16666666666666666
    assert adapters["torchmetrics-chrf"].sentence_scores([("c", ["c"])])[0].value == 100 * 0.1666666716337204
    hyps, refs = ["ab", "xy", "the cat"], [["ab"], ["z"], ["the cat", "a dog"]]
    metric = CHRFScore()
    metric.update(hyps, refs)
    assert a.corpus_scores([(hyps, refs)])[0].value == pytest.approx(100 * metric.compute().item(), abs=1e-5)


def test_unmatched_segment_drops_its_references(adapters):
    # "xy" matches nothing of "zzzz": torchmetrics adds its hypothesis n-grams and none of
    # the reference's, so the corpus score goes UP compared with the definition.
    hyps, refs = ["ab", "xy"], [["ab"], ["zzzz"]]
    got = adapters["torchmetrics-chrf"].corpus_scores([(hyps, refs)])[0].value
    expected = float(corpus_score(hyps, refs, definition="chrfpp").score)
    assert got > expected + 10
    # exactly the two models: its hypothesis n-grams all count, its reference n-grams none
    params = ChrfParams.make(word_order=0, definition="chrfpp")
    raw = text_stats(list(zip(hyps, refs)), params, TextVariant(hyp_where_no_ref=True))
    model = variant_score(raw, params, ScoreVariant(unmatched_dropped=True), "corpus")
    assert got == pytest.approx(float(model), rel=1e-6)
    # 250/9 plus the chrfpp document score's 1e-16 substitutes for the orders without a match
    assert 0 < model - Fraction(250, 9) < Fraction(1, 10**12)


def test_upstream_resolution_by_adapter_name():
    assert upstream.get("torchmetrics-chrf++").name == "torchmetrics"
    assert upstream.get("sacrebleu-chrf++-eps").name == "sacrebleu"  # was a KeyError
    assert upstream.get("nltk").name == "nltk"
    for other in ("torchmetrics.functional.text:chrf_score", "external:node chrf.js", "sacrebleu-x",
                  "mylib", "nltk-chrf x:y"):
        assert not upstream.is_builtin(other), other
        with pytest.raises(KeyError):
            upstream.get(other)
    assert upstream.version("torchmetrics-chrf") == torchmetrics.__version__
    # the sacreBLEU adapters now reach their root-cause table
    assert upstream.root_cause("sacrebleu-chrf", "no-clipping")["function"] == "CHRF._get_match_statistics"


FAMILY_LINES = {
    "float32-arithmetic": "matching_n_grams[n] / hyp_n_grams[n]",
    "hypothesis-ngrams-where-reference-has-none": "_sum_over_dicts(total_preds_char_n_grams, pred_char_n_grams)",
    "unmatched-segment-reference-dropped": "if f_score > best_f_score:",
}


@pytest.mark.parametrize("family", sorted(FAMILY_LINES))
def test_root_cause_points_at_the_line(family):
    rc = upstream.root_cause("torchmetrics-chrf", family)
    assert rc["file"] == "torchmetrics/functional/text/chrf.py"
    path, _, text = module_source("torchmetrics.functional.text.chrf")
    assert FAMILY_LINES[family] in text.splitlines()[rc["line"] - 1]


def test_root_cause_lines_are_one_per_family_and_lent_to_no_other():
    """empty-input-perfect used to get the unmatched-segment line and patch: torchmetrics scores
    empty input 0 (no such bug), so it gets neither."""
    assert chrf_score([""], [[""]]).item() == 0.0
    lines = {upstream.root_cause("torchmetrics-chrf", f)["line"] for f in FAMILY_LINES}
    assert len(lines) == len(FAMILY_LINES)
    assert upstream.root_cause("torchmetrics-chrf", "empty-input-perfect") is None
    assert upstream.patch("torchmetrics-chrf", "empty-input-perfect") is None
    assert upstream.patch_description("torchmetrics-chrf", "empty-input-perfect") is None


# family -> a probe printing the torchmetrics value and the reference's, which the patch
# must make equal (within float64 noise) while the installed package keeps them apart
PROBES = {
    "float32-arithmetic": ("from torchmetrics.functional.text import chrf_score\n"
                       "print(100 * chrf_score(['c'], [['c']], n_word_order=0).item())", ("c", ["c"]), 0),
    "hypothesis-ngrams-where-reference-has-none": (
        "from torchmetrics.text import CHRFScore\n"
        "m = CHRFScore(n_word_order=0)\nm.update(['abc', 'abc'], [['abc'], ['a']])\nprint(100 * m.compute().item())",
        (["abc", "abc"], [["abc"], ["a"]]), 0),
    "unmatched-segment-reference-dropped": (
        "from torchmetrics.text import CHRFScore\n"
        "m = CHRFScore(n_word_order=0)\nm.update(['ab', 'xy'], [['ab'], ['zzzz']])\nprint(100 * m.compute().item())",
        (["ab", "xy"], [["ab"], ["zzzz"]]), 0),
}


def _probe(code: str, pythonpath: str | None) -> float:
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    return float(out.stdout.strip())


@pytest.mark.parametrize("family", sorted(PROBES))
def test_patch_fixes_its_family_on_a_copy(family):
    diff = upstream.patch("torchmetrics-chrf", family)
    assert diff and diff.startswith("--- a/torchmetrics/functional/text/chrf.py")
    code, inputs, nw = PROBES[family]
    if isinstance(inputs[0], str):
        want = float(sentence_score(inputs[0], inputs[1], word_order=nw, definition="chrfpp").score)
    else:
        want = float(corpus_score(inputs[0], inputs[1], word_order=nw, definition="chrfpp").score)
    before = _probe(code, None)
    _, site_dir, _ = module_source("torchmetrics.functional.text.chrf")
    with tempfile.TemporaryDirectory() as tmp:
        apply_to_copy(diff, site_dir, Path(tmp))
        after = _probe(code, tmp)
    assert abs(before - want) > 1e-9  # the installed torchmetrics has the bug
    tol = 1e-12 if family == "float32-arithmetic" else 1e-4  # other patches keep float32
    assert abs(after - want) <= tol, (before, after, want)


def _finding(level, inputs, family, expected: Fraction, actual: float, claims: dict) -> Finding:
    m = Repro(level=level, inputs=inputs, expected=float(expected), expected_fraction=str(expected),
              actual=actual, actual_raw=repr(actual / 100), outcome="value")
    return Finding(implementation="torchmetrics-chrf", family=family, level=level, title=family, claims=claims,
                   reference_signature="", implementation_signature="", minimal=m, largest=m)


def test_repro_snippets_run_and_print_the_reported_value(adapters):
    a = adapters["torchmetrics-chrf"]
    claims = a.claims.to_dict()
    exp_s = sentence_score("c", ["c"], definition="chrfpp").score
    act_s = a.sentence_scores([("c", ["c"])])[0].value
    hyps, refs = ["ab", "xy"], [["ab"], ["zzzz"]]
    exp_c = corpus_score(hyps, refs, definition="chrfpp").score
    act_c = a.corpus_scores([(hyps, refs)])[0].value
    for f in (_finding("sentence", {"hypothesis": "c", "references": ["c"]}, "float32-arithmetic", exp_s, act_s, claims),
              _finding("corpus", {"hypotheses": hyps, "references": refs}, "unmatched-segment-reference-dropped",
                       exp_c, act_c, claims)):
        snippet = upstream.repro_snippet("torchmetrics-chrf", f)
        assert "import" in snippet and "audit" not in snippet.split("\n", 3)[-1]
        out = subprocess.run([sys.executable, "-c", snippet], capture_output=True, text=True, check=True,
                             cwd=tempfile.gettempdir())
        assert float(out.stdout) == pytest.approx(f.minimal.actual / 100, abs=1e-7)
        assert f"prints {f.minimal.actual_raw}" in snippet
