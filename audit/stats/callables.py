"""Any Python callable as a procedure under audit (``stats --ci`` / ``stats --paired``).

Conventions (docs/stats.md):

* interval: ``fn(hypotheses, references, resamples=R, alpha=A, seed=S)`` returning
  ``(score, low, high)`` or an object with ``score``/``low``/``high`` (or evaluatio's
  ``mean``/``lower``/``upper``), on the 0..100 scale;
* paired test: ``fn(hyps_a, hyps_b, references, resamples=R, seed=S)`` returning
  the p-value (a number, or an object with ``p_value``);

``references[i]`` lists segment i's references; only the keywords the claims accept are
passed.  The current directory is importable.

The callable is code under audit, so it never runs in chrf-audit's process: each procedure
owns a worker process (``audit.stats.callable_worker``) that imports it and answers the stats
operations of the external-program protocol, supervised like an external program
(``StatsProcess``: per-call timeout, restart after a crash, the whole process group killed).
A crash, hang, exception or non-numeric answer becomes an Outcome, i.e. a robustness finding.
"""

from __future__ import annotations

import importlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import weakref

from reference_impl import ChrfParams
from ..adapters.base import AdapterError
from ..adapters.external import _encode
from ..adapters.isolation import worker_env
from ..adapters.supervisor import Supervisor
from ..errors import UsageError
from .external import StatsProcess
from ..upstream.library import installed_version
from .procedures import Procedure, StatsClaims, data_lines, streams


def check_spec(spec: str) -> None:
    if ":" not in spec or not all(spec.partition(":")[::2]):
        raise UsageError(f"expected package.module:function, got {spec!r}")


def load(spec: str, import_dir: str | None = None):
    """Import the callable (in the worker process only)."""
    check_spec(spec)
    mod_name, _, attr = spec.partition(":")
    import_dir = import_dir or os.getcwd()
    if import_dir not in sys.path:
        sys.path.insert(0, import_dir)
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


class CallableProcess(StatsProcess):
    """One worker process hosting one callable, with a private temporary working directory.

    ``import_dir`` (default: the current directory) comes first on the worker's path.

    ``start`` (also on every restart after a crash or a timeout) spawns the worker and waits
    for its hello, so a restart's import time is never charged to the next call's timeout."""

    def __init__(self, spec: str, kind: str, timeout: float, import_dir: str | None = None):
        self.spec = spec
        self.import_dir = import_dir or os.getcwd()
        argv = [sys.executable, "-m", "audit.stats.callable_worker", spec, kind, self.import_dir]
        super().__init__(subprocess.list2cmdline(argv), timeout)
        self.argv = argv
        self.tmp = tempfile.mkdtemp(prefix="chrf-audit-stats-")
        self.cwd, self.env = self.tmp, worker_env(self.import_dir)
        weakref.finalize(self, shutil.rmtree, self.tmp, True)
        self.source = None

    def start(self) -> None:
        with self.lock:
            try:
                Supervisor.start(self)  # not ExternalProcess.start: its message names --external
            except OSError as e:
                raise AdapterError(f"cannot start the worker for {self.spec!r}: {e.strerror or e}") from None

    def _spawned(self) -> None:
        """Wait for the worker's hello (the callable imported) inside ``start``."""
        self.send_async(_encode({"id": 0, "op": "hello"}))
        line = self.read(self.startup_timeout)
        lost = self.no_answer(line, self.startup_timeout)
        if lost is not None:
            tail = self.stderr_tail()
            self.kill()
            raise AdapterError(f"the worker importing {self.spec!r} failed: {lost[1]}"
                               + (f" ({tail})" if tail else ""))
        try:
            ans = json.loads(line)
        except (ValueError, RecursionError):
            ans = None
        if not isinstance(ans, dict) or ans.get("id") != 0:
            self.kill()
            raise AdapterError(f"the worker importing {self.spec!r} answered {line[:100]!r}")
        if "error" in ans:
            self.kill()
            raise AdapterError(str(ans["error"])[:300])
        if isinstance(ans.get("source"), str):
            self.source = ans["source"][:500]

    def close(self) -> None:
        super().close()
        shutil.rmtree(self.tmp, ignore_errors=True)


class CallableProcedure(Procedure):
    remote, can_probe = True, True

    def __init__(self, spec: str, kind: str, claims: StatsClaims, timeout: float = 120.0):
        check_spec(spec)
        self.kind = kind
        self.spec = spec
        self.name = spec
        self.library = spec.partition(":")[0].split(".")[0]
        self.version = installed_version(self.library)
        self.claims = claims
        self.process = CallableProcess(spec, kind, timeout)
        try:
            with self.process.lock:
                self.process.start()
        except AdapterError as e:
            self.process.close()
            raise UsageError(f"--{kind} {spec}: {e}") from None
        self.source = self.process.source or spec

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

    def _request(self, hyps, refs, layout, kw, hyps_b=None, op=None, form=None):
        req = {"op": op or self.kind, "hypotheses": list(hyps), "references": self._refs(refs, layout),
               "kwargs": kw}
        if hyps_b is not None:
            req["hypotheses_b"] = list(hyps_b)
        if form is not None:
            req["form"] = form
        return self.process.request(req, self.kind)

    def ci(self, hyps, refs, *, resamples, alpha, seed, layout="segments"):
        return self._request(hyps, [list(r) for r in refs], layout, self._kw(resamples, seed, alpha))

    def paired(self, hyps_a, hyps_b, refs, *, resamples, seed, layout="segments"):
        return self._request(hyps_a, [list(r) for r in refs], layout, self._kw(resamples, seed), hyps_b)

    def probe(self, form, hyps, refs, args, hyps_b=None):
        out = self._request(hyps, [list(r) for r in refs], "segments",
                            self._kw(args["resamples"], args["seed"], args.get("alpha")), hyps_b,
                            op="probe", form=form)
        return out, list(out.effects or ())

    def close(self) -> None:
        self.process.close()

    def snippet(self, call: dict) -> str:
        mod, _, attr = self.spec.partition(":")
        lines = [f"from {mod} import {attr.split('.')[0]}"]
        lines += data_lines(call)
        if call.get("layout") == "documented":
            lines.append("refs = [list(x) for x in zip(*refs)]  # the documented layout")
        kw = ", ".join(f"{k}={v!r}" for k, v in self._kw(call.get("resamples"), call.get("seed"),
                                                          call.get("alpha") if self.kind == "ci" else None).items())
        args = "hyps, refs" if self.kind == "ci" else "hyps, hyps_b, refs"
        lines.append(f"print({attr}({args}{', ' + kw if kw else ''}))")
        return "\n".join(lines) + "\n"


def make(spec: str, kind: str, *, accepts="resamples,alpha,seed", statistic="permutation",
         documented_layout="segments", params: ChrfParams | None = None, draw: str | None = None,
         timeout: float = 120.0) -> CallableProcedure:
    acc = frozenset(a.strip() for a in accepts.split(",") if a.strip())
    unknown = acc - {"resamples", "alpha", "seed"}
    if unknown:
        raise UsageError(f"--accepts: unknown {sorted(unknown)} (resamples, alpha, seed)")
    claims = StatsClaims(params=params or ChrfParams.make(), accepts=acc, statistic=statistic,
                         documented_layout=documented_layout, draw=draw)
    return CallableProcedure(spec, kind, claims, timeout)
