"""Wrappers of a reference-streams API (sacreBLEU's layout: one list per reference position),
written as callers write them, for reference lists of different lengths (issue 41, item 1):

* ``strict``: checks that every segment has as many references as the first and raises
  ``ValueError`` otherwise -- an implementation that does not take ragged reference lists,
  which is what it takes, not a wrong score (the fit's scope says "refused");
* ``zipped``: transposes with ``zip(*references)``, which stops at the shortest list, so every
  reference after the shortest segment's count is ignored in *every* segment: a wrong score,
  on ragged corpora only (on rectangular ones it is the definition).

Both compute the streams' score correctly otherwise (``tests.planted.base.Chrf``).
"""

from tests.planted.base import Chrf, claims

CLAIMS = claims()
_CHRF = Chrf()


def _score_streams(hypotheses, streams):
    per_segment = [[s[i] for s in streams if s[i] is not None] for i in range(len(hypotheses))]
    return _CHRF.corpus(hypotheses, per_segment)


def strict_corpus(hypotheses, references):
    if len({len(rs) for rs in references}) > 1:
        raise ValueError("every segment needs the same number of references")
    return _score_streams(hypotheses, [list(s) for s in zip(*references)])


def zipped_corpus(hypotheses, references):
    return _score_streams(hypotheses, [list(s) for s in zip(*references)])


def sentence(hypothesis, references):
    return _CHRF.sentence(hypothesis, references)
