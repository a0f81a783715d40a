"""Statistical procedures of an external program (the protocol's ``ci`` and ``paired`` ops).

The process management (start, deadlines, kill, restart after a crash) is the
``audit.adapters.supervisor.Supervisor`` under ``ExternalProcess``; this module only adds
one-request calls and turns the hello's ``stats`` object into procedures with claims.
"""

from __future__ import annotations

import json
from dataclasses import replace

from reference_impl import ChrfParams
from ..adapters.base import AdapterError
from ..adapters.external import ExternalProcess, _encode
from ..adapters.frames import Overlong
from ..errors import UsageError
from .procedures import (CRASH, EXCEPTION, INVALID, TIMEOUT as T_OUT, Outcome, Procedure,
                         StatsClaims, data_lines, outcome)


class StatsProcess(ExternalProcess):
    standby = False  # one request at a time; a restart waits for the hello (callables.py)

    def __init__(self, command: str, timeout: float):
        super().__init__(command, timeout)

    def request(self, req: dict, kind: str | None = None) -> Outcome:
        """One call; ``kind`` ("ci" or "paired") defaults to the op's."""
        kind = kind or ("ci" if req["op"] == "ci" else "paired")
        with self.lock:
            try:
                self.ensure()
            except AdapterError as e:
                return Outcome(CRASH, None, str(e))
            rid = self._next_id
            self._next_id += 1
            self.send_async(_encode(dict(req, id=rid)))
            line = self.read(self.timeout)
            lost = self.no_answer(line, self.timeout)
            if lost is not None:
                self.restart()
                return Outcome(T_OUT if lost[0] == "timeout" else CRASH, None, lost[1])
        if isinstance(line, Overlong):
            self.kill()
            return Outcome(INVALID, None, f"{line.why}: {line[:200]}")
        try:
            ans = json.loads(line)
        except (ValueError, RecursionError):
            self.kill()
            return Outcome(INVALID, None, f"answer is not JSON: {line[:200]}")
        if not isinstance(ans, dict) or ans.get("id") != rid:
            self.kill()
            return Outcome(INVALID, None, f"answer {line[:200]} does not echo id {rid}")
        out = _answer(ans, kind, line)
        effects = ans.get("side_effects")
        if req["op"] == "probe" and isinstance(effects, list):
            out = replace(out, effects=tuple(str(x)[:500] for x in effects[:20]))
        return out


def _answer(ans: dict, kind: str, line: str) -> Outcome:
    if "error" in ans:
        return Outcome(EXCEPTION, None, str(ans["error"])[:300])
    if isinstance(ans.get("invalid"), str):  # the callable worker: a non-numeric result
        return Outcome(INVALID, None, ans["invalid"][:300])
    keys = ("score", "low", "high") if kind == "ci" else ("p_value",)
    values = {k: ans.get(k) for k in keys}
    if any(isinstance(v, bool) or not isinstance(v, (int, float)) for v in values.values()):
        return Outcome(INVALID, values, f"answer lacks numbers for {keys}: {line[:200]}")
    return outcome(kind, {k: float(v) for k, v in values.items()})


class ExternalProcedure(Procedure):
    remote = True

    def __init__(self, process: StatsProcess, op: str, spec: dict, hello: dict, params: ChrfParams):
        self.process = process
        self.kind = "ci" if op == "ci" else "paired"
        self.test = op.split("-", 1)[1] if self.kind == "paired" else None
        label = hello.get("name") or f"external:{process.command}"
        self.name = f"{label}:{op}"
        self.library = str(label)
        self.version = hello.get("version")
        self.environment = hello.get("versions") if isinstance(hello.get("versions"), dict) else None
        self.source = str(spec.get("function") or process.command)
        self.can_probe = spec.get("probe") is True
        self.claims = StatsClaims(
            params=params,
            resamples=int(spec.get("resamples", 1000)), alpha=float(spec.get("alpha", 0.05)),
            accepts=frozenset(a for a in spec.get("accepts", []) if a in ("resamples", "alpha", "seed")),
            min_resamples=int(spec.get("min_resamples", 1)),
            interval=str(spec.get("interval", "percentile")),
            statistic=str(spec.get("statistic", self.test or "permutation")),
            strict=bool(spec.get("strict", False)), draw=spec.get("draw"),
            documented_layout=str(spec.get("documented_layout", "segments")))

    def _req(self, op, hyps, refs, resamples, seed, layout, **extra) -> dict:
        p = self.claims.params
        return {"op": op, "hypotheses": list(hyps), "references": [list(r) for r in refs],
                "resamples": resamples, "seed": seed, "layout": layout,
                "params": {"char_order": p.char_order, "word_order": p.word_order,
                           "beta": float(p.beta), "lowercase": p.lowercase,
                           "whitespace": p.whitespace, "definition": p.definition}, **extra}

    def ci(self, hyps, refs, *, resamples, alpha, seed, layout="segments"):
        return self.process.request(self._req("ci", hyps, refs, resamples, seed, layout, alpha=alpha))

    def paired(self, hyps_a, hyps_b, refs, *, resamples, seed, layout="segments"):
        return self.process.request(self._req("paired", hyps_a, refs, resamples, seed, layout,
                                              hypotheses_b=list(hyps_b), test=self.test))

    def probe(self, form, hyps, refs, args, hyps_b=None):
        """The side-effect probe, run by the program in its own process (where its hello says
        it can, ``"probe": true``: over JSON nothing of the caller's could change)."""
        extra = {"kind": self.kind, "form": form}
        if self.kind == "ci":
            extra["alpha"] = args["alpha"]
        else:
            extra["hypotheses_b"] = list(hyps_b)
        out = self.process.request(self._req("probe", hyps, refs, args["resamples"], args["seed"], "segments",
                                             **extra), self.kind)
        return out, list(out.effects or ())

    def snippet(self, call: dict) -> str:
        fn = self.source
        if fn.startswith("evaluatio.metrics.chrf:"):
            return _evaluatio_snippet(fn.split(":")[1], call)
        return f"# {self.name}: send this request to {self.process.command!r}\n" + json.dumps(call)[:2000] + "\n"

    def close(self) -> None:
        self.process.release()


def _evaluatio_snippet(fn: str, call: dict) -> str:
    lines = [f"from evaluatio.metrics.chrf import {fn}"]
    lines += data_lines(call)
    if call.get("layout") == "documented":
        lines.append("refs = [list(x) for x in zip(*refs)]  # as documented: one list per reference set")
    if fn == "chrf_ci":
        seed = f", seed={call['seed']}" if call.get("seed") is not None else ""
        lines.append(f"ci = chrf_ci(refs, hyps, iterations={call.get('resamples')}, alpha={call.get('alpha')}{seed})")
        lines.append("print(ci.mean, ci.lower, ci.upper)")
    else:
        lines.append(f"print(chrf_permutation_test(refs, hyps, hyps_b, iterations={call.get('resamples')}))")
    return "\n".join(lines) + "\n"


STATISTICS = ("permutation", "bootstrap", "bootstrap-t")
INTERVALS = ("percentile", "sacrebleu")


def _check_claims(c: StatsClaims) -> None:
    """Claims come from an untrusted program: a value the models do not know is refused here,
    not met later as an exception inside a check."""
    if c.statistic not in STATISTICS:
        raise ValueError(f"statistic {c.statistic!r} is not one of {', '.join(STATISTICS)}")
    if c.interval not in INTERVALS:
        raise ValueError(f"interval {c.interval!r} is not one of {', '.join(INTERVALS)}")
    if c.draw is not None and not isinstance(c.draw, str):
        raise ValueError(f"draw must be a string, got {c.draw!r}")
    from ..settings.limits import limit
    top = limit("resamples")
    if not (0 < c.alpha < 1) or not (1 <= c.resamples <= top) or not (1 <= c.min_resamples <= top):
        raise ValueError(f"alpha must be in (0, 1), resamples and min_resamples in 1..{top} "
                         "(CHRF_AUDIT_MAX_RESAMPLES)")


def start(command: str, params: ChrfParams, timeout: float = 60.0) -> list[ExternalProcedure]:
    """Start ``command``, read its hello, return one procedure per declared stats op."""
    process = StatsProcess(command, timeout)
    try:
        hello = process.hello()
    except AdapterError as e:
        raise UsageError(str(e)) from None
    stats = (hello or {}).get("stats")
    if not isinstance(stats, dict) or not stats:
        process.kill()
        raise UsageError(f"--external {command!r} declares no statistical procedure "
                         "(its hello answer needs a 'stats' object, see docs/external-protocol.md)")
    procs = []
    for op, spec in stats.items():
        if op not in ("ci", "paired-permutation", "paired-bootstrap") or not isinstance(spec, dict):
            continue
        try:
            proc = ExternalProcedure(process, op, spec, hello, params)
            _check_claims(proc.claims)
        except (TypeError, ValueError, OverflowError) as e:
            process.kill()
            raise UsageError(f"--external {command!r}: invalid claims for {op!r} in its hello "
                             f"answer: {e}") from None
        process.acquire()
        procs.append(proc)
    if not procs:
        process.kill()
        raise UsageError(f"--external {command!r}: no known op in its 'stats' object")
    return procs

