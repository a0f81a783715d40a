"""The families of bugs in statistical procedures (confidence intervals, paired tests).

Kept apart from ``audit.diagnose.families`` (score families): a stats finding is about a *procedure*
(an interval, a p-value), not about one score.  Each family has a stable kebab-case id, a
one-sentence title, the statistical test its check uses, and that check's false-alarm rate
on a correct procedure at the default settings (``audit.stats.runner.DEFAULTS``).  The rates
are upper bounds computed from the tests' thresholds; ``benchmarks/bench_stats_false_alarms.py``
measures them over 20 seeds on the correct procedures.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class StatsFamily:
    id: str
    title: str
    test: str
    false_alarm: str


FAMILIES: dict[str, StatsFamily] = {f.id: f for f in [
    StatsFamily(
        "ci-point-estimate",
        "the interval's point estimate is not the corpus score from summed segment statistics",
        "on every answer, |estimate - exact reference corpus score| > 1e-9, beyond float32 rounding "
        "(a rounding-sized difference is low-precision)",
        "0 (deterministic)",
    ),
    StatsFamily(
        "ci-contains-estimate",
        "the interval does not contain its own point estimate",
        "on every answer, low <= estimate <= high, exact (no tolerance; the gap is reported); an "
        "exclusion is a finding where any correct interval contains the estimate: every resample is "
        "the corpus itself (one segment, or every float64 resample scoring the same), or the estimate "
        "lies well inside the float64 bootstrap distribution (the fraction of 2000 resamples below it "
        "within [alpha/2 + 0.05, 1 - alpha/2 - 0.05]); elsewhere inconclusive",
        "0 (deterministic given the procedure's answers; inputs verified)",
    ),
    StatsFamily(
        "sentence-scores",
        "the procedure resamples sentence scores instead of recomputing corpus chrF from "
        "summed segment statistics",
        "on inputs where corpus chrF and the mean sentence chrF differ by far more than the "
        "Monte Carlo error, each reported bound (or p-value) is located against two float64 "
        "models (summed statistics, sentence scores), each replicated over 30 seeds: z-score "
        "to the model's replicate mean in units of its replicate SD, threshold |z| > 6; with a known "
        "draw, the float64 replay over sentence scores reproduces the answer",
        "<= 5e-6 per located answer (two-sided t(29) tail at 6 for each of two bounds)",
    ),
    StatsFamily(
        "low-precision",
        "bounds, p-values or the estimate differ from float64 arithmetic by rounding (float32 or "
        "coarser storage or arithmetic)",
        "(a) known draw (claimed, or identified: a known draw whose float64 replay reproduces the "
        "first answers to 1e-3): every answer is replayed in float64 on its own resamples; a "
        "difference > 1e-9 that is at most 64 float32 ulps on every answer (for p-values: counts "
        "that differ only where a resample ties the observed value to rounding) is rounding, which "
        "the replay removes; (b) unknown draw: all >= 4 non-integer bounds are float32 numbers, or "
        "a p-value is float32(k/(N+1)); (c) the point estimate within float32 rounding of the "
        "float64 corpus score",
        "(a), (c) 0: deterministic; (b) <= 2**-29 per value",
    ),
    StatsFamily(
        "construction",
        "bounds or p-values are not the procedure's claimed construction over summed statistics "
        "(another quantile, standard error, statistic or p-value rule), beyond rounding and Monte "
        "Carlo error",
        "(a) known draw: the float64 replay of the claimed construction on the procedure's own "
        "resamples differs by more than float32 rounding on some answer; (b) any draw: an answer "
        "disagrees with the float64 model over summed statistics beyond Monte Carlo error (|z| > 6) "
        "and matches no sentence-score model either",
        "(a) 0: deterministic; (b) as sentence-scores",
    ),
    StatsFamily(
        "pairing",
        "the paired test does not pair segment i of one system with segment i of the other "
        "(p-value changes when the systems are swapped, ignores a shuffle of one system, or "
        "misreads the documented argument layout)",
        "(a) swap: identical p-values with the same seed, else a two-proportion z-test "
        "|z| > 6 between the two p-values; (b) on a corpus whose references repeat in groups, "
        "one system is shuffled inside the groups (its scores unchanged, its pairing broken): "
        "the paired reference p-value goes from 1/(N+1) to > 0.2 and the procedure's must "
        "follow (p <= 0.05 before, > 0.05 after); (c) the arguments laid out as the "
        "documentation says give the reference p-value (same test as b)",
        "< 1e-8 (normal tails at 6; p-values ~2e-4 and ~0.6 by design against the 0.05 cut)",
    ),
    StatsFamily(
        "calibration",
        "p-values are not uniform under the null, the type-I error rate is not alpha, or the "
        "interval's coverage is far from 1 - alpha",
        "T = 200 datasets with two systems exchangeable by construction: Kolmogorov-Smirnov "
        "distance of the p-values from uniform (critical value at 1e-3 plus the p-value "
        "grid 1/(N+1)) and an exact two-sided binomial test of #{p <= alpha} against alpha "
        "(level 1e-3); coverage: T = 200 corpora drawn from a pool with known corpus chrF, "
        "exact binomial test of the coverage count against 1 - alpha +- 0.06 (level 1e-3)",
        "<= 2e-3 per paired test (KS and binomial at 1e-3 each); <= 1e-3 per alpha for an interval",
    ),
    StatsFamily(
        "side-effects",
        "a call changes its caller's process: the lists or numpy arrays it was given, numpy.random's "
        "global state or Python's random state",
        "the procedure is called where it runs (its worker, or chrf-audit's process for its own "
        "procedures) on Python lists and on numpy arrays; the arguments are deep-copied before and "
        "compared after, both global generators seeded before and compared after; any change",
        "0 (deterministic)",
    ),
    StatsFamily(
        "robustness",
        "the procedure crashes, raises, hangs or returns a non-finite, unordered or "
        "out-of-range result (on an edge case or any other input), gives p < 1 for identical "
        "systems, or is not deterministic for a fixed seed",
        "every answer of every check must be finite, ordered and in range (one finding per input "
        "site, with the first failing input); edge inputs: one segment, empty segments, a "
        "resample scoring exactly 0 or 100, a single resample; identical systems must get p = 1 "
        "(every relabelling ties); two calls with the same seed must agree exactly",
        "0 (deterministic)",
    ),
]}


def title(family_id: str) -> str:
    fam = FAMILIES.get(family_id)
    return fam.title if fam else family_id
