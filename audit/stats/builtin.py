"""Built-in procedures: the project's own float64 procedures (``audit.impact.significance``, the
correct baseline every check must pass, run in-process: it is not under audit) and sacreBLEU's
chrF interval and paired tests.

sacreBLEU is code under audit, so its procedures never run it in chrf-audit's process: each
one owns a callable worker (``audit.stats.callables.CallableProcess``) hosting a function of
``audit.stats.sacrebleu_calls``, which also sets ``SACREBLEU_SEED`` there for each call.  A
crash, hang or exception of sacreBLEU is an Outcome, i.e. a robustness finding.
"""

from __future__ import annotations

from reference_impl import ChrfParams
from ..impact import significance as sig
from ..adapters.isolation import _AUDIT_ROOT
from .callables import CallableProcedure, CallableProcess
from .data import make_corpus
from . import side_effects
from ..upstream.library import installed_version
from .procedures import EXCEPTION, Outcome, Procedure, StatsClaims, data_lines, guarded, streams

ALL = frozenset({"resamples", "alpha", "seed"})
TIMEOUT = 120.0  # seconds per sacreBLEU call: hang detection only (``stats --timeout``)


class ReferenceCI(Procedure):
    """audit.impact.significance.bootstrap_ci over the exact reference's segment statistics."""

    kind, name, library = "ci", "chrf-audit:ci", "chrf-audit"
    source = "audit/impact/significance.py:bootstrap_ci"
    can_probe = True

    def __init__(self, params: ChrfParams | None = None):
        self.claims = StatsClaims(params=params or ChrfParams.make(), accepts=ALL,
                                  draw="numpy-choice")

    def _fn(self, hyps, refs, *, resamples, alpha, seed) -> dict:
        c = make_corpus(hyps, refs, self.claims.params)
        r = sig.bootstrap_ci(c.stats, self.claims.params, resamples=resamples, alpha=alpha, seed=seed)
        return {"score": r.score, "low": r.low, "high": r.high}

    def ci(self, hyps, refs, *, resamples, alpha, seed, layout="segments"):
        return guarded(lambda: self._fn(hyps, refs, resamples=resamples, alpha=alpha, seed=seed), "ci")

    def probe(self, form, hyps, refs, args, hyps_b=None):
        return _probe(self._fn, "ci", form, hyps, refs, args, None)


class ReferencePaired(Procedure):
    """audit.impact.significance.paired_permutation / paired_bootstrap over segment statistics."""

    kind, library = "paired", "chrf-audit"
    can_probe = True

    def __init__(self, test: str = "permutation", params: ChrfParams | None = None):
        self.test = test
        self.name = f"chrf-audit:paired-{test}"
        self.source = f"audit/impact/significance.py:paired_{test}"
        self.claims = StatsClaims(params=params or ChrfParams.make(), accepts=ALL,
                                  statistic="bootstrap-t" if test == "bootstrap" else test,
                                  draw="numpy-choice")

    def _fn(self, hyps_a, hyps_b, refs, *, resamples, seed) -> dict:
        p = self.claims.params
        a, b = make_corpus(hyps_a, refs, p), make_corpus(hyps_b, refs, p)
        fn = sig.paired_permutation if self.test == "permutation" else sig.paired_bootstrap
        key = "trials" if self.test == "permutation" else "resamples"
        return {"p_value": fn(a.stats, b.stats, p, **{key: resamples}, seed=seed).p_value}

    def paired(self, hyps_a, hyps_b, refs, *, resamples, seed, layout="segments"):
        return guarded(lambda: self._fn(hyps_a, hyps_b, refs, resamples=resamples, seed=seed), "paired")

    def probe(self, form, hyps, refs, args, hyps_b=None):
        return _probe(self._fn, "paired", form, hyps, refs, args, hyps_b)


def _probe(fn, kind, form, hyps, refs, args, hyps_b):
    """The side-effect probe in chrf-audit's own process (these procedures are not under
    audit: trusted, and cheap to call here)."""
    kw = {k: args[k] for k in (("resamples", "alpha", "seed") if kind == "ci" else ("resamples", "seed"))}
    res, error, changes = side_effects.probe(fn, kind, side_effects.arguments(kind, form, hyps, refs, hyps_b), kw)
    if error is not None:
        return Outcome(EXCEPTION, None, f"{type(error).__name__}: {error}"[:300]), changes
    return guarded(lambda: res, kind), changes


def _metric_kwargs(params: ChrfParams) -> dict:
    """sacreBLEU's ``CHRF`` constructor arguments for ``params`` (plain JSON data, sent to
    the worker with every call)."""
    return {"char_order": params.char_order, "word_order": params.word_order, "beta": int(params.beta),
            "lowercase": params.lowercase, "whitespace": params.whitespace,
            "eps_smoothing": params.definition == "sacrebleu-eps"}


class _SacrebleuWorker(CallableProcedure):
    """A sacreBLEU procedure whose calls run in its own worker process (sacreBLEU is code under
    audit): ``audit.stats.sacrebleu_calls:<function>`` hosted by the callable worker, started
    at the first call (so a crash at start-up is a finding too), with chrf-audit's root, not
    the current directory, first on its path.  Names, claims, sources and snippets stay
    sacreBLEU's; the calls get the reference streams and the metric's arguments."""

    library = "sacrebleu"

    def _host(self, function: str, timeout: float) -> None:
        self.spec = f"audit.stats.sacrebleu_calls:{function}"
        self.version = installed_version("sacrebleu")  # metadata: runs none of sacreBLEU's code
        self.process = CallableProcess(self.spec, self.kind, timeout, import_dir=_AUDIT_ROOT)

    def _kw(self, resamples, seed, alpha=None) -> dict:
        return dict(super()._kw(resamples, seed, alpha), metric=_metric_kwargs(self.claims.params))

    def _refs(self, refs, layout):
        return streams(refs)  # what sacreBLEU documents, whatever layout the check asked for


_HEAD = "import os\nos.environ['SACREBLEU_SEED'] = {seed!r}\nfrom sacrebleu.metrics import CHRF\n"


def _data_lines(call: dict) -> str:
    return "".join(line + "\n" for line in data_lines(call))


class SacrebleuCI(_SacrebleuWorker):
    """``CHRF().corpus_score(hyps, refs, n_bootstrap=R)``: sacreBLEU's 95% interval,
    reported as mu +- ci (mean of the bootstrap scores +- half the 2.5..97.5% range)."""

    kind, name, library = "ci", "sacrebleu:ci", "sacrebleu"
    source = "sacrebleu/metrics/base.py:Metric.corpus_score, sacrebleu/significance.py:_bootstrap_resample"

    def __init__(self, params: ChrfParams | None = None, timeout: float = TIMEOUT):
        self.claims = StatsClaims(
            params=params or ChrfParams.make(), accepts=frozenset({"resamples", "seed"}),
            alpha=0.05, min_resamples=2, interval="sacrebleu", draw="numpy-choice",
            documented_layout="streams")
        self._host("ci", timeout)

    def snippet(self, call: dict) -> str:
        return (_HEAD.format(seed=str(call.get("seed"))) + _data_lines(call) +
                "refs_streams = [list(x) for x in zip(*refs)]  # sacreBLEU takes reference streams\n"
                f"s = CHRF().corpus_score(hyps, refs_streams, n_bootstrap={call.get('resamples')})\n"
                "print(s.score, s._mean - s._ci, s._mean + s._ci)\n")


class SacrebleuPaired(_SacrebleuWorker):
    """``sacrebleu.significance.PairedTest`` (``--paired-ar`` / ``--paired-bs``) for chrF."""

    kind, library = "paired", "sacrebleu"

    def __init__(self, test: str = "ar", params: ChrfParams | None = None, timeout: float = TIMEOUT):
        if test not in ("ar", "bs"):
            raise ValueError(f"sacreBLEU's paired tests are 'ar' and 'bs', got {test!r}")
        self.test = test
        self.name = f"sacrebleu:paired-{test}"
        self.source = f"sacrebleu/significance.py:_paired_{test}_test, _compute_p_value"
        self.claims = StatsClaims(
            params=params or ChrfParams.make(), accepts=frozenset({"resamples", "seed"}),
            resamples=10000 if test == "ar" else 1000, statistic="permutation" if test == "ar" else "bootstrap",
            strict=True, draw="numpy-choice", documented_layout="streams")
        self._host(f"paired_{test}", timeout)

    def snippet(self, call: dict) -> str:
        return (_HEAD.format(seed=str(call.get("seed"))) +
                "from sacrebleu.significance import PairedTest\n" + _data_lines(call) +
                "refs_streams = [list(x) for x in zip(*refs)]\n"
                f"pt = PairedTest([('a', hyps), ('b', hyps_b)], {{'chrF': CHRF()}}, refs_streams, "
                f"test_type={self.test!r}, n_samples={call.get('resamples')})\n"
                "_, scores = pt()\nprint(scores['chrF2'][1].p_value)\n")


def reference_procedures(params: ChrfParams | None = None) -> list[Procedure]:
    return [ReferenceCI(params), ReferencePaired("permutation", params), ReferencePaired("bootstrap", params)]


def sacrebleu_procedures(params: ChrfParams | None = None, timeout: float = TIMEOUT) -> list[Procedure]:
    """sacreBLEU's three procedures, each with its own worker (close them)."""
    return [SacrebleuCI(params, timeout), SacrebleuPaired("ar", params, timeout),
            SacrebleuPaired("bs", params, timeout)]
