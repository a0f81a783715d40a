"""The families of bugs in statistical procedures (confidence intervals, paired tests).

Kept apart from ``audit.families`` (score families): a stats finding is about a *procedure*
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
        "the interval does not contain its own point estimate, or the point estimate is not "
        "the corpus score from summed segment statistics",
        "deterministic comparison with the exact reference corpus score (|difference| > 1e-9) "
        "and low - 1e-4 <= point <= high + 1e-4; an exclusion is a finding only where a "
        "correct interval contains the estimate with margin (its bootstrap quantile, from 2000 "
        "float64 resamples, within [alpha/2 + 0.05, 1 - alpha/2 - 0.05]), else inconclusive",
        "0 (deterministic given the procedure's own draw; inputs pre-checked)",
    ),
    StatsFamily(
        "sentence-scores",
        "the procedure resamples sentence scores instead of recomputing corpus chrF from "
        "summed segment statistics",
        "on inputs where corpus chrF and the mean sentence chrF differ by far more than the "
        "Monte Carlo error, each reported bound (or p-value) is located against two float64 "
        "models (summed statistics, sentence scores), each replicated over 30 seeds: z-score "
        "to the model's replicate mean in units of its replicate SD, threshold |z| > 6; the "
        "report gives the models' separation in SD units",
        "<= 5e-6 per procedure (two-sided t(29) tail at 6 for each of two bounds)",
    ),
    StatsFamily(
        "low-precision",
        "bounds or p-values do not agree with a float64 computation over summed statistics "
        "(low-precision arithmetic such as float32, or an error beyond Monte Carlo error)",
        "(a) when the procedure's draw is known (claimed, or identified: a known draw that "
        "reproduces two seeded calls to 1e-3), the same draw is recomputed in float64 and any "
        "difference > 1e-9 is a finding; (b) otherwise a "
        "returned value that is exactly a float32 number where the float64 value is not (all "
        "of >= 4 such values) is a finding; (c) the Monte Carlo agreement of (sentence-scores)",
        "(a) 0: deterministic; (b) <= 2**-29 per value; (c) as sentence-scores",
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
        "follow (binomial z-test against each, |z| > 6); (c) the arguments laid out as the "
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
        "robustness",
        "the procedure crashes, raises, hangs or returns a non-finite, unordered or "
        "out-of-range result on an edge case (one segment, empty segments, a resample "
        "scoring exactly 0 or 100, identical systems, a single resample), or is not "
        "deterministic for a fixed seed",
        "deterministic edge inputs; for identical systems a valid test must give p = 1 "
        "(every relabelling ties); two calls with the same seed must agree exactly",
        "0 (deterministic)",
    ),
]}


def title(family_id: str) -> str:
    fam = FAMILIES.get(family_id)
    return fam.title if fam else family_id
