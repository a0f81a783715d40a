"""The implementation's own answers on held-out inputs: scored in batches, each asked once per
unit (``Oracle``), so that judging a name, the scan of the model, its pruning and the repros
share what was asked."""

from __future__ import annotations

from typing import Optional


def score_many(adapter, level: str, inputs: list) -> list[Optional[float]]:
    """The implementation's scores of several inputs (segment lists), in one batch (None: no
    number)."""
    if level == "sentence":
        outs = adapter.sentence_scores([segs[0] for segs in inputs])
    else:
        outs = adapter.corpus_scores([([h for h, _ in segs], [list(rs) for _, rs in segs]) for segs in inputs])
    return [o.value if o.kind == "value" else None for o in outs]


def score_segments(adapter, level: str, segments) -> Optional[float]:
    """The implementation's score of ``segments`` at ``level`` (None when it gave no number)."""
    return score_many(adapter, level, [segments])[0]


class Oracle:
    """The implementation's scores of held-out inputs, each asked once per (claims, level)."""

    def __init__(self):
        self._scores: dict = {}

    def scores(self, adapter, level: str, inputs: list) -> list[Optional[float]]:
        tag = (adapter.name, repr(adapter.claims), level)
        keys = [(tag, repr(segs)) for segs in inputs]
        missing = list(dict.fromkeys(k for k in keys if k not in self._scores))
        if missing:
            by_key = dict(zip(keys, inputs))
            for k, v in zip(missing, score_many(adapter, level, [by_key[k] for k in missing])):
                self._scores[k] = v
        return [self._scores[k] for k in keys]

    def asked(self, adapter, level: str, segs) -> bool:
        return ((adapter.name, repr(adapter.claims), level), repr(segs)) in self._scores
