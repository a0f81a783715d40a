#!/usr/bin/env python3
"""Audit Popovic's chrF++.py through the external-program protocol (docs/external-protocol.md).

chrF++.py is GPL-licensed: it is NOT part of this repository.  Fetch it yourself
(https://github.com/m-popovic/chrF) and point this wrapper at it::

    CHRFPP_SCRIPT=/path/to/chrF++.py chrf-audit run --external "python examples/chrfpp_wrapper.py" --name chrF++.py
    chrf-audit run --external "python examples/chrfpp_wrapper.py /path/to/chrF++.py" --name chrF++.py

The wrapper loads the script as a module and calls its own ``computeChrF`` on in-memory
"files" (one line per segment, references joined by the script's ``*#`` separator), which is
exactly what its command line does, without the 4-decimal formatting:

* sentence score: ``computeChrF`` on a one-line document; the script's average sentence F
  of that document is the line's sentence score (``-s`` prints it rounded);
* corpus score: the document score of ``computeChrF`` (``c6+w2-F2`` in its output).

The script's defaults are chrF++ (6 character orders, 2 word orders, beta 2) on a 0..1
scale; it honours ``char_order``, ``word_order`` and ``beta`` from the request's params.  An
exception of the script (it raises when the first segment matches none of its references)
is answered as an error, so the audit reports it with its minimal input.
"""

from __future__ import annotations

import importlib.util
import io
import json
import os
import sys
from contextlib import redirect_stdout


def load_script(path: str):
    if not path or not os.path.isfile(path):
        raise SystemExit(
            "chrfpp_wrapper: give the path of chrF++.py as the first argument or in CHRFPP_SCRIPT "
            f"(got {path!r}); it is GPL and not shipped with chrf-audit"
        )
    spec = importlib.util.spec_from_file_location("chrfpp_script", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _digest(path: str) -> str:
    import hashlib

    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()[:12]


def hello(path: str) -> dict:
    return {
        "name": "chrF++.py",
        # the script has no version number: name the exact file by its content
        "version": os.environ.get("CHRFPP_VERSION") or "sha256:" + _digest(path),
        "protocol": 1,
        "claims": {"char_order": 6, "word_order": 2, "beta": 2, "lowercase": False,
                   "whitespace": False, "definition": "chrfpp"},
        "scale": 1,
        "supports": {"sentence": True, "corpus": True, "multi_reference": True},
        "accepts": ["char_order", "word_order", "beta"],
        "sources": {"sentence": {"file": path, "qualname": "computeChrF"},
                    "corpus": {"file": path, "qualname": "computeChrF"}},
    }


def score(script, op: str, request: dict) -> float:
    params = request.get("params") or {}
    nc, nw = int(params.get("char_order", 6)), int(params.get("word_order", 2))
    beta = float(params.get("beta", 2))
    if op == "sentence":
        hyps, refs = [request["hypothesis"]], [request["references"]]
    else:
        hyps, refs = request["hypotheses"], request["references"]
    hyp_lines = [h + "\n" for h in hyps]
    ref_lines = ["*#".join(r) + "\n" for r in refs]
    with redirect_stdout(io.StringIO()):  # stdout is the protocol's: keep the script quiet
        total_f, average_f, _, _ = script.computeChrF(ref_lines, hyp_lines, nw, nc, beta)
    return average_f if op == "sentence" else total_f


def main(argv: list[str]) -> int:
    path = argv[1] if len(argv) > 1 else os.environ.get("CHRFPP_SCRIPT", "")
    script = load_script(path)
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        rid, op = request.get("id"), request.get("op")
        if op == "hello":
            answer = dict(hello(path), id=rid)
        elif op in ("sentence", "corpus"):
            try:
                answer = {"id": rid, "score": score(script, op, request)}
            except Exception as exc:  # the script's own failure is the audit's data
                answer = {"id": rid, "error": f"{type(exc).__name__}: {exc}"}
        else:
            answer = {"id": rid, "error": f"unknown op {op!r}"}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
