"""Statistical procedures under audit: one small interface for intervals and paired tests.

A procedure takes *texts* (hypotheses, segment-major references) as its library does, and
returns an ``Outcome``.  Its ``StatsClaims`` say what it computes, so that each check can
build the float64 model it is held to: which parameters it accepts (resamples, alpha, seed),
how the interval is built from the resampled scores (``interval``), which test statistic
and p-value rule a paired test uses, which random draw it makes (``draw``: when known, the
audit replays the very same resamples in float64), and in which layout its documentation
says references are passed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Callable, Optional, Sequence

import numpy as np

from reference_impl import ChrfParams

#: Outcome kinds, as for scores (docs/report-schema.md).
VALUE, EXCEPTION, CRASH, TIMEOUT, INVALID = "value", "exception", "crash", "timeout", "invalid"


@dataclass(frozen=True)
class Outcome:
    kind: str
    values: Optional[dict] = None     # {"score", "low", "high"} or {"p_value"}
    detail: str = ""
    effects: Optional[tuple] = None   # a probe's answer: what the call changed in its caller

    @property
    def ok(self) -> bool:
        return self.kind == VALUE


@dataclass(frozen=True)
class StatsClaims:
    params: ChrfParams = field(default_factory=ChrfParams.make)
    resamples: int = 1000               # the default (or fixed) number of resamples / trials
    alpha: float = 0.05                 # the default (or fixed) level of the interval
    accepts: frozenset = frozenset()    # subset of {"resamples", "alpha", "seed"}
    min_resamples: int = 1              # fewer means "no resampling" by API design
    interval: str = "percentile"        # how (low, high) is built from resampled scores
    statistic: str = "permutation"      # paired: "permutation", "bootstrap" (Moses/sacreBLEU)
                                        # or "bootstrap-t" (audit.impact.significance)
    strict: bool = False                # paired: count |d| > observed (True) or >= (False)
    draw: Optional[str] = None          # a known random draw (see DRAWS), replayed in float64
    documented_layout: str = "segments" # "segments": refs[i] = refs of segment i; "streams"

    def replace(self, **kw) -> "StatsClaims":
        return replace(self, **kw)


class Procedure:
    """Base class.  ``kind`` is "ci" or "paired"; ``name`` e.g. ``sacrebleu:ci``."""

    kind: str = "ci"
    name: str = "procedure"
    library: str = ""
    version: Optional[str] = None
    claims: StatsClaims = StatsClaims()
    source: str = ""                    # where the procedure lives (for reports)
    remote: bool = False                # runs in another process (its calls are waited for)
    can_probe: bool = False             # ``probe`` is implemented (the side-effect check)

    def ci(self, hyps, refs, *, resamples, alpha, seed, layout="segments") -> Outcome:
        raise NotImplementedError

    def paired(self, hyps_a, hyps_b, refs, *, resamples, seed, layout="segments") -> Outcome:
        raise NotImplementedError

    def probe(self, form: str, hyps, refs, args: dict, hyps_b=None):
        """Call the procedure in the caller's process (for a callable: its worker's) on
        Python lists (``form`` "lists") or numpy arrays ("numpy") and report what the call
        changed there: ``(Outcome, [change, ...])`` (``audit.stats.side_effects``).  Only where
        ``can_probe``: an external program gets JSON, unless it runs the probe itself."""
        raise NotImplementedError

    def snippet(self, call: dict) -> str:
        """A standalone repro of ``call`` that imports only the audited library."""
        return f"# no snippet for {self.name}\n# call: {call!r}\n"

    def close(self) -> None:
        pass


# --------------------------------------------------------------------------- models


def interval_from(scores: np.ndarray, alpha: float, kind: str) -> tuple[float, float]:
    """The claimed construction of (low, high) from resampled scores, in float64."""
    if kind == "percentile":
        lo, hi = np.quantile(np.asarray(scores, dtype=np.float64), [alpha / 2, 1 - alpha / 2])
        return float(lo), float(hi)
    if kind == "sacrebleu":  # sacrebleu.significance.estimate_ci: mean +- half the 95% range
        s = np.sort(np.asarray(scores, dtype=np.float64))
        lower_idx = len(s) // 40
        half = 0.5 * (s[len(s) - lower_idx - 1] - s[lower_idx])
        mean = float(s.mean())
        return mean - half, mean + half
    raise ValueError(f"unknown interval construction {kind!r}")


def _draw_choice(seed, n: int, resamples: int) -> np.ndarray:
    return np.random.default_rng(seed).choice(n, size=(resamples, n), replace=True)


def _draw_columns(seed, n: int, resamples: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.stack([rng.integers(0, n, size=resamples) for _ in range(n)], axis=1)


#: Known bootstrap draws: name -> (seed, n_segments, resamples) -> indices (resamples, n).
DRAWS: dict[str, Callable[..., np.ndarray]] = {
    # sacreBLEU _bootstrap_resample / _paired_bs_test, audit.impact.significance
    "numpy-choice": _draw_choice,
    # evaluatio chrf_ci: one rng.integers(0, n, size=resamples) per segment position
    "numpy-integers-per-position": _draw_columns,
}


def check_values(kind: str, values: dict) -> Optional[str]:
    """Why a returned value set is invalid (non-finite, unordered, out of range), or None."""
    keys = ("score", "low", "high") if kind == "ci" else ("p_value",)
    for k in keys:
        v = values.get(k)
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            return f"{k} is {v!r}, not a finite number"
    if kind == "ci":
        if not values["low"] <= values["high"]:
            return f"low {values['low']!r} > high {values['high']!r}"
        for k in keys:
            if not -1e-9 <= values[k] <= 100 + 1e-9:
                return f"{k} {values[k]!r} is outside 0..100"
    elif not 0.0 < values["p_value"] <= 1.0:
        return f"p-value {values['p_value']!r} is outside (0, 1]"
    return None


def outcome(kind: str, values: dict) -> Outcome:
    """The outcome of numeric ``values`` (floats): a value, or invalid with its reason (the
    numbers are kept: the other checks still use them)."""
    problem = check_values(kind, values)
    return Outcome(INVALID, values, problem) if problem else Outcome(VALUE, values)


def guarded(fn: Callable[[], dict], kind: str) -> Outcome:
    """Run one in-process call: an exception is an outcome, never the audit's crash."""
    try:
        values = fn()
    except Exception as e:  # noqa: BLE001 - any exception of the audited code is a finding
        return Outcome(EXCEPTION, None, f"{type(e).__name__}: {e}"[:300])
    try:
        values = {k: float(v) for k, v in values.items()}
    except (TypeError, ValueError) as e:
        return Outcome(INVALID, None, f"non-numeric result {values!r}: {e}"[:300])
    return outcome(kind, values)


def streams(refs: Sequence[Sequence[str]]) -> list[list[str]]:
    """Segment-major references -> sacreBLEU's reference streams (one list per reference)."""
    k = len(refs[0]) if refs else 0
    return [[r[j] for r in refs] for j in range(k)]


def data_lines(call: dict) -> list[str]:
    """The repro snippet's data assignments (``hyps``, ``hyps_b``, ``refs``) for the inputs
    ``call`` holds, shared by every procedure's ``snippet``."""
    import json

    return [f"{key} = {json.dumps(call[key], ensure_ascii=False)}" for key in ("hyps", "hyps_b", "refs")
            if key in call]
