"""Reference lists of different lengths (issue 41): what an implementation takes, told apart
from a wrong score.

sacreBLEU 2.6 takes a corpus's references as streams (one list per reference position) and
drops a ``None`` in a stream (``_cache_references``: "a particular reference segment can be
'' or None to allow the use of variable number of references per segment"; an empty string
stays an empty reference), so its corpus of segments with different numbers of references
is the streams padded with ``None``; the definitions score each segment against the
references it has.  chrf-audit sends such a corpus as per-segment lists of different lengths
(an adapter that calls a streams API pads them with ``None``: ``audit.upstream.sacrebleu``).

An implementation that answers such a corpus with an exception (or a non-number) while it
scores the same lists padded to one length is *refusing* reference lists of different
lengths: a fact about what it takes, reported in the fit's scope ("refused: ragged-references
(its message)"), not a wrong score and no finding.  Padding a segment with copies of its last
reference leaves the definition's score unchanged (a copy has the same statistics, and the
best reference is chosen by its statistics), so the padded corpus is a fair twin.  A wrong
*number* on a ragged corpus is a divergence like any other, and a crash or a hang stays one.
"""

from __future__ import annotations

from typing import Callable


def ragged(segments) -> bool:
    """Do the segments have different numbers of references?"""
    return len({len(rs) for _, rs in segments}) > 1


def padded(segments) -> list[tuple[str, list[str]]]:
    """Each segment's references padded to the longest list with copies of its last one."""
    k = max(len(rs) for _, rs in segments)
    return [(h, list(rs) + [rs[-1]] * (k - len(rs))) for h, rs in segments]


def refused_ragged(segments, score: Callable) -> bool:
    """Is a failed answer on ``segments`` a refusal of reference lists of different lengths:
    the lists padded to one length (``score((hypotheses, references))``) give a number?"""
    if not ragged(segments) or any(not rs for _, rs in segments):
        return False
    twin = padded(segments)
    outcome = score(([h for h, _ in twin], [rs for _, rs in twin]))
    return outcome.kind == "value"
