"""What the implementation says: its corpus scores, and its one-segment scores when they
make an exact significance test of its corpus score possible.

Everything here goes through the adapter (``adapter.corpus_scores``), like every other
call to an implementation, so isolation, timeouts and outcome kinds are the adapter's.
Kept apart from the comparison (``compare``) because it is the only part of the impact
computation that talks to an implementation; the rest is exact arithmetic on the
reference's statistics.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

from ..errors import UsageError
from .progress import Steps

#: The implementation's corpus score must equal the mean of its one-segment scores within this
#: (0..100 scale) for the segment-score permutation test to be used.
DECOMPOSABLE_TOLERANCE = 1e-6

#: One adapter answer as (value or None, outcome kind, message): "value" only with a finite
#: number; the adapter's own kind ("crash", "timeout", ...) otherwise.
Scored = tuple[float | None, str, str | None]


def outcome_value(outcome: Any) -> Scored:
    """An adapter outcome as ``Scored``; a non-finite value is an ``invalid`` outcome."""
    kind = getattr(outcome, "kind", "invalid")
    value = getattr(outcome, "value", None)
    message = getattr(outcome, "message", None) or getattr(outcome, "detail", None)
    if kind == "value" and value is not None and np.isfinite(value):
        return float(value), "value", None
    if kind == "value":
        return None, "invalid", f"non-finite value {value!r}"
    return None, str(kind), None if message is None else str(message)


def corpus_outcomes(adapter, items) -> list:
    """The adapter's corpus scores; what it refuses (e.g. several references) is a usage error."""
    try:
        return adapter.corpus_scores(items)
    except (ValueError, NotImplementedError) as exc:
        raise UsageError(f"{adapter.name}: {exc}") from None


def corpus_values(adapter, systems: Mapping[str, Sequence[str]], references: Sequence[Sequence[str]],
                  steps: Steps) -> dict[str, Scored]:
    """Each system's corpus score (one adapter call per system, so progress can be shown)."""
    steps.stage(f"{adapter.name} corpus scores", len(systems))
    refs_list = [list(r) for r in references]
    out: dict[str, Scored] = {}
    for name, hyps in systems.items():
        (outcome,) = corpus_outcomes(adapter, [(list(hyps), refs_list)])
        out[name] = outcome_value(outcome)
        steps.advance()
    return out


def segment_scores(adapter, systems: Mapping[str, Sequence[str]], references: Sequence[Sequence[str]],
                   impl: Mapping[str, Scored], steps: Steps) -> tuple[dict[str, np.ndarray] | None, str]:
    """One-segment corpus scores of every system, ``(scores, "")``; ``(None, reason)`` when a
    segment gets no score or the corpus score is not their mean (then a permutation over
    them would not test the implementation's corpus score)."""
    out: dict[str, np.ndarray] = {}
    steps.stage(f"{adapter.name} segment scores", len(systems))
    for name, hyps in systems.items():
        outcomes = corpus_outcomes(adapter, [([h], [list(refs)]) for h, refs in zip(hyps, references)])
        vals = []
        for i, o in enumerate(outcomes):
            v, kind, _ = outcome_value(o)
            if v is None:
                return None, (f"{adapter.name} gave no score ({kind}) for segment {i + 1} of "
                              f"{name} alone: no implementation significance calls")
            vals.append(v)
        arr = np.asarray(vals, dtype=np.float64)
        corpus_value = impl[name][0]
        if abs(float(arr.mean()) - corpus_value) > DECOMPOSABLE_TOLERANCE:
            return None, (f"{adapter.name}'s corpus score is not the mean of its segment scores "
                          f"({corpus_value:.6f} vs {arr.mean():.6f} on {name}): no exact cheap "
                          "significance test of its corpus score, ranking changes only")
        out[name] = arr
        steps.advance()
    return out, ""
