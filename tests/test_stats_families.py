"""The families that issue 24 added or sharpened, each against planted procedures
(tests/planted_stats_more.py): exact containment with its gap; low-precision only where a
float64 replay of the procedure's own draw removes the difference (construction errors get
their own family); every family reported after an invalid answer; side effects on the
caller; corpus sizes up to 3000 segments; and statistical bugs the first catalogue did not
describe, each named by the check that caught it."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from audit.cli import main
from audit.stats import builtin, callables
from audit.stats import stat_tests as T
from audit.stats.checks import Settings
from audit.stats.data import make_corpus
from audit.stats.runner import audit_procedure, run_stats
from reference_impl import ChrfParams

ROOT = Path(__file__).resolve().parents[1]
MORE = "tests.planted_stats_more"
FAST = Settings(trials=40, largest=300)     # sizes up to 300: enough to cross "n > 100"
SIZES = Settings(trials=40)                 # sizes up to 3000
P = ChrfParams.make()


def _audit(name: str, kind: str, settings: Settings = FAST, **claims):
    module = MORE if "." not in name else name.rsplit(".", 1)[0]
    spec = f"{module}:{name.rsplit('.', 1)[-1]}"
    proc = callables.make(spec, kind, **claims)
    try:
        return audit_procedure(proc, settings)
    finally:
        proc.close()


def _findings(results) -> dict:
    out: dict = {}
    for r in results:
        if r.is_finding:
            out.setdefault(r.family, []).append(r)
    return out


# --------------------------------------------------------------------------- sizes and helpers


def test_sizes_span_1_to_largest_one_per_decade():
    for seed in range(10):
        sizes = Settings(seed=seed).sizes()
        assert sizes[0] == 1 and sizes[-1] == 3000 and len(sizes) == 5
        assert [lo <= n < hi for n, (lo, hi) in zip(sizes[1:4], [(2, 10), (10, 100), (100, 1000)])] == [True] * 3
    assert Settings(largest=300).sizes()[-2] < 300


def test_rounding_is_measured_in_float32_ulps():
    assert T.ulp32(34.8) == float(np.spacing(np.float32(34.8)))
    assert T.rounding(2.7e-6, 34.8) and not T.rounding(1e-3, 34.8)
    assert T.ulp32(0.0) == T.ulp32(1.0)


# --------------------------------------------------------------------------- containment, labels


def test_float32_interval_excludes_its_estimate_by_the_float32_gap_and_earns_low_precision():
    """The old 1e-4 tolerance hid this: on one segment every resample is the corpus, and a
    float32 interval [float32(s), float32(s)] misses s by exactly |float32(s) - s|."""
    found = _findings(_audit("tests.planted_stats.ci_float32", "ci"))
    assert set(found) == {"ci-contains-estimate", "low-precision"}
    c = found["ci-contains-estimate"][0]
    corpus = make_corpus(c.call["hyps"], c.call["refs"], P)
    s = corpus.score(P)
    assert corpus.n == 1 and c.actual["score"] == s
    assert c.evidence["gap"] == abs(float(np.float32(s)) - s) > 0
    assert c.actual["low"] == c.actual["high"] == float(np.float32(s))
    assert "which contains it: the exclusion is rounding" in c.summary
    prec = found["low-precision"][0]
    assert prec.check == "float64 arithmetic" and prec.evidence["claimed_draw"] is False   # identified
    assert 0 < prec.evidence["max_error"] <= T.ROUNDING_ULPS * T.ulp32(100)
    assert prec.evidence["construction"] == 0 and prec.evidence["rounding"] > 50


def test_containment_is_exact_without_the_old_tolerance():
    """The same interval within 1e-4 of its estimate: a finding now (the gap is reported)."""
    results = _audit("tests.planted_stats.ci_float32_bounds", "ci")
    gap = next(r for r in results if r.family == "ci-contains-estimate").evidence["gap"]
    assert 0 < gap < 1e-4


@pytest.mark.parametrize("name, kind, expected, absent", [
    # a standard error divided by sqrt(n) twice: Monte Carlo disagreement, no replay possible
    ("ci_wrong_standard_error", "ci", {"construction"}, {"low-precision"}),
    # whole systems swapped instead of segments (labelled low-precision before)
    ("paired_whole_system_swap", "paired", {"construction", "pairing"}, {"low-precision"}),
])
def test_construction_errors_are_not_called_low_precision(name, kind, expected, absent):
    found = _findings(_audit(name, kind))
    assert expected <= set(found) and not absent & set(found), set(found)


def test_a_claimed_draw_is_replayed_and_a_wrong_level_is_construction():
    """alpha not halved: without a claimed draw the coverage at alpha=0.3 shows it; with
    one, the float64 replay of the very resamples shows the quantiles are not the claimed
    ones."""
    unclaimed = _findings(_audit("ci_one_sided_quantiles", "ci"))
    assert "calibration" in unclaimed and "low-precision" not in unclaimed
    claimed = _findings(_audit("ci_one_sided_quantiles", "ci", draw="numpy-choice"))
    rep = next(r for r in claimed["construction"] if r.check == "float64 replay of its own draw")
    assert rep.evidence["claimed_draw"] is True and rep.evidence["construction"] > 50
    assert rep.actual["high"] < rep.expected["high"]      # the 1 - alpha quantile, not 1 - alpha/2


# --------------------------------------------------------------------------- every family reported


def test_an_invalid_p_value_hides_no_other_family():
    results = _audit("paired_p_count_over_n", "paired")
    families = {r.family for r in results}
    assert families == {"sentence-scores", "low-precision", "pairing", "calibration", "side-effects", "robustness"}
    found = _findings(results)
    assert any("outside (0, 1]" in r.summary for r in found["robustness"])
    assert any(r.actual == {"p_value": 0.0} for r in found["robustness"])
    zero = [r for r in results if r.family == "sentence-scores" and r.evidence.get("p_value") == 0.0]
    assert zero and {r.status for r in zero} == {"pass"}          # p = 0 was still located
    cal = next(r for r in results if r.family == "calibration")
    assert cal.evidence["trials"] == 40                   # every null dataset counted


def test_unordered_bounds_hide_no_other_family():
    results = _audit("ci_bounds_reversed", "ci")
    found = _findings(results)
    assert set(found) == {"robustness", "ci-contains-estimate", "calibration"}
    assert any("> high" in r.summary for r in found["robustness"])
    for fam in ("ci-point-estimate", "sentence-scores", "low-precision", "side-effects"):
        assert {r.status for r in results if r.family == fam} == {"pass"}, fam


# --------------------------------------------------------------------------- side effects


@pytest.mark.parametrize("name, kind, forms, text", [
    ("ci_sorts_inputs", "ci", {"Python lists", "numpy arrays"}, "hypotheses: sorted in place"),
    ("ci_reseeds_numpy", "ci", {"Python lists", "numpy arrays"}, "numpy.random's global state changed"),
    ("paired_python_random", "paired", {"Python lists", "numpy arrays"}, "Python's random state changed"),
    ("paired_sorts_arrays", "paired", {"numpy arrays"}, "hypotheses_a: sorted in place"),
])
def test_side_effects_on_the_caller_are_findings(name, kind, forms, text):
    results = _audit(name, kind)
    found = _findings(results)
    assert set(found) == {"side-effects"}, set(found)     # the values themselves are right
    assert {r.check for r in found["side-effects"]} == forms
    assert all(text in r.summary for r in found["side-effects"])
    passed = {r.check for r in results if r.family == "side-effects" and r.status == "pass"}
    assert passed == {"Python lists", "numpy arrays"} - forms


def test_side_effect_repro_shows_the_change(tmp_path):
    rc = main(["stats", "--ci", f"{MORE}:ci_sorts_inputs", "--ci", f"{MORE}:ci_reseeds_numpy", "--trials", "20",
               "--quiet", "--reports-dir", str(tmp_path)])
    assert rc == 1
    doc = json.loads((tmp_path / "stats.json").read_text())
    assert {f["family"] for f in doc["findings"]} == {"side-effects"}
    md = (tmp_path / "tests.md").read_text()
    for block, expect in zip(md.split("```python\n")[1:], ("hyps CHANGED by the call", "next np.random.random()")):
        code = block.split("```")[0]
        out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stderr
        assert expect in out.stdout
    reseed = md.split("```python\n")[2].split("```")[0]
    out = subprocess.run([sys.executable, "-c", reseed], cwd=ROOT, capture_output=True, text=True, timeout=120)
    line = next(x for x in out.stdout.splitlines() if x.startswith("next np.random.random()"))
    got, expected = float(line.split()[2]), float(line.split()[4])
    assert got != expected                                # the caller's stream moved


def test_correct_procedures_have_no_side_effects():
    for proc in builtin.reference_procedures():
        run = run_stats([proc], FAST)
        assert {r.status for r in run.runs[0].results if r.family == "side-effects"} == {"pass"}
    res = _audit("tests.planted_stats.paired_correct", "paired")
    assert {(r.check, r.status) for r in res if r.family == "side-effects"} == {
        ("Python lists", "pass"), ("numpy arrays", "pass")}


# --------------------------------------------------------------------------- sizes


@pytest.mark.parametrize("name, kind, family, smallest", [
    ("ci_normal_above_100", "ci", "construction", 101),
    ("ci_resample_cap", "ci", "construction", 101),
    ("paired_normal_above_100", "paired", "construction", 101),
    ("ci_subsample_above_1000", "ci", "ci-point-estimate", 1001),
])
def test_methods_that_switch_above_a_size_are_found_there(name, kind, family, smallest):
    results = _audit(name, kind, SIZES)
    found = _findings(results)
    assert family in found and "low-precision" not in found, set(found)
    sizes = [n for r in found[family] for n in _sizes(r)]
    assert sizes and min(sizes) >= smallest, sizes
    # below the threshold the procedure is correct: no finding comes from a smaller corpus
    # (the edge cases and one-segment corpora included)
    assert all(min(_sizes(r) or [smallest]) >= smallest for r in results if r.is_finding)


def _sizes(r) -> list[int]:
    """The corpus sizes a finding comes from (its sites, or its located corpus)."""
    if "sites" in r.evidence:
        return [int(m.group(1)) if m else 0 for m in (re.match(r"(\d+) segments", site) for site in r.evidence["sites"])]
    return [r.evidence["segments"]] if "segments" in r.evidence else [len(r.call["hyps"])] if r.call and "hyps" in r.call else []


# --------------------------------------------------------------------------- more statistical bugs


@pytest.mark.parametrize("name, kind, family", [
    ("ci_bootstrap_mean_estimate", "ci", "ci-point-estimate"),
    ("paired_independent_resamples", "paired", "pairing"),
])
def test_more_statistical_bugs_are_named_by_the_check_that_caught_them(name, kind, family):
    found = _findings(_audit(name, kind))
    assert family in found and "low-precision" not in found, set(found)


def test_stable_cli_interface_exit_codes_and_findings(tmp_path):
    """``stats --ci/--paired SPEC --seed N --json PATH``: the findings list with family;
    exit 0 clean, 1 findings, 2 usage error."""
    clean, buggy = tmp_path / "clean.json", tmp_path / "buggy.json"
    assert main(["stats", "--paired", "tests.planted_stats:paired_correct", "--seed", "3", "--trials", "20",
                 "--quiet", "--json", str(clean)]) == 0
    doc = json.loads(clean.read_text())
    assert doc["findings"] == [] and doc["run"]["seed"] == 3
    assert main(["stats", "--ci", f"{MORE}:ci_reseeds_numpy", "--seed", "3", "--trials", "20", "--quiet",
                 "--json", str(buggy)]) == 1
    assert [f["family"] for f in json.loads(buggy.read_text())["findings"]] == ["side-effects"]
    with pytest.raises(SystemExit) as usage:       # argparse's one-line usage error
        main(["stats", "--ci", f"{MORE}:ci_reseeds_numpy", "--draw", "numpy-shuffle"])
    assert usage.value.code == 2


def test_p_value_rounding_is_earned_by_the_replay_not_assumed():
    """A count that differs from the float64 replay's only where a resample ties the observed
    value to rounding is precision; any other difference is not."""
    from audit.stats.checks_answers import _paired_kind
    from audit.stats.models import Null
    null = Null(np.array([0.5, 1.0 + 1e-6, 2.0, 3.0, 0.1, 0.2]), 1.0, False)
    assert null.count() == 3 and null.p == 4 / 7
    assert _paired_kind(null, 4 / 7) == "exact"
    assert _paired_kind(null, float(np.float32(4 / 7))) == "rounding"      # the p-value stored in float32
    assert _paired_kind(null, 3 / 7) == "rounding"      # 1.000001 rounded below 1: one near-tie flipped
    assert _paired_kind(null, 2 / 7) == "other"         # two counts off, one near-tie: not rounding
    assert _paired_kind(Null(null.stat, 1.0, True), 3 / 7) == "rounding"


def test_containment_counts_an_exclusion_only_where_a_correct_interval_cannot_miss():
    from audit.stats.checks_answers import _miss_chance
    scores = np.random.default_rng(0).normal(50, 2, size=2000)
    assert _miss_chance(scores, 50.0, 1000, 0.05) < 1e-6     # the median: no correct interval misses it
    assert _miss_chance(scores, 50.0, 1, 0.05) == 1.0        # one resample may miss anything
    assert _miss_chance(scores, 53.8, 1000, 0.05) > 1e-6     # in the tail: a correct interval may miss it


def test_procedures_audited_at_the_same_time_give_the_same_report():
    """--jobs: procedures with workers of their own are audited two at a time; the calls of
    each keep their order, so the report is the same as one at a time."""
    from audit.stats import report
    docs = []
    for jobs in (1, 2):
        procs = [callables.make(f"{MORE}:ci_reseeds_numpy", "ci"), callables.make(f"{MORE}:paired_p_count_over_n", "paired"),
                 builtin.ReferencePaired("permutation")]
        try:
            docs.append(report.to_json(run_stats(procs, Settings(trials=20, largest=200), jobs=jobs)))
        finally:
            for p in procs:
                p.close()
    assert docs[0] == docs[1]
    assert [f["family"] for f in json.loads(docs[0])["findings"]] == ["side-effects", "robustness"]
