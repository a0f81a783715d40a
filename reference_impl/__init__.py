"""Exact reference implementation of chrF (Popovic 2015) and chrF++ (Popovic 2017).

Pure functions over integers and ``fractions.Fraction``: no I/O, no third-party imports.
Stable API: ``sentence_score``, ``corpus_score`` (see their docstrings); the integer
``SegmentStats`` and ``score_from_stats`` are public so that corpus scores, resampling and
bug models can all be computed from the same sufficient statistics.
"""

__version__ = "0.1.0"

from .api import corpus_score, sentence_score
from .params import DEFINITIONS, EPSILON, ChrfParams
from .result import ChrfResult, OrderStats
from .scoring import corpus_fscore, score_from_stats, sentence_fscore
from .stats import SegmentStats, TextProfile, match_profiles, segment_statistics, select_reference, sum_stats
from .text import ASCII_PUNCTUATION, char_sequence, word_tokens

__all__ = [
    "sentence_score", "corpus_score", "ChrfParams", "ChrfResult", "OrderStats", "SegmentStats",
    "DEFINITIONS", "EPSILON", "segment_statistics", "score_from_stats", "sentence_fscore",
    "corpus_fscore", "sum_stats", "select_reference", "TextProfile", "match_profiles",
    "char_sequence", "word_tokens", "ASCII_PUNCTUATION",
]
