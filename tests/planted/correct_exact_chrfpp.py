"""Correct chrF++ in exact arithmetic (``correct_exact.sentence_pp`` / ``corpus_pp`` under
the generic names).  Must produce no finding."""

from .correct_exact import CLAIMS_PP as CLAIMS
from .correct_exact import corpus_pp as corpus
from .correct_exact import sentence_pp as sentence

FAMILY = None
LEVEL = "sentence"

__all__ = ["CLAIMS", "FAMILY", "LEVEL", "sentence", "corpus"]
