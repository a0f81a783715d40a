"""Worker hosting one ``--ci``/``--paired`` callable: ``python -m audit.stats.callable_worker
SPEC KIND IMPORT_DIR``.

Why a process: the callable is code under audit.  It may crash (a signal, ``os._exit``),
hang, fork, print, or write to any descriptor it finds; in chrf-audit's own process any of
those would end or corrupt the audit.  Here it runs alone, started by
``audit.stats.callables.CallableProcess`` in its own session (``audit.processes.owner``: the whole
group is killed on a timeout, a crash and at the end), with a temporary directory as its
working directory, so stray relative writes land there.

It speaks the stats operations of the external-program protocol (docs/external-protocol.md)
on JSON lines, ASCII only:

  {"id": 0, "op": "hello"}                -> {"id": 0, "source": "file:line" | null}
                                             | {"id": 0, "error": "cannot import ..."}
  {"id": k, "op": "ci" | "paired", "hypotheses": [...], ["hypotheses_b": [...]],
   "references": ..., "kwargs": {...}}    -> {"id": k, "score", "low", "high"} | {"id": k, "p_value"}
                                             | {"id": k, "error": "Type: message"}
                                             | {"id": k, "invalid": "non-numeric result ..."}
  {"id": k, "op": "probe", "form": "lists" | "numpy", ...the same fields}
                                          -> the same answer + "side_effects": [str, ...]

``probe`` calls the callable here, on Python lists or numpy arrays, and says what the call
changed in this process: its arguments, numpy.random's global state, Python's ``random``
state (``audit.stats.side_effects``).

Numbers are sent as JSON numbers (``NaN``/``Infinity`` included, so that the parent can say
"not finite" rather than "not a number"); the parent parses and validates every line as data.
The callable's own prints go to stderr (fd 1 is redirected), its stdin is /dev/null.
"""

from __future__ import annotations

import inspect
import json
import os
import sys
import threading


def shown(obj, limit: int = 200) -> str:
    """A bounded ``repr`` of what a callable returned, whatever its size: a list of ten
    million numbers was rendered whole, twice, then split into words (300 s and 1 GB per
    ``stats --ci`` run, issue 29).  Containers show their type, length and first items."""
    try:
        if isinstance(obj, (list, tuple, set, frozenset, dict)) and len(obj) > 4:
            items = list(obj.items())[:3] if isinstance(obj, dict) else list(obj)[:3] if isinstance(
                obj, (set, frozenset)) else obj[:3]
            head = ", ".join(shown(x, 40) for x in items)
            text = f"<{type(obj).__name__} of {len(obj)} items: {head}, ...>"
        elif isinstance(obj, (str, bytes)) and len(obj) > limit:
            text = repr(obj[:limit]) + "..."
        else:
            text = repr(obj)
        if not isinstance(text, str):
            raise TypeError("__repr__ returned a non-string")
    except BaseException:  # noqa: BLE001 - a __repr__ or __len__ that raises
        text = f"<{type(obj).__name__}>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _field(res, *names):
    for n in names:
        if isinstance(res, dict) and n in res:
            return res[n]
        if hasattr(res, n):
            return getattr(res, n)
    raise TypeError(f"result {shown(res)} has none of {names}")


def values(kind: str, res) -> dict:
    """The callable's result as floats (TypeError/ValueError when it is not numeric)."""
    if kind == "ci":
        if isinstance(res, (tuple, list)) and len(res) == 3:
            score, low, high = res
        else:
            score, low, high = (_field(res, "score", "mean"), _field(res, "low", "lower"),
                                _field(res, "high", "upper"))
        out = {"score": score, "low": low, "high": high}
    else:
        # a number (numpy scalars too), or an object with p_value / pvalue (scipy's results)
        p = _field(res, "p_value", "pvalue") if (isinstance(res, dict) or hasattr(res, "p_value")
                                                 or hasattr(res, "pvalue")) else res
        out = {"p_value": p}
    for k, v in out.items():
        if isinstance(v, (bool, str, bytes)):
            raise TypeError(f"{k} is {type(v).__name__} {shown(v, 80)}")
        out[k] = float(v)
    return out


def _short(text: str, limit: int = 300) -> str:
    return " ".join(str(text)[:4 * limit].split())[:limit]


def answer(fn, kind: str, req: dict, verbatim: bool = False) -> dict:
    """``verbatim``: an exception's text is kept as is (only cut at 300 characters), for the
    built-in sacreBLEU procedures (``audit.stats.sacrebleu_calls``), whose findings quote it."""
    hyps_b = req.get("hypotheses_b") or [] if kind == "paired" else None
    if req.get("op") == "probe":
        from audit.stats import side_effects
        args = side_effects.arguments(kind, req.get("form"), req.get("hypotheses") or [],
                                      req.get("references") or [], hyps_b)
        res, error, changes = side_effects.probe(fn, kind, args, req.get("kwargs") or {})
        out = result(kind, res, error, verbatim)
        out["side_effects"] = [_short(c, 500) for c in changes]
        return out
    args = [list(req.get("hypotheses") or [])] + ([list(hyps_b)] if kind == "paired" else [])
    args.append(req.get("references") or [])
    try:
        res = fn(*args, **(req.get("kwargs") or {}))
    except BaseException as e:  # noqa: BLE001 - SystemExit, KeyboardInterrupt: the callable's
        return result(kind, None, e, verbatim)
    return result(kind, res, None, verbatim)


def result(kind: str, res, error, verbatim: bool) -> dict:
    """The answer for a call that returned ``res`` or raised ``error``."""
    if error is not None:
        text = f"{type(error).__name__}: {_text(error)}"
        return {"error": text[:300] if verbatim else _short(text)}
    try:
        return values(kind, res)
    except BaseException as e:  # noqa: BLE001 - a __float__ may raise anything
        return {"invalid": _short(f"non-numeric result {shown(res)}: {type(e).__name__}: {_text(e)[:300]}")}


def _text(exc: BaseException) -> str:
    try:
        return str(exc)
    except BaseException as e:  # noqa: BLE001 - an __str__ that raises
        return f"<its __str__ raised {type(e).__name__}>"


def main() -> None:
    from audit.processes import subreaper

    # the callable's parent is a waiting subreaper, never chrf-audit (issue 29: it could
    # SIGTERM or SIGSTOP its parent): see audit.processes.subreaper.host_in_child
    subreaper.host_in_child()
    spec, kind, import_dir = sys.argv[1], sys.argv[2], sys.argv[3]
    proto_in = os.fdopen(os.dup(0), "rb")
    proto_out = os.fdopen(os.dup(1), "wb")
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.dup2(2, 1)  # the callable's prints go to stderr, never into the protocol
    sys.path.insert(0, import_dir)

    from audit.adapters.worker import _watch_parent
    threading.Thread(target=_watch_parent, args=(os.getppid(),), daemon=True).start()

    def send(obj) -> None:
        proto_out.write((json.dumps(obj, ensure_ascii=True, default=str) + "\n").encode("ascii"))
        proto_out.flush()

    fn, load_error, source, verbatim = None, None, None, False
    try:
        from audit.stats.callables import load
        fn = load(spec, import_dir)
        try:
            source = f"{inspect.getsourcefile(fn)}:{inspect.getsourcelines(fn)[1]}"
        except BaseException:  # noqa: BLE001 - a builtin or a C function has no source
            source = None
        try:  # set only by audit.stats.sacrebleu_calls; any other object: False
            verbatim = getattr(fn, "chrf_audit_verbatim_errors", False) is True
        except BaseException:  # noqa: BLE001 - a user object's __getattr__ may raise anything
            verbatim = False
    except BaseException as e:  # noqa: BLE001 - UsageError, or whatever the import raised
        load_error = _short(str(e) if type(e).__name__ == "UsageError" else f"cannot import {spec!r}: "
                            f"{type(e).__name__}: {e}")
    for line in proto_in:
        if not line.strip():
            continue
        try:
            req = json.loads(line)
            rid = req.get("id")
        except (ValueError, AttributeError):
            continue  # the parent only sends objects; nothing to answer
        if load_error is not None:
            out = {"error": load_error}
        elif req.get("op") == "hello":
            out = {"source": source}
        elif req.get("op") in (kind, "probe"):
            out = answer(fn, kind, req, verbatim)
        else:
            out = {"error": f"unknown op {req.get('op')!r} (this worker serves {kind!r})"}
        out["id"] = rid
        send(out)
    subreaper.kill_tree(os.getpid())  # what it started ends with it (orphans would go to init)
    os._exit(0)  # skip interpreter teardown of whatever the callable left behind


if __name__ == "__main__":
    main()
