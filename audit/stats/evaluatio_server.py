"""evaluatio's chrF interval and permutation test behind the external-program protocol's stats
operations (docs/external-protocol.md, "Statistical procedures").

Runs in its own virtual environment (evaluatio pins numpy < 2.1 on Python 3.11, the project
uses numpy 2.4), started by ``audit.stats.evaluatio_env``.  Standard library, evaluatio and
sacrebleu only: nothing from chrf-audit is imported here, except ``side_effects.py`` beside
this file, loaded by path (it needs only numpy; it loads ``adapters/arguments.py``, standard
library only, by path too), for the side-effect probe (op ``probe``):
evaluatio's functions are called here, in-process, on lists or numpy arrays.
"""

import importlib.util
import json
import sys
from pathlib import Path


def hello():
    import evaluatio  # noqa: F401
    from importlib.metadata import version
    return {
        "name": "evaluatio", "version": version("evaluatio"), "protocol": 1,
        "stats": {
            "ci": {"function": "evaluatio.metrics.chrf:chrf_ci",
                   "accepts": ["resamples", "alpha", "seed"], "resamples": 1000, "alpha": 0.05,
                   "interval": "percentile", "draw": "numpy-integers-per-position",
                   "documented_layout": "segments", "probe": True},
            "paired-permutation": {"function": "evaluatio.metrics.chrf:chrf_permutation_test",
                                   "accepts": ["resamples"], "resamples": 1000,
                                   "statistic": "permutation",
                                   # the docstring: "Each element is an iterable of strings
                                   # representing one reference set"
                                   "documented_layout": "streams", "probe": True},
        },
        "versions": {"sacrebleu": version("sacrebleu"), "numpy": version("numpy")},
    }


def _streams(refs):
    return [list(x) for x in zip(*refs)]


def _side_effects():
    spec = importlib.util.spec_from_file_location("side_effects", Path(__file__).with_name("side_effects.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def probe(req):
    """Call evaluatio here on lists or numpy arrays; report what the call changed."""
    from evaluatio.metrics.chrf import chrf_ci, chrf_permutation_test
    se = _side_effects()
    kind = req["kind"]
    args = se.arguments(kind, req["form"], req["hypotheses"], req["references"], req.get("hypotheses_b"))
    if kind == "ci":
        kw = {"iterations": req["resamples"], "alpha": req["alpha"]}
        if req.get("seed") is not None:
            kw["seed"] = req["seed"]
        res, error, changes = se.probe(lambda hyps, refs: chrf_ci(refs, hyps, **kw), kind, args, {})
        out = {} if error else {"score": res.mean, "low": res.lower, "high": res.upper}
    else:
        res, error, changes = se.probe(lambda a, b, refs: chrf_permutation_test(refs, a, b, iterations=req["resamples"]),
                                       kind, args, {})
        out = {} if error else {"p_value": res}
    if error is not None:
        out = {"error": f"{type(error).__name__}: {error}"}
    out["side_effects"] = changes
    return out


def answer(req):
    op = req.get("op")
    if op == "hello":
        return hello()
    if op == "probe":
        return probe(req)
    from evaluatio.metrics.chrf import chrf_ci, chrf_permutation_test
    refs = req["references"]
    if req.get("layout") == "documented" and op == "paired":
        refs = _streams(refs)
    if op == "ci":
        kw = {"iterations": req["resamples"], "alpha": req["alpha"]}
        if req.get("seed") is not None:
            kw["seed"] = req["seed"]
        ci = chrf_ci(refs, req["hypotheses"], **kw)
        return {"score": ci.mean, "low": ci.lower, "high": ci.upper}
    if op == "paired" and req.get("test", "permutation") == "permutation":
        p = chrf_permutation_test(refs, req["hypotheses"], req["hypotheses_b"], iterations=req["resamples"])
        return {"p_value": p}
    return {"error": f"unsupported op {op!r}"}


def main():
    for line in sys.stdin:
        if not line.strip():
            continue
        req = json.loads(line)
        try:
            out = answer(req)
        except Exception as e:  # one error answer per failing request
            out = {"error": f"{type(e).__name__}: {e}"}
        out["id"] = req.get("id")
        sys.stdout.write(json.dumps(out, allow_nan=True) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
