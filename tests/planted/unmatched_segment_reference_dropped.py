r"""Planted bug, family ``unmatched-segment-reference-dropped`` (corpus level): a segment that
matches none of its references adds its hypothesis n-grams but none of its reference n-grams
to the corpus sums (torchmetrics keeps the empty initial "best" statistics); invisible at
sentence level (such a segment scores 0 either way).

Trigger: hyps ['ab', 'xy'], refs [['ab'], ['zz']] -> 55.56 (expected 35.71).
Everything else is the correct float chrF of ``base.py``.
"""

from .base import Chrf, claims

FAMILY = "unmatched-segment-reference-dropped"
LEVEL = "corpus"
CLAIMS = claims()

_IMPL = Chrf()


def sentence(hypothesis: str, references: list[str]) -> float:
    return _IMPL.sentence(hypothesis, references)


def corpus(hypotheses: list[str], references: list[list[str]]) -> float:
    total, all_empty = None, True
    for h, refs in zip(hypotheses, references):
        hp = _IMPL._profile(h)
        cands = [_IMPL._stats(hp, _IMPL._profile(r)) for r in refs]
        st, _, empty = _IMPL._segment(h, list(refs))
        if all(m == 0 for c in cands for _, _, m in c):
            st = [(hh, 0, 0) for hh, _, _ in st]
        all_empty = all_empty and empty
        total = st if total is None else [tuple(map(sum, zip(a, b))) for a, b in zip(total, st)]
    return _IMPL._score(total, all_empty)
