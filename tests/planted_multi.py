"""Implementations with several catalogued bugs at once (tests/test_classify_names.py): each
must come out under its exact names, none lumped into ``unexplained``."""

from tests.planted.base import Chrf, claims

CLAIMS = claims()
#: ASCII whitespace only, matches not clipped, per-order F averaged
THREE = Chrf(ws_removed="ascii", clip=False, combine="f-mean")
THREE_FAMILIES = {"whitespace-set-ascii", "no-clipping", "f-score-averaged"}


def sentence(hypothesis, references):
    return THREE.sentence(hypothesis, references)


def corpus(hypotheses, references):
    return THREE.corpus(hypotheses, references)
