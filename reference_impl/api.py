"""The stable entry points: ``sentence_score`` and ``corpus_score``.

They validate their inputs (a user mistake is a TypeError/ValueError naming the argument)
and then run the unchecked fast path in ``stats``/``scoring``.
"""

from __future__ import annotations

from collections.abc import Sequence

from .params import ChrfParams
from .result import ChrfResult
from .stats import TextProfile, match_profiles, segment_statistics


def _check_text(value, what: str) -> None:
    if not isinstance(value, str):
        raise TypeError(f"{what} must be a str, got {type(value).__name__}: {value!r:.60}")


def _check_references(refs, what: str) -> None:
    if isinstance(refs, str):
        raise TypeError(
            f"{what} must be a list of reference strings, got a bare str {refs!r:.60}; "
            f"wrap it: [{refs!r:.40}]"
        )
    if not isinstance(refs, Sequence):
        raise TypeError(f"{what} must be a list of reference strings, got {type(refs).__name__}")
    if len(refs) == 0:
        raise ValueError(f"{what} is empty: at least one reference is needed")
    for j, r in enumerate(refs):
        _check_text(r, f"{what}[{j}]")


def sentence_score(
    hypothesis: str,
    references: Sequence[str],
    *,
    char_order: int = 6,
    word_order: int = 0,
    beta=2,
    lowercase: bool = False,
    whitespace: bool = False,
    definition: str = "sacrebleu",
) -> ChrfResult:
    """Exact sentence-level chrF (word_order=0) or chrF++ (word_order=2) of one hypothesis
    against one or more references (the best reference is used)."""
    params = ChrfParams.make(char_order, word_order, beta, lowercase, whitespace, definition)
    _check_text(hypothesis, "hypothesis")
    _check_references(references, "references")
    stats, best = segment_statistics(hypothesis, references, params)
    return ChrfResult(params, "sentence", (stats,), (best,), len(references))


def corpus_score(
    hypotheses: Sequence[str],
    references: Sequence[Sequence[str]],
    *,
    char_order: int = 6,
    word_order: int = 0,
    beta=2,
    lowercase: bool = False,
    whitespace: bool = False,
    definition: str = "sacrebleu",
) -> ChrfResult:
    """Exact corpus-level score: per-segment statistics against each segment's best
    reference, summed, then scored once.  ``references[i]`` lists segment i's references
    (note: sacreBLEU's ``corpus_score`` takes the transposed layout)."""
    params = ChrfParams.make(char_order, word_order, beta, lowercase, whitespace, definition)
    if isinstance(hypotheses, str) or not isinstance(hypotheses, Sequence):
        raise TypeError("hypotheses must be a list of strings (one per segment)")
    if isinstance(references, str) or not isinstance(references, Sequence):
        raise TypeError("references must be a list with, per segment, a list of reference strings")
    if len(hypotheses) != len(references):
        raise ValueError(
            f"{len(hypotheses)} hypotheses but {len(references)} reference lists: "
            "there must be one reference list per hypothesis"
        )
    if len(hypotheses) == 0:
        raise ValueError("the corpus is empty: at least one segment is needed")
    nrefs = set()
    for i, (h, refs) in enumerate(zip(hypotheses, references)):
        _check_text(h, f"hypotheses[{i}]")
        _check_references(refs, f"references[{i}]")
        nrefs.add(len(refs))
    if len(nrefs) == 1 and 1 in nrefs:
        # The common case, one reference per segment, without the selection machinery.
        all_stats = tuple(
            match_profiles(TextProfile(h, params), TextProfile(refs[0], params))
            for h, refs in zip(hypotheses, references)
        )
        chosen = (0,) * len(all_stats)
    else:
        pairs = [segment_statistics(h, refs, params) for h, refs in zip(hypotheses, references)]
        all_stats = tuple(p[0] for p in pairs)
        chosen = tuple(p[1] for p in pairs)
    return ChrfResult(params, "corpus", all_stats, chosen, nrefs.pop() if len(nrefs) == 1 else None)
