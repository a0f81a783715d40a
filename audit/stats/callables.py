"""Any Python callable as a procedure under audit (``stats --ci`` / ``stats --paired``).

Conventions (docs/stats.md):

* interval: ``fn(hypotheses, references, resamples=R, alpha=A, seed=S)`` returning
  ``(score, low, high)`` or an object with ``score``/``low``/``high`` (or evaluatio's
  ``mean``/``lower``/``upper``), on the 0..100 scale;
* paired test: ``fn(hypotheses_a, hypotheses_b, references, resamples=R, seed=S)`` returning
  the p-value (a number, or an object with ``p_value``);

``references[i]`` lists segment i's references; only the keywords the claims accept are
passed.  The current directory is importable.
"""

from __future__ import annotations

import importlib
import inspect
import json
import os
import sys

from reference_impl import ChrfParams
from ..errors import UsageError
from .procedures import Procedure, StatsClaims, guarded, streams


def load(spec: str):
    if ":" not in spec:
        raise UsageError(f"expected package.module:function, got {spec!r}")
    mod_name, _, attr = spec.partition(":")
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        obj = importlib.import_module(mod_name)
    except Exception as e:  # noqa: BLE001 - any import failure is the user's spec
        raise UsageError(f"cannot import {mod_name!r}: {type(e).__name__}: {e}") from None
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise UsageError(f"{mod_name!r} has no attribute {attr!r}")
        obj = getattr(obj, part)
    if not callable(obj):
        raise UsageError(f"{spec!r} is not callable")
    return obj


def _field(res, *names):
    for n in names:
        if isinstance(res, dict) and n in res:
            return res[n]
        if hasattr(res, n):
            return getattr(res, n)
    raise TypeError(f"result {res!r} has none of {names}")


class CallableProcedure(Procedure):
    def __init__(self, spec: str, kind: str, claims: StatsClaims, fn=None):
        self.fn = fn or load(spec)
        self.kind = kind
        self.spec = spec
        self.name = spec
        self.library = spec.partition(":")[0].split(".")[0]
        self.version = _version(self.library)
        self.claims = claims
        try:
            self.source = f"{inspect.getsourcefile(self.fn)}:{inspect.getsourcelines(self.fn)[1]}"
        except (TypeError, OSError):
            self.source = spec

    def _kw(self, resamples, seed, alpha=None) -> dict:
        kw = {}
        if "resamples" in self.claims.accepts:
            kw["resamples"] = resamples
        if "seed" in self.claims.accepts:
            kw["seed"] = seed
        if alpha is not None and "alpha" in self.claims.accepts:
            kw["alpha"] = alpha
        return kw

    def _refs(self, refs, layout):
        return streams(refs) if layout == "documented" and self.claims.documented_layout == "streams" else refs

    def ci(self, hyps, refs, *, resamples, alpha, seed, layout="segments"):
        def run():
            res = self.fn(list(hyps), self._refs(refs, layout), **self._kw(resamples, seed, alpha))
            if isinstance(res, (tuple, list)) and len(res) == 3:
                score, low, high = res
            else:
                score, low, high = (_field(res, "score", "mean"), _field(res, "low", "lower"),
                                    _field(res, "high", "upper"))
            return {"score": score, "low": low, "high": high}
        return guarded(run, "ci")

    def paired(self, hyps_a, hyps_b, refs, *, resamples, seed, layout="segments"):
        def run():
            res = self.fn(list(hyps_a), list(hyps_b), self._refs(refs, layout), **self._kw(resamples, seed))
            p = res if isinstance(res, (int, float)) else _field(res, "p_value", "pvalue")
            return {"p_value": p}
        return guarded(run, "paired")

    def snippet(self, call: dict) -> str:
        mod, _, attr = self.spec.partition(":")
        lines = [f"from {mod} import {attr.split('.')[0]}"]
        for key in ("hyps", "hyps_b", "refs"):
            if key in call:
                lines.append(f"{key} = {json.dumps(call[key], ensure_ascii=False)}")
        if call.get("layout") == "documented":
            lines.append("refs = [list(x) for x in zip(*refs)]  # the documented layout")
        kw = ", ".join(f"{k}={v!r}" for k, v in self._kw(call.get("resamples"), call.get("seed"),
                                                          call.get("alpha") if self.kind == "ci" else None).items())
        args = "hyps, refs" if self.kind == "ci" else "hyps, hyps_b, refs"
        lines.append(f"print({attr}({args}{', ' + kw if kw else ''}))")
        return "\n".join(lines) + "\n"


def _version(dist: str):
    try:
        from importlib.metadata import version
        return version(dist)
    except Exception:  # noqa: BLE001 - a local module has no distribution
        return None


def make(spec: str, kind: str, *, accepts="resamples,alpha,seed", statistic="permutation",
         documented_layout="segments", params: ChrfParams | None = None) -> CallableProcedure:
    acc = frozenset(a.strip() for a in accepts.split(",") if a.strip())
    unknown = acc - {"resamples", "alpha", "seed"}
    if unknown:
        raise UsageError(f"--accepts: unknown {sorted(unknown)} (resamples, alpha, seed)")
    claims = StatsClaims(params=params or ChrfParams.make(), accepts=acc, statistic=statistic,
                         documented_layout=documented_layout)
    return CallableProcedure(spec, kind, claims)
