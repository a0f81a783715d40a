"""The survey's second route: the implementation against sacreBLEU's own ``CHRF`` (configured to
the claimed parameters) on N seeded inputs of every input class (``inputs.py``), counting the
inputs where the two disagree.  It shares no code with chrf-audit's reference or diagnosis:
the inputs are drawn here, the expected scores are sacreBLEU's (the control of the survey, run
in chrf-audit's own environment), and agreement is a plain comparison.

A row "conforms" only when this route counts 0 disagreements (``verdict.py``).  The same inputs
are also scored by chrf-audit's exact reference under each of the three definitions (which
one the implementation follows: ``definitions``), and the disagreements are kept (``records``)
for the families the audit named to reproduce (``reproduce.py``).
"""

from __future__ import annotations

from typing import Optional

from reference_impl.params import DEFINITIONS

from . import inputs as I

#: disagreements shown in the document, per row (the count is of all of them)
SHOWN = 3


def control(claims: dict):
    """sacreBLEU's CHRF at the claimed parameters: ``eps_smoothing`` for ``sacrebleu-eps``, and
    for ``chrfpp`` too, sacreBLEU's mode "compatible with chrF++.py" (the nearest it computes;
    the inputs where the two definitions differ count as disagreements, which the model of the
    claimed definition reproduces: ``reproduce.py``)."""
    from sacrebleu.metrics import CHRF

    return CHRF(char_order=int(claims["char_order"]), word_order=int(claims["word_order"]), beta=claims["beta"],
                lowercase=bool(claims["lowercase"]), whitespace=bool(claims["whitespace"]),
                eps_smoothing=claims["definition"] != "sacrebleu")


def describe_control(claims: dict) -> str:
    import sacrebleu

    return (f"sacreBLEU {sacrebleu.__version__} CHRF(char_order={claims['char_order']}, "
            f"word_order={claims['word_order']}, beta={claims['beta']}, lowercase={claims['lowercase']}, "
            f"whitespace={claims['whitespace']}, eps_smoothing={claims['definition'] != 'sacrebleu'})"
            + (" (its chrF++.py-compatible mode, the nearest to the claimed chrfpp)"
               if claims["definition"] == "chrfpp" else ""))


def streams(references: list) -> list:
    """Segment-major reference lists as sacreBLEU's streams, ``None`` where a segment has fewer."""
    depth = max(len(r) for r in references)
    return [[r[k] if k < len(r) else None for r in references] for k in range(depth)]


def _expected(metric, level: str, item) -> tuple:
    try:
        if level == "sentence":
            return ("value", float(metric.sentence_score(item[0], list(item[1])).score))
        return ("value", float(metric.corpus_score(list(item[0]), streams(item[1])).score))
    except Exception as exc:  # noqa: BLE001 - sacreBLEU refusing an input is an answer
        return ("exception", f"{type(exc).__name__}: {exc}"[:200])


def _reference(claims: dict, definition: str, level: str, item) -> Optional[float]:
    """chrf-audit's exact reference under ``definition`` (the other parameters claimed)."""
    import reference_impl

    kw = {k: claims[k] for k in ("char_order", "word_order", "lowercase", "whitespace")}
    try:
        if level == "sentence":
            return float(reference_impl.sentence_score(item[0], list(item[1]), beta=claims["beta"],
                                                       definition=definition, **kw).score)
        return float(reference_impl.corpus_score(list(item[0]), [list(r) for r in item[1]], beta=claims["beta"],
                                                 definition=definition, **kw).score)
    except Exception:  # noqa: BLE001 - an input the definition rejects
        return None


def _agree(got, expected: tuple, tolerance: float) -> bool:
    if expected[0] != "value" or not got.ok:
        return expected[0] != "value" and not got.ok
    return abs(got.value - expected[1]) <= tolerance


def _levels(adapter, n: int) -> list[tuple[str, int]]:
    levels = [lv for lv in ("sentence", "corpus") if getattr(adapter.supports, lv)]
    share = [n // len(levels) + (1 if i < n % len(levels) else 0) for i in range(len(levels))]
    return [(lv, k) for lv, k in zip(levels, share) if k]


def _max_refs(adapter) -> Optional[int]:
    return 1 if not adapter.supports.multi_reference else adapter.supports.max_refs


def _plain(item) -> dict:
    return {"hypothesis" if isinstance(item[0], str) else "hypotheses": item[0], "references": item[1]}


def run(adapter, claims: dict, seed: int, n: int, tolerance: float) -> dict:
    """The route's record for one implementation x configuration."""
    metric = control(claims)
    out = {"against": describe_control(claims), "inputs": 0, "disagreements": 0, "by_class": {},
           "definitions": {d: 0 for d in DEFINITIONS}, "examples": [], "records": []}
    for level, count in _levels(adapter, n):
        drawn = I.draw(seed, count, _max_refs(adapter), level)
        items = [item for _, item in drawn]
        got = adapter.sentence_scores(items) if level == "sentence" else adapter.corpus_scores(items)
        for (cls, item), outcome in zip(drawn, got):
            out["inputs"] += 1
            for d in DEFINITIONS:
                ref = _reference(claims, d, level, item)
                if not (outcome.ok and ref is not None and abs(outcome.value - ref) <= tolerance):
                    out["definitions"][d] += 1
            expected = _expected(metric, level, item)
            if _agree(outcome, expected, tolerance):
                continue
            out["disagreements"] += 1
            out["by_class"][cls] = out["by_class"].get(cls, 0) + 1
            record = {"level": level, "class": cls, "input": _plain(item), "expected": expected[1],
                      "expected_outcome": expected[0], "actual": outcome.value if outcome.ok else None,
                      "outcome": outcome.kind, "detail": (outcome.detail or "")[:200]}
            out["records"].append(record)
            if len(out["examples"]) < SHOWN:
                out["examples"].append(record)
    out["by_class"] = dict(sorted(out["by_class"].items()))
    return out
