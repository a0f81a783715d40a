"""Family probes: a small, deterministic stand-in for ``chrf-audit run --json`` used to
verify patches until the runner exists (see ``patching.reaudit_command``).

    python -m audit.upstream.probe nltk --json PATH

Each probe feeds family-specific inputs to the implementation (imported normally, so a
PYTHONPATH copy wins) and compares with exact models built on the reference's statistics.
A probe whose inputs match neither the definition nor the family's model reports
``unexplained`` (so a patch that breaks something else does not pass as a fix).
Writes stable-core JSON: ``{"schema_version", "findings": [{"implementation", "family", ...}],
"modules": {name: file}}``.
"""

from __future__ import annotations

import argparse
import json
import sys
from fractions import Fraction
from typing import Callable

from reference_impl import corpus_score, sentence_score

from . import get

TOL = 1e-9

# all orders effective (>= 6 characters on both sides, no whitespace)
PAIRS = [
    ("abcdefgh", "abcdefghij"),
    ("abcdefghij", "abcdefgh"),
    ("thecatsatonthemat", "thecatisonthemat"),
]


def _f_averaged(result, beta: Fraction) -> Fraction:
    """Model: mean over the requested orders of the per-order F (0 where undefined)."""
    fs = [o.f(beta) or Fraction(0) for o in result.orders]
    return 100 * sum(fs, Fraction(0)) / len(fs)


def probe(implementation: str) -> list[dict]:
    module = get(implementation)
    claims = dict(module.DEFAULT_CLAIMS)
    sentence, corpus = module.scorers(claims)
    from ._base import reference_kwargs

    kw = reference_kwargs(claims)
    beta = kw["beta"]
    found: list[dict] = []

    def add(family: str, hyp, refs, expected, actual, level="sentence"):
        inputs = {"hypothesis": hyp, "references": refs} if level == "sentence" else {"hypotheses": hyp, "references": refs}
        found.append({
            "implementation": implementation, "family": family, "level": level, "repro": inputs,
            "expected": float(expected), "expected_fraction": str(Fraction(expected)),
            "actual": actual, "outcome": "value" if actual is not None else "exception",
        })

    def guarded(fn: Callable, family_on_error: str, *args):
        try:
            return fn(*args)
        except Exception as exc:  # an exception is a finding of its own
            add("exception", args[0], args[1], 0, None)
            return None

    # requested-order-divisor: identical strings shorter than the order must score 100
    for length in range(1, int(claims["char_order"])):
        text = "abcdefghijklmnop"[:length]
        got = guarded(sentence, "exception", text, [text])
        if got is not None and abs(got - 100) > TOL:
            add("requested-order-divisor", text, [text], 100, got)
            break

    # f-score-averaged: all orders effective, so the divisor does not matter
    verdicts = set()
    for hyp, ref in PAIRS:
        res = sentence_score(hyp, [ref], **kw)
        got = guarded(sentence, "exception", hyp, [ref])
        if got is None:
            continue
        if abs(got - float(res.score)) <= TOL:
            verdicts.add("ok")
        elif abs(got - float(_f_averaged(res, beta))) <= TOL:
            verdicts.add("f-score-averaged")
            last = (hyp, ref, res.score, got)
        else:
            verdicts.add("unexplained")
            bad = (hyp, ref, res.score, got)
    if "unexplained" in verdicts:
        add("unexplained", bad[0], [bad[1]], bad[2], bad[3])
    elif "f-score-averaged" in verdicts:
        add("f-score-averaged", last[0], [last[1]], last[2], last[3])

    # corpus-macro-average: corpus = mean of the implementation's own sentence scores
    hyps = [h for h, _ in PAIRS]
    refs = [[r] for _, r in PAIRS]
    try:
        got = corpus(hyps, refs)
        macro = sum(sentence(h, r) for h, r in zip(hyps, refs)) / len(hyps)
        res = corpus_score(hyps, refs, **kw)
        micro = [float(res.score), float(_f_averaged(res, beta))]
        if any(abs(got - m) <= TOL for m in micro):
            pass
        elif abs(got - macro) <= TOL:
            add("corpus-macro-average", hyps, refs, res.score, got, level="corpus")
        else:
            add("unexplained", hyps, refs, res.score, got, level="corpus")
    except Exception:
        add("exception", hyps, refs, 0, None, level="corpus")

    # whitespace: inserting a str.isspace() code point must not change the score
    if not claims["whitespace"]:
        base = guarded(sentence, "exception", "abcdef", ["abcdef"])
        changed = set()
        for cp in range(sys.maxunicode + 1):
            ch = chr(cp)
            if not ch.isspace():
                continue
            got = guarded(sentence, "exception", f"abc{ch}def", ["abcdef"])
            if got is not None and base is not None and abs(got - base) > TOL:
                changed.add(cp)
        if changed:
            every = {cp for cp in range(sys.maxunicode + 1) if chr(cp).isspace()}
            ascii_ws = {cp for cp in every if cp < 128 and cp not in range(0x1C, 0x20)}
            if changed == set(range(0x1C, 0x20)):
                family = "whitespace-set-white-space"
            elif changed == every - ascii_ws:
                family = "whitespace-set-ascii"
            elif changed == every - {0x20}:
                family = "whitespace-set-ascii-space"
            elif changed == every:
                family = "whitespace-kept"
            else:
                family = "metamorphic-whitespace"
            ch = chr(min(changed))
            add(family, f"abc{ch}def", ["abcdef"], 100, guarded(sentence, "exception", f"abc{ch}def", ["abcdef"]))
    return found


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m audit.upstream.probe")
    ap.add_argument("implementation")
    ap.add_argument("--json", required=True)
    args = ap.parse_args(argv)
    findings = probe(args.implementation)
    module = get(args.implementation)
    top = module.MODULE.split(".")[0]
    payload = {
        "schema_version": "1.0",
        "findings": findings,
        "modules": {top: getattr(sys.modules.get(top), "__file__", None),
                    module.MODULE: getattr(sys.modules.get(module.MODULE), "__file__", None)},
    }
    with open(args.json, "w", encoding="utf-8") as fh:
        json.dump(payload, fh, indent=1, sort_keys=True)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
