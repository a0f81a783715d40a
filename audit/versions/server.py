"""The protocol server a release's environment runs: one release of a package behind the
external-program protocol (docs/external-protocol.md), so that ``chrf-audit versions`` audits
it with the external-program adapter like any program.

Run by the release's own interpreter as ``python -I server.py SPEC`` (SPEC: JSON, below) in
a virtual environment that holds only the audited package (and its dependencies).  Nothing of
chrf-audit is installed there: this file loads the two modules it needs, the backends
(``audit.adapters.backends``, the calling convention of every Python implementation) and their
loader (``audit.adapters.backend_loader``: a built-in library's backend class from
``audit.upstream``), from chrf-audit's own directory by path.  They import only the standard
library, so the environment's interpreter needs only to be one chrf-audit runs on (Python >=
3.10); ``audit``'s package ``__init__`` files that pull in more (the adapters' resolution,
numpy, rich) are not run.

SPEC: ``{"backend": {...}, "claims": {...}, "supports": {...}, "accepts": [...], "name": str}``
where ``backend`` is a backend spec (``{"kind": "nltk"}``, ``{"kind": "callable", "sentence":
"pkg.mod:fn", ...}``).  The hello answer carries the claims, what it supports and accepts,
the installed version and the audited functions' source locations.  An implementation's
prints go to stderr (fd 1 is redirected there), it reads /dev/null on stdin, and it never
sees the protocol's descriptors.  The server exits at the end of its input: when the audit
(or the Dask worker running it) goes away.
"""

import importlib.util
import json
import os
import sys
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # the directory holding chrf-audit's ``audit`` package


def _load_audit() -> None:
    """``audit`` and ``audit.adapters`` as bare packages (their ``__init__`` not run), from ROOT."""
    spec = importlib.util.spec_from_file_location("audit", ROOT / "audit" / "__init__.py",
                                                  submodule_search_locations=[str(ROOT / "audit")])
    audit = importlib.util.module_from_spec(spec)
    sys.modules["audit"] = audit
    spec.loader.exec_module(audit)  # only __version__
    adapters = types.ModuleType("audit.adapters")
    adapters.__path__ = [str(ROOT / "audit" / "adapters")]
    adapters.__package__ = "audit.adapters"
    sys.modules["audit.adapters"] = adapters


def _location(src) -> dict:
    module, qualname, file, line = src
    return {"module": module, "qualname": qualname, "file": file, "line": line}


def _answer_of(result: tuple, rid: int) -> dict:
    """A Backend.call result as a protocol answer."""
    if result[0] == "value":
        return {"id": rid, "score": result[1]}
    if result[0] == "exception":
        return {"id": rid, "error": result[1]}
    return {"id": rid, "score": result[1]}  # invalid: its repr, which the adapter judges invalid


def describe(spec: dict) -> dict:
    """``{"version", "sources": {key: {module, qualname, file, line}}}`` of the release, or
    ``{"error": one line}`` when it cannot be imported (``--describe``: printed, then exit)."""
    _load_audit()
    from audit.adapters import backends as B
    from audit.adapters.backend_loader import make_backend

    try:
        found = make_backend(spec["backend"]).describe()
    except B.SpecError as e:  # a message of its own ("cannot import module ...")
        return {"error": str(e)}
    except BaseException as e:  # noqa: BLE001 - a release that cannot be imported is an answer
        return {"error": B.exception_detail(e)}
    return {"version": found.get("version"),
            "sources": {k: _location(v) for k, v in (found.get("sources") or {}).items()}}


def hello(spec: dict, found: dict, rid) -> dict:
    """The hello answer: the spec's implementation, narrowed by what the release says it
    cannot do (its backend's ``limits``, e.g. sacreBLEU 1.x: ``audit/upstream/sacrebleu_v1.py``):
    its own scale, fewer references, fewer claims taken; ``unsupported`` says why (one line)
    when the spec's claims ask for a value the release cannot compute."""
    answer = {"id": rid, "name": spec["name"], "version": found.get("version"), "protocol": 1,
              "claims": spec["claims"], "supports": spec["supports"], "accepts": spec["accepts"],
              "lone_surrogates": True,
              "sources": {k: _location(v) for k, v in (found.get("sources") or {}).items()}}
    limits = found.get("limits")
    if not limits:
        return answer
    answer["claims"] = {**spec["claims"], **(limits.get("claims") or {})}
    answer["supports"] = {**spec["supports"], **(limits.get("supports") or {})}
    if "accepts" in limits:
        answer["accepts"] = sorted(set(spec["accepts"]) & set(limits["accepts"]))
    answer["limits"] = str(limits.get("note") or "")
    wrong = [f"{name} {spec['claims'].get(name)!r}: {fixed.get('why')}"
             for name, fixed in sorted((limits.get("fixed") or {}).items())
             if name in spec["claims"] and spec["claims"][name] != fixed.get("value")]
    if wrong:
        answer["unsupported"] = f"{spec['name']} {found.get('version')} cannot compute " + "; ".join(wrong)
    return answer


def serve(spec: dict, proto_in, send) -> None:
    from audit.adapters import backends as B
    from audit.adapters.backend_loader import make_backend

    backend = make_backend(spec["backend"])  # it imported in --describe: a failure now is a crash
    found = backend.describe()
    for raw in proto_in:
        if not raw.strip():
            continue
        req = json.loads(raw)
        rid, op = req.get("id"), req.get("op")
        if op == "hello":
            send(hello(spec, found, rid))
        elif op in ("sentence", "corpus"):
            key = "hypothesis" if op == "sentence" else "hypotheses"
            send(_answer_of(backend.call(op, req["params"], (req[key], req["references"])), rid))
        else:
            send({"id": rid, "error": f"unknown op {op!r}"})


def main(argv=None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    spec = json.loads(argv[-1])
    if spec.get("cwd"):
        os.chdir(spec["cwd"])
    proto_in = os.fdopen(os.dup(0), "rb")
    proto_out = os.fdopen(os.dup(1), "wb")
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.dup2(2, 1)  # the implementation's prints go to stderr

    def send(obj) -> None:
        proto_out.write((json.dumps(obj, ensure_ascii=True) + "\n").encode("ascii"))
        proto_out.flush()

    if argv[0] == "--describe":
        send(describe(spec))
    else:
        _load_audit()
        serve(spec, proto_in, send)
    os._exit(0)  # skip the teardown of whatever the implementation left behind


if __name__ == "__main__":
    main()
