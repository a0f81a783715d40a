"""sacreBLEU's chrF interval and paired tests as callables for the callable worker.

sacreBLEU is code under audit: these functions run only inside the worker process
(``audit.stats.callable_worker``, hosted by ``audit.stats.callables.CallableProcess``), never
in chrf-audit's own process.  ``audit.stats.builtin`` names them by spec
(``audit.stats.sacrebleu_calls:ci`` ...) and sends the metric's constructor arguments with
every call (``metric=``), so the worker needs nothing but the request.

sacreBLEU reads its seed from the ``SACREBLEU_SEED`` environment variable at call time; each
call sets it (in the worker's environment) for its duration and restores it.

``references`` arrive as sacreBLEU's reference streams (``references[j]`` is the j-th
reference of every segment), whatever layout the check asked for: the built-in procedures
always pass what sacreBLEU documents.  Hypotheses and streams are handed to sacreBLEU as
they arrive (no copies), so the worker's side-effect probe sees what sacreBLEU does to them.
"""

from __future__ import annotations

import contextlib
import os

#: The worker reports this function's exceptions as ``"{type}: {message}"[:300]`` without
#: folding whitespace (what the former in-process ``guarded`` call reported).
VERBATIM_ERRORS = "chrf_audit_verbatim_errors"


@contextlib.contextmanager
def _seed(seed):
    old = os.environ.get("SACREBLEU_SEED")
    os.environ["SACREBLEU_SEED"] = "None" if seed is None else str(int(seed))
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("SACREBLEU_SEED", None)
        else:
            os.environ["SACREBLEU_SEED"] = old


def _metric(metric: dict):
    from sacrebleu.metrics import CHRF
    return CHRF(**metric)


def ci(hypotheses, references, *, resamples, seed, metric):
    """``CHRF(**metric).corpus_score(hyps, streams, n_bootstrap=R)``: mu +- ci."""
    with _seed(seed):
        s = _metric(metric).corpus_score(hypotheses, references, n_bootstrap=resamples)
    if resamples < 2:  # no bootstrap by API design: the interval is the point
        return {"score": s.score, "low": s.score, "high": s.score}
    return {"score": s.score, "low": s._mean - s._ci, "high": s._mean + s._ci}


def _paired(test, hyps_a, hyps_b, references, resamples, seed, metric):
    from sacrebleu.significance import PairedTest
    with _seed(seed):
        pt = PairedTest([("a", hyps_a), ("b", hyps_b)], {"chrF": _metric(metric)},
                        references, test_type=test, n_samples=resamples)
        _, scores = pt()
    name = next(k for k in scores if k != "System")
    return {"p_value": scores[name][1].p_value}


def paired_ar(hyps_a, hyps_b, references, *, resamples, seed, metric):
    """``PairedTest(..., test_type="ar")``: approximate randomization."""
    return _paired("ar", hyps_a, hyps_b, references, resamples, seed, metric)


def paired_bs(hyps_a, hyps_b, references, *, resamples, seed, metric):
    """``PairedTest(..., test_type="bs")``: Moses paired bootstrap."""
    return _paired("bs", hyps_a, hyps_b, references, resamples, seed, metric)


for _fn in (ci, paired_ar, paired_bs):
    setattr(_fn, VERBATIM_ERRORS, True)
