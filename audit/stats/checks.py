"""Shared pieces of the checks: settings, results, and the ledger of a procedure's answers.

A check returns ``CheckResult`` records, one per sub-check, with status ``pass``,
``finding`` or ``inconclusive`` (the inputs did not have the property the check needs: never
a finding).  Findings carry the exact call (inputs and arguments), so a report can print a
repro that imports only the audited library.

Every call the checks make goes through a ``Session``, which records each answer (input,
arguments, outcome) in a ledger.  A check runs in two steps: it *plans* (builds its inputs
and asks its calls, which returns at once) and returns an *evaluation* that reads the
answers.  For a procedure in another process, one background thread makes the calls in the
order they were asked (so the results do not depend on timing), while chrf-audit's own
process builds the next inputs and its float64 models: the two processes work at the same
time instead of waiting for each other.  A check uses whatever numbers an answer holds, even when
the answer is invalid (bounds in the wrong order, p = 0): one bad answer never hides another
family.  The checks that hold for *every* answer (robustness of the outcome, the point
estimate, exact containment, the float64 replay of the procedure's own draw) run over the
whole ledger at the end (``audit.stats.checks_answers``).
"""

from __future__ import annotations

import math
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Callable, Optional

import numpy as np

from . import stat_tests as T
from .data import Corpus
from .procedures import CRASH, Outcome, Procedure


@dataclass(frozen=True)
class Settings:
    """Default sizes: each check's false-alarm rate (audit.stats.families) holds for these."""

    seed: int = 0
    resamples: int = 1000          # resamples / trials of a single audited call
    replicates: int = 30           # Monte Carlo replicates of each float64 model
    trials: int = 200              # calibration: datasets under the null / coverage corpora
    null_segments: int = 30
    calibration_resamples: int = 199
    coverage_segments: int = 60
    coverage_resamples: int = 300
    pool: int = 300
    one_segment_corpora: int = 20  # exact containment where every resample is the corpus
    largest: int = 3000            # the largest corpus size (WMT test sets: 2000-3000)
    large: int = 1000              # from this size on, calls use ``large_resamples``
    large_resamples: int = 200

    def rng(self, salt: int) -> np.random.Generator:
        return np.random.default_rng([self.seed, salt])

    def sizes(self) -> list[int]:
        """Corpus sizes from 1 to ``largest``: both ends, and one size drawn log-uniformly
        from each decade below ``large`` (2..9, 10..99, 100..999): any size threshold below
        ``largest`` (such as "n > 100") is crossed at every seed, with one large corpus."""
        rng = self.rng(20)
        edges = [2, 10, 100, self.large]
        decades = [(lo, min(hi, self.largest)) for lo, hi in zip(edges, edges[1:]) if lo < min(hi, self.largest)]
        drawn = [min(max(int(round(math.exp(rng.uniform(math.log(lo), math.log(hi))))), lo), hi - 1)
                 for lo, hi in decades]
        return sorted({1, *drawn, self.largest})

    def resamples_at(self, n: int) -> int:
        return self.large_resamples if n >= self.large else self.resamples


@dataclass
class CheckResult:
    procedure: str
    family: str
    check: str
    status: str                       # "pass", "finding", "inconclusive"
    summary: str
    test: str = ""
    call: Optional[dict] = None
    expected: Optional[dict] = None
    actual: Optional[dict] = None
    outcome: str = "value"
    evidence: dict = field(default_factory=dict)

    @property
    def is_finding(self) -> bool:
        return self.status == "finding"


Evaluation = Callable[[], list["CheckResult"]]


def done(out) -> Future:
    f: Future = Future()
    f.set_result(out)
    return f


@dataclass
class Answer:
    """One call and what came back.  ``values`` holds every finite number the answer has,
    valid or not (None when there is none: a crash, an exception, NaN)."""

    site: str                 # where the call was made ("coverage corpus", "3000 segments")
    rec: dict                 # the call (inputs and arguments): the repro
    pending: Future           # the Outcome (and, for a probe, the changes)
    corpus: Corpus            # the interval's corpus, or system A
    other: Optional[Corpus] = None   # system B of a paired call
    replay: bool = True       # the float64 replay of the procedure's draw applies
    robust: bool = True       # a failed outcome here is a robustness finding

    @property
    def out(self) -> Outcome:
        got = self.pending.result()
        return got[0] if isinstance(got, tuple) else got

    @property
    def changes(self) -> list:
        got = self.pending.result()
        return list(got[1]) if isinstance(got, tuple) else []

    @property
    def values(self) -> Optional[dict]:
        vals = self.out.values
        if not isinstance(vals, dict):
            return None
        keys = ("score", "low", "high") if self.other is None else ("p_value",)
        if not all(isinstance(vals.get(k), float) and math.isfinite(vals[k]) for k in keys):
            return None
        return {k: vals[k] for k in keys}


class Session:
    """The audit of one procedure: every call is asked here and kept in ``answers``."""

    def __init__(self, proc: Procedure, settings: Settings, stop: Optional[threading.Event] = None):
        self.proc, self.settings = proc, settings
        self.stop = stop or threading.Event()   # set: the audit failed, no further calls
        self.answers: list[Answer] = []
        self.draw: Optional[str] = None      # the procedure's draw, claimed or identified
        self.mc_sd: Optional[tuple] = None   # (Monte Carlo SD of a bound, its resamples)
        self._calls = ThreadPoolExecutor(1, "chrf-audit-stats-calls") if proc.remote else None

    def _submit(self, fn) -> Future:
        def call():
            return Outcome(CRASH, None, "not called: the audit stopped") if self.stop.is_set() else fn()
        return self._calls.submit(call) if self._calls else done(call())

    def args(self, *, resamples=None, alpha=None, seed=None) -> dict:
        return args_for(self.proc, self.settings, resamples=resamples, alpha=alpha, seed=seed)

    def ask(self, site: str, corpus: Corpus, args: dict, other: Optional[Corpus] = None,
            layout: str = "segments", replay: bool = True) -> Answer:
        """Ask for one call (made in order, possibly later); returns its pending answer."""
        proc = self.proc
        rec = {"hyps": list(corpus.hyps), "refs": [list(r) for r in corpus.refs], **args}
        if layout != "segments":
            rec["layout"] = layout
        if proc.kind == "ci":
            fn = lambda: proc.ci(corpus.hyps, corpus.refs, resamples=args["resamples"],  # noqa: E731
                                 alpha=args["alpha"], seed=args["seed"], layout=layout)
        else:
            rec["hyps_b"] = list(other.hyps)
            fn = lambda: proc.paired(corpus.hyps, other.hyps, corpus.refs,  # noqa: E731
                                     resamples=args["resamples"], seed=args["seed"], layout=layout)
        ans = Answer(site, rec, self._submit(fn), corpus, other, replay and layout == "segments")
        self.answers.append(ans)
        return ans

    def probe(self, form: str, corpus: Corpus, args: dict, other: Optional[Corpus] = None) -> Optional[Answer]:
        """Ask for the side-effect probe on ``form``; None when the procedure has none.  A
        failure on numpy arrays is no robustness finding (lists are the documented form)."""
        if not self.proc.can_probe:
            return None
        rec = {"hyps": list(corpus.hyps), "refs": [list(r) for r in corpus.refs], **args, "form": form}
        if other is not None:
            rec["hyps_b"] = list(other.hyps)
        fn = lambda: self.proc.probe(form, corpus.hyps, corpus.refs, args,  # noqa: E731
                                     other.hyps if other is not None else None)
        ans = Answer(f"side-effect probe ({form})", rec, self._submit(fn), corpus, other, robust=form == "lists")
        self.answers.append(ans)
        return ans

    def close(self, wait: bool = True) -> None:
        """Stop the calls.  ``wait=False`` (on an error): the call under way is not waited
        for; closing the procedure then ends it (its worker is killed)."""
        if not wait:
            self.stop.set()
        if self._calls:
            self._calls.shutdown(wait=wait, cancel_futures=True)


def args_for(proc: Procedure, settings: Settings, *, resamples=None, alpha=None, seed=None) -> dict:
    """The arguments a call passes: what the procedure accepts, else its fixed claims."""
    c = proc.claims
    r = resamples if resamples is not None else settings.resamples
    out = {
        "resamples": max(int(r), c.min_resamples) if "resamples" in c.accepts else c.resamples,
        # 1000 + seed: some procedures treat seed 0 as "no seed" (robustness checks seed 0)
        "seed": ((1000 + settings.seed) if seed is None else seed) if "seed" in c.accepts else None,
    }
    if proc.kind == "ci":
        out["alpha"] = (alpha if alpha is not None else c.alpha) if "alpha" in c.accepts else c.alpha
    return out


def unusable(proc: Procedure, family: str, check: str, ans: Answer) -> CheckResult:
    """A check that needs an answer's numbers and has none: inconclusive (the failure
    itself is reported once, under robustness, by ``checks_answers``)."""
    return CheckResult(proc.name, family, check, "inconclusive",
                       f"no usable answer on {ans.site} ({ans.out.kind}: {ans.out.detail[:120]}); "
                       "see robustness")


def locate(proc: Procedure, check: str, z_stat: float, z_sent: float, test: str, ans: Answer,
           expected: dict, what: str, model_sent: str, evidence: dict, detail: str = "") -> CheckResult:
    """Where a Monte Carlo answer lies: on the float64 model over summed statistics (pass),
    on the sentence-score model only (``sentence-scores``), or on neither (``construction``:
    never ``low-precision``, which only a replay of the procedure's own draw can establish).
    An unseeded procedure's answer is shown as ``VARIES`` (``unseeded``)."""
    actual = shown_values(ans, unseeded(proc))
    if z_stat <= T.Z:
        return CheckResult(proc.name, "sentence-scores", check, "pass",
                           f"{what} agrees with the float64 model over summed statistics",
                           test, evidence=evidence)
    if z_sent <= T.Z:
        return CheckResult(proc.name, "sentence-scores", check, "finding",
                           f"{what} is that of the mean sentence score ({model_sent}), not of corpus "
                           f"chrF from summed statistics ({_show(expected)}){detail}", test, ans.rec,
                           expected, actual, evidence=evidence)
    return CheckResult(proc.name, "construction", check, "finding",
                       f"{what} disagrees with the float64 model over summed statistics "
                       f"({_show(expected)}) beyond Monte Carlo error, and is no sentence-score "
                       f"result either ({model_sent}){detail}", test, ans.rec, expected, actual,
                       evidence=evidence)


def unseeded(proc: Procedure) -> bool:
    """Whether the procedure's answers are Monte Carlo draws it takes no seed for (evaluatio's
    permutation test: its resampling runs in Rust on an unseeded generator).  They change
    from run to run, so the checks report where such an answer lies (its verdict, against
    the seeded float64 models) and never its digits, in the markdown and in stats.json:
    ``chrf-audit stats`` writes the same bytes every run."""
    return "seed" not in proc.claims.accepts


#: what an unseeded answer's number is replaced with in a report
VARIES = "unseeded, varies from run to run"


def shown_values(ans: Answer, varies: bool):
    """An answer's values as a report shows them (an unseeded one's digits are not shown)."""
    vals = ans.out.values
    return {k: VARIES for k in vals} if varies and isinstance(vals, dict) else vals


def side(p: float, at: float = 0.05) -> str:
    """A p-value's side of ``at`` (what a check decided on: as stable as its verdict)."""
    return f"<= {at:g}" if p <= at else f"> {at:g}"


def z_side(z: float) -> str:
    return f"|z| > {T.Z:g}" if z > T.Z else f"|z| <= {T.Z:g}"


def _show(d: dict) -> str:
    return ", ".join(f"{k} {fmt(v)}" for k, v in d.items())


def fmt(x) -> str:
    return "None" if x is None else f"{x:.6g}" if isinstance(x, float) else str(x)
