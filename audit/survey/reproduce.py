"""How many of the second route's disagreements the audit's model reproduces: the claimed
definition with the families the audit named (the claimed definition alone when it named none:
a row claiming ``chrfpp`` disagrees with sacreBLEU's eps mode where the two definitions differ).

The families' exact models (their text- and score-stage variants in the deviation registry,
``audit.diagnose.deviations``) are merged into one model of the implementation; a family with
several alternative models (NFC or NFD, an order off by one either way) contributes each in
turn, and the combination reproducing the most disagreements is the one counted, the same for
every disagreement of the row.  A disagreement where the implementation gave no number is
reproduced by an outcome family of the same kind (``exception``, ``crash``, ``timeout``,
``invalid-output``).  What no named family reproduces is the rest the row states.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

#: outcome families, by the outcome of a call they stand for
OUTCOMES = {"exception": "exception", "crash": "crash", "timeout": "timeout", "invalid": "invalid-output"}
#: combinations of alternatives tried at most (families with several models multiply)
MAX_COMBINATIONS = 64
#: the output families' models (fields of ScoreVariant; the registry declares none for them)
OUTPUT_MODELS = {"float32-arithmetic": [("float32", True)],
                 "precision-loss": [("rounding", d) for d in (-1, 0, 1, 2, 3, 4, 5, 6)]}


def _variants(families) -> list[tuple]:
    """Every merged (TextVariant, ScoreVariant) of the families' alternative models."""
    from ..diagnose.deviations import get
    from ..diagnose.fitted import CLAIMED, merge
    from ..diagnose.variants import ScoreVariant, TextVariant

    choices = []
    for fam in families:
        dev = get(fam)
        models = [m for m in (dev.models if dev is not None else ()) if isinstance(m, tuple) and len(m) == 2]
        models += OUTPUT_MODELS.get(fam, [])
        parts = []
        for name, value in models:
            for i, cls in enumerate((TextVariant, ScoreVariant)):
                if name in cls.__dataclass_fields__:
                    part = [TextVariant(), ScoreVariant()]
                    part[i] = cls(**{name: value})
                    parts.append(tuple(part))
        if parts:
            choices.append(parts)
    out = []
    for combo in itertools.islice(itertools.product(*choices), MAX_COMBINATIONS):
        merged = CLAIMED
        for part in combo:
            merged = merge(merged, part)
        if merged is not None and merged not in out:
            out.append(merged)
    return out


def _predicts(variant, claims: dict, record: dict, tolerance: float) -> bool:
    from ..diagnose.models import agrees, predict
    from ..upstream._base import reference_kwargs
    from reference_impl.params import ChrfParams

    kw = reference_kwargs(claims)
    params = ChrfParams.make(kw["char_order"], kw["word_order"], kw["beta"], kw["lowercase"], kw["whitespace"],
                             kw["definition"])
    inp = record["input"]
    if record["level"] == "sentence":
        segments = [(inp["hypothesis"], list(inp["references"]))]
    else:
        segments = [(h, list(r)) for h, r in zip(inp["hypotheses"], inp["references"])]
    try:
        value = predict(segments, params, record["level"], variant)
    except Exception:  # noqa: BLE001 - a model that does not apply to this input
        return False
    return agrees(Fraction(value), variant[1], record["actual"], int(claims.get("scale", 100)), tolerance)


def reproduced(families, claims: dict, records: list, tolerance: float) -> int:
    """Disagreements (``differential.run``'s records) the claimed definition with the named
    families reproduces."""
    families = sorted(set(families))
    faults = {OUTCOMES[k] for k in OUTCOMES if OUTCOMES[k] in families}
    by_fault = sum(1 for r in records if r["actual"] is None and OUTCOMES.get(r["outcome"]) in faults)
    numeric = [r for r in records if r["actual"] is not None]
    best = 0
    for variant in _variants(families) if numeric else []:
        best = max(best, sum(1 for r in numeric if _predicts(variant, claims, r, tolerance)))
        if best == len(numeric):
            break
    return by_fault + best
