"""Scope sweeps: which inputs trigger a family, computed by calling the upstream library
directly and the reference with the finding's claimed parameters.

``sweep(implementation, finding)`` returns ``None`` (no sweep for this implementation or
family) or a plain dict::

    {"dimension": str, "x_label": str, "kind": "line" | "bar", "level": "sentence" | "corpus",
     "rows": [{"x": int | str, "inputs": {...}, "expected": float, "expected_fraction": str,
               "actual": float | None, "difference": float | None}]}
"""

from __future__ import annotations

import sys
from typing import Optional

from reference_impl import corpus_score, sentence_score

from ._base import claims_with_defaults, reference_kwargs

# segments of ordinary text with varied lengths and quality (corpus sweeps)
CORPUS_POOL = [
    ("the cat sat on the mat", "the cat is on the mat"),
    ("hello world", "hello there world"),
    ("good morning everyone", "good morning everyone"),
    ("the quick brown fox jumps", "a quick brown fox jumped"),
    ("it is raining today", "it rains today"),
    ("see you tomorrow", "see you later"),
    ("thank you very much", "thanks a lot"),
    ("where is the station", "where is the train station"),
    ("open the window please", "please open the window"),
    ("we will meet at noon", "we meet at twelve"),
]

ALPHABET = "abcdefghijklmnopqrstuvwxyz"


def _rows_sentence(score, kw, inputs_list, xs):
    rows = []
    for x, (hyp, refs) in zip(xs, inputs_list):
        exp = sentence_score(hyp, refs, **kw).score
        try:
            act = float(score(hyp, refs))
        except Exception:
            act = None
        rows.append({
            "x": x, "inputs": {"hypothesis": hyp, "references": refs},
            "expected": float(exp), "expected_fraction": str(exp),
            "actual": act, "difference": None if act is None else act - float(exp),
        })
    return rows


#: corpus families swept by adding k copies of one segment that triggers them
_CORPUS_ADDED = {
    "unmatched-segment-reference-dropped": (("xyz", "qqqq"), "segments matching nothing"),
    "hypothesis-ngrams-where-reference-has-none": (("abcdefgh", "abc"), "segments whose reference is shorter than the order"),
}


def _corpus_row(corpus, kw, x, hyps, refs) -> dict:
    exp = corpus_score(hyps, refs, **kw).score
    try:
        act = float(corpus(hyps, refs))
    except Exception:
        act = None
    return {"x": x, "inputs": {"hypotheses": hyps, "references": refs},
            "expected": float(exp), "expected_fraction": str(exp),
            "actual": act, "difference": None if act is None else act - float(exp)}


def sweep(implementation: str, finding) -> Optional[dict]:
    from . import get

    try:
        module = get(implementation)
    except KeyError:
        return None
    claims = claims_with_defaults({**module.DEFAULT_CLAIMS, **(finding.claims or {})})
    try:
        kw = reference_kwargs(claims)
        sentence, corpus = module.scorers(claims)
    except Exception:
        return None
    from ..deviations import sweep_of

    family = finding.family
    kind = sweep_of(family)
    nc = kw["char_order"]

    if kind == "length" or family == "precision-loss":
        xs = list(range(1, max(10, nc + 4) + 1))
        texts = [(ALPHABET * 4)[:n] for n in xs]
        return {
            "dimension": "identical hypothesis and reference of length 1..%d" % xs[-1],
            "x_label": "length (characters)", "kind": "line", "level": "sentence",
            "rows": _rows_sentence(sentence, kw, [(t, [t]) for t in texts], xs),
        }
    if kind == "prefix":
        ref = (ALPHABET * 4)[: 2 * nc]
        xs = list(range(nc, 2 * nc + 1))
        return {
            "dimension": "hypothesis = the first L characters of a %d-character reference" % len(ref),
            "x_label": "hypothesis length L", "kind": "line", "level": "sentence",
            "rows": _rows_sentence(sentence, kw, [(ref[:n], [ref]) for n in xs], xs),
        }
    if kind == "whitespace":
        cps = [cp for cp in range(sys.maxunicode + 1) if chr(cp).isspace()]
        xs = [f"U+{cp:04X}" for cp in cps]
        pairs = [(f"abc{chr(cp)}def", ["abcdef"]) for cp in cps]
        return {
            "dimension": "each str.isspace() code point inserted into the hypothesis (\"abc\" + ws + \"def\" vs \"abcdef\")",
            "x_label": "code point", "kind": "bar", "level": "sentence",
            "rows": _rows_sentence(sentence, kw, pairs, xs),
        }
    extra = _CORPUS_ADDED.get(family)
    if extra is not None:
        (hyp, ref), what = extra
        base = CORPUS_POOL[:3]
        rows = []
        for k in range(0, 7):
            segs = base + [(hyp, ref)] * k
            rows.append(_corpus_row(corpus, kw, k, [h for h, _ in segs], [[r] for _, r in segs]))
        return {
            "dimension": f"corpus score vs number of {what} (\"{hyp}\" vs \"{ref}\") added to 3 ordinary segments",
            "x_label": "segments added", "kind": "line", "level": "corpus", "rows": rows,
        }
    if kind == "format-characters":
        cps = [0xFEFF, 0x200B, 0x200C, 0x200D, 0x200E, 0x200F, 0x2060, 0x00AD]
        xs = [f"U+{cp:04X}" for cp in cps]
        pairs = [(f"abc{chr(cp)}def", ["abcdef"]) for cp in cps]
        return {
            "dimension": "each format character inserted into the hypothesis (\"abc\" + c + \"def\" vs \"abcdef\")",
            "x_label": "code point", "kind": "bar", "level": "sentence",
            "rows": _rows_sentence(sentence, kw, pairs, xs),
        }
    if kind in ("corpus-size", "zero-segments"):
        # zero-segments: every other segment is replaced by one with no match at all
        pool = CORPUS_POOL if kind == "corpus-size" else [
            (h, r) if i % 2 == 0 else ("xyz", "abc") for i, (h, r) in enumerate(CORPUS_POOL)]
        rows = []
        for k in range(1, len(pool) + 1):
            hyps = [h for h, _ in pool[:k]]
            refs = [[r] for _, r in pool[:k]]
            exp = corpus_score(hyps, refs, **kw).score
            try:
                act = float(corpus(hyps, refs))
            except Exception:
                act = None
            rows.append({
                "x": k, "inputs": {"hypotheses": hyps, "references": refs},
                "expected": float(exp), "expected_fraction": str(exp),
                "actual": act, "difference": None if act is None else act - float(exp),
            })
        return {
            "dimension": ("corpus score vs number of segments (the first k of %d ordinary segments%s)"
                          % (len(pool), "" if kind == "corpus-size" else ", every other one without any match")),
            "x_label": "segments", "kind": "line", "level": "corpus", "rows": rows,
        }
    return None
