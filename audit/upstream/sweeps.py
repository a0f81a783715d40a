"""Scope sweeps: which inputs trigger a family, scored by the implementation and by the
reference with the finding's claimed parameters.

The implementation is never called here: ``sweep(finding, claims, score)`` lays out the
sweep's inputs and hands them to ``score(level, items) -> [float | None, ...]`` in one batch
(the enrich stage scores them through an isolated adapter, like every other call to an
implementation; None: the call gave no number).  The result is ``None`` (no sweep for this
family) or a plain dict::

    {"dimension": str, "x_label": str, "kind": "line" | "bar", "level": "sentence" | "corpus",
     "rows": [{"x": int | str, "inputs": {...}, "expected": float, "expected_fraction": str,
               "actual": float | None, "difference": float | None}]}
"""

from __future__ import annotations

import sys
from typing import Callable, Optional, Sequence

from reference_impl import corpus_score, sentence_score

from ._base import reference_kwargs

#: score(level, items) -> one 0..100 value (or None) per item; items are (hypothesis,
#: references) pairs at sentence level, (hypotheses, references per segment) at corpus level
Score = Callable[[str, list], Sequence[Optional[float]]]

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

#: corpus families swept by adding k copies of one segment that triggers them
_CORPUS_ADDED = {
    "unmatched-segment-reference-dropped": (("xyz", "qqqq"), "segments matching nothing"),
    "hypothesis-ngrams-where-reference-has-none": (("abcdefgh", "abc"), "segments whose reference is shorter than the order"),
}


def _plan(family: str, nc: int) -> Optional[tuple[dict, list, list]]:
    """(header, xs, items) of the family's sweep, or None.  ``nc``: the claimed char order."""
    from ..diagnose.deviations import sweep_of

    kind = sweep_of(family)
    if kind == "length" or family == "precision-loss":
        xs = list(range(1, max(10, nc + 4) + 1))
        texts = [(ALPHABET * 4)[:n] for n in xs]
        return ({"dimension": "identical hypothesis and reference of length 1..%d" % xs[-1],
                 "x_label": "length (characters)", "kind": "line", "level": "sentence"},
                xs, [(t, [t]) for t in texts])
    if kind == "prefix":
        ref = (ALPHABET * 4)[: 2 * nc]
        xs = list(range(nc, 2 * nc + 1))
        return ({"dimension": "hypothesis = the first L characters of a %d-character reference" % len(ref),
                 "x_label": "hypothesis length L", "kind": "line", "level": "sentence"},
                xs, [(ref[:n], [ref]) for n in xs])
    if kind in ("whitespace", "format-characters"):
        if kind == "whitespace":
            cps = [cp for cp in range(sys.maxunicode + 1) if chr(cp).isspace()]
            what = "each str.isspace() code point"
        else:
            cps = [0xFEFF, 0x200B, 0x200C, 0x200D, 0x200E, 0x200F, 0x2060, 0x00AD]
            what = "each format character"
        marker = "ws" if kind == "whitespace" else "c"
        return ({"dimension": f"{what} inserted into the hypothesis (\"abc\" + {marker} + \"def\" vs \"abcdef\")",
                 "x_label": "code point", "kind": "bar", "level": "sentence"},
                [f"U+{cp:04X}" for cp in cps], [(f"abc{chr(cp)}def", ["abcdef"]) for cp in cps])
    extra = _CORPUS_ADDED.get(family)
    if extra is not None:
        (hyp, ref), what = extra
        corpora = [CORPUS_POOL[:3] + [(hyp, ref)] * k for k in range(0, 7)]
        return ({"dimension": f"corpus score vs number of {what} (\"{hyp}\" vs \"{ref}\") added to 3 ordinary segments",
                 "x_label": "segments added", "kind": "line", "level": "corpus"},
                list(range(0, 7)), [([h for h, _ in segs], [[r] for _, r in segs]) for segs in corpora])
    if kind in ("corpus-size", "zero-segments"):
        # zero-segments: every other segment is replaced by one with no match at all
        pool = CORPUS_POOL if kind == "corpus-size" else [
            (h, r) if i % 2 == 0 else ("xyz", "abc") for i, (h, r) in enumerate(CORPUS_POOL)]
        xs = list(range(1, len(pool) + 1))
        return ({"dimension": ("corpus score vs number of segments (the first k of %d ordinary segments%s)"
                               % (len(pool), "" if kind == "corpus-size" else ", every other one without any match")),
                 "x_label": "segments", "kind": "line", "level": "corpus"},
                xs, [([h for h, _ in pool[:k]], [[r] for _, r in pool[:k]]) for k in xs])
    return None


def sweep(finding, claims: dict, score: Score) -> Optional[dict]:
    """The finding's scope sweep under ``claims`` (complete claims: the reference is
    configured from them, and ``score`` must hold the implementation to the same), or None."""
    kw = reference_kwargs(claims)
    plan = _plan(finding.family, kw["char_order"])
    if plan is None:
        return None
    header, xs, items = plan
    level = header["level"]
    actual = list(score(level, items))
    if len(actual) != len(items):
        raise ValueError(f"the scorer gave {len(actual)} values for {len(items)} inputs")
    rows = []
    for x, (hyps, refs), act in zip(xs, items, actual):
        if level == "sentence":
            exp = sentence_score(hyps, refs, **kw).score
            inputs = {"hypothesis": hyps, "references": refs}
        else:
            exp = corpus_score(hyps, refs, **kw).score
            inputs = {"hypotheses": hyps, "references": refs}
        act = None if act is None else float(act)
        rows.append({"x": x, "inputs": inputs, "expected": float(exp), "expected_fraction": str(exp),
                     "actual": act, "difference": None if act is None else act - float(exp)})
    return dict(header, rows=rows)
