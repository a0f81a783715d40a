"""Built-in procedures: the project's own float64 procedures (``audit.significance``, the
correct baseline every check must pass) and sacreBLEU's chrF interval and paired tests.

sacreBLEU reads its seed from the ``SACREBLEU_SEED`` environment variable at call time; the
procedures set it for the duration of one call and restore it.
"""

from __future__ import annotations

import contextlib
import json
import os

from reference_impl import ChrfParams
from .. import significance as sig
from .data import make_corpus
from .procedures import Procedure, StatsClaims, guarded, streams

ALL = frozenset({"resamples", "alpha", "seed"})


class ReferenceCI(Procedure):
    """audit.significance.bootstrap_ci over the exact reference's segment statistics."""

    kind, name, library = "ci", "chrf-audit:ci", "chrf-audit"
    source = "audit/significance.py:bootstrap_ci"

    def __init__(self, params: ChrfParams | None = None):
        self.claims = StatsClaims(params=params or ChrfParams.make(), accepts=ALL,
                                  draw="numpy-choice")

    def ci(self, hyps, refs, *, resamples, alpha, seed, layout="segments"):
        def run():
            c = make_corpus(hyps, refs, self.claims.params)
            r = sig.bootstrap_ci(c.stats, self.claims.params, resamples=resamples, alpha=alpha, seed=seed)
            return {"score": r.score, "low": r.low, "high": r.high}
        return guarded(run, "ci")


class ReferencePaired(Procedure):
    """audit.significance.paired_permutation / paired_bootstrap over segment statistics."""

    kind, library = "paired", "chrf-audit"

    def __init__(self, test: str = "permutation", params: ChrfParams | None = None):
        self.test = test
        self.name = f"chrf-audit:paired-{test}"
        self.source = f"audit/significance.py:paired_{test}"
        self.claims = StatsClaims(params=params or ChrfParams.make(), accepts=ALL,
                                  statistic="bootstrap-t" if test == "bootstrap" else test,
                                  draw="numpy-choice")

    def paired(self, hyps_a, hyps_b, refs, *, resamples, seed, layout="segments"):
        def run():
            p = self.claims.params
            a, b = make_corpus(hyps_a, refs, p), make_corpus(hyps_b, refs, p)
            fn = sig.paired_permutation if self.test == "permutation" else sig.paired_bootstrap
            key = "trials" if self.test == "permutation" else "resamples"
            return {"p_value": fn(a.stats, b.stats, p, **{key: resamples}, seed=seed).p_value}
        return guarded(run, "paired")


@contextlib.contextmanager
def _sacrebleu_seed(seed):
    old = os.environ.get("SACREBLEU_SEED")
    os.environ["SACREBLEU_SEED"] = "None" if seed is None else str(int(seed))
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("SACREBLEU_SEED", None)
        else:
            os.environ["SACREBLEU_SEED"] = old


def _metric(params: ChrfParams):
    from sacrebleu.metrics import CHRF
    return CHRF(char_order=params.char_order, word_order=params.word_order, beta=int(params.beta),
                lowercase=params.lowercase, whitespace=params.whitespace,
                eps_smoothing=params.definition == "sacrebleu-eps")


def _sacrebleu_version():
    import sacrebleu
    return sacrebleu.__version__


_HEAD = "import os\nos.environ['SACREBLEU_SEED'] = {seed!r}\nfrom sacrebleu.metrics import CHRF\n"


def _data_lines(call: dict) -> str:
    out = ""
    for key in ("hyps", "hyps_b", "refs"):
        if key in call:
            out += f"{key} = {json.dumps(call[key], ensure_ascii=False)}\n"
    return out


class SacrebleuCI(Procedure):
    """``CHRF().corpus_score(hyps, refs, n_bootstrap=R)``: sacreBLEU's 95% interval,
    reported as mu +- ci (mean of the bootstrap scores +- half the 2.5..97.5% range)."""

    kind, name, library = "ci", "sacrebleu:ci", "sacrebleu"
    source = "sacrebleu/metrics/base.py:Metric.corpus_score, sacrebleu/significance.py:_bootstrap_resample"

    def __init__(self, params: ChrfParams | None = None):
        self.version = _sacrebleu_version()
        self.claims = StatsClaims(
            params=params or ChrfParams.make(), accepts=frozenset({"resamples", "seed"}),
            alpha=0.05, min_resamples=2, interval="sacrebleu", draw="numpy-choice",
            documented_layout="streams")

    def ci(self, hyps, refs, *, resamples, alpha, seed, layout="segments"):
        def run():
            with _sacrebleu_seed(seed):
                s = _metric(self.claims.params).corpus_score(hyps, streams(refs), n_bootstrap=resamples)
            if resamples < 2:  # no bootstrap by API design: the interval is the point
                return {"score": s.score, "low": s.score, "high": s.score}
            return {"score": s.score, "low": s._mean - s._ci, "high": s._mean + s._ci}
        return guarded(run, "ci")

    def snippet(self, call: dict) -> str:
        return (_HEAD.format(seed=str(call.get("seed"))) + _data_lines(call) +
                "refs_streams = [list(x) for x in zip(*refs)]  # sacreBLEU takes reference streams\n"
                f"s = CHRF().corpus_score(hyps, refs_streams, n_bootstrap={call.get('resamples')})\n"
                "print(s.score, s._mean - s._ci, s._mean + s._ci)\n")


class SacrebleuPaired(Procedure):
    """``sacrebleu.significance.PairedTest`` (``--paired-ar`` / ``--paired-bs``) for chrF."""

    kind, library = "paired", "sacrebleu"

    def __init__(self, test: str = "ar", params: ChrfParams | None = None):
        self.test = test
        self.name = f"sacrebleu:paired-{test}"
        self.source = f"sacrebleu/significance.py:_paired_{test}_test, _compute_p_value"
        self.version = _sacrebleu_version()
        self.claims = StatsClaims(
            params=params or ChrfParams.make(), accepts=frozenset({"resamples", "seed"}),
            resamples=10000 if test == "ar" else 1000, statistic="permutation" if test == "ar" else "bootstrap",
            strict=True, draw="numpy-choice", documented_layout="streams")

    def paired(self, hyps_a, hyps_b, refs, *, resamples, seed, layout="segments"):
        def run():
            from sacrebleu.significance import PairedTest
            with _sacrebleu_seed(seed):
                metric = _metric(self.claims.params)
                pt = PairedTest([("a", list(hyps_a)), ("b", list(hyps_b))], {"chrF": metric},
                                streams(refs), test_type=self.test, n_samples=resamples)
                _, scores = pt()
            name = next(k for k in scores if k != "System")
            return {"p_value": scores[name][1].p_value}
        return guarded(run, "paired")

    def snippet(self, call: dict) -> str:
        return (_HEAD.format(seed=str(call.get("seed"))) +
                "from sacrebleu.significance import PairedTest\n" + _data_lines(call) +
                "refs_streams = [list(x) for x in zip(*refs)]\n"
                f"pt = PairedTest([('a', hyps), ('b', hyps_b)], {{'chrF': CHRF()}}, refs_streams, "
                f"test_type={self.test!r}, n_samples={call.get('resamples')})\n"
                "_, scores = pt()\nprint(scores['chrF2'][1].p_value)\n")


def reference_procedures(params: ChrfParams | None = None) -> list[Procedure]:
    return [ReferenceCI(params), ReferencePaired("permutation", params), ReferencePaired("bootstrap", params)]


def sacrebleu_procedures(params: ChrfParams | None = None) -> list[Procedure]:
    return [SacrebleuCI(params), SacrebleuPaired("ar", params), SacrebleuPaired("bs", params)]
