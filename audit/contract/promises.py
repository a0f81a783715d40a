"""What a scoring contract promises, one family per promise.

Each ``Promise`` is a sentence of the contract (as the conformance table shows it) and the
family a broken promise is reported under (its title says what is wrong, implementation-
neutral, as every family of the deviation registry does; ``audit.diagnose.deviations.catalogue``
registers them from here).  The order is the report's.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Promise:
    family: str
    promise: str  # what the contract says (kept)
    title: str  # what is wrong (broken), one sentence without a final period


PROMISES = [
    Promise("contract-corpus-score",
            "score_fraction is the exact corpus score of the stated chrF++ (summed per-order counts, effective orders)",
            "the corpus score (score_fraction) is not the exact score of the metric the contract states"),
    Promise("contract-segment-scores",
            "segment_scores are each segment's score, in input order",
            "a segment score differs from the score the contract's metric gives that segment"),
    Promise("contract-score-rounding",
            "score and segment_scores are the exact values rounded to six decimals, ties to even",
            "scores are not the exact value rounded to the contract's decimals half to even"),
    Promise("contract-fraction-reduced",
            "score_fraction is a reduced fraction n/d",
            "score_fraction is the right value but not in lowest terms"),
    Promise("contract-word-tokens",
            "word_tokens are the chrF++ tokens: split on the 29 whitespace code points, one ASCII punctuation "
            "mark split off a word's end, else its start",
            "word_tokens differ from the contract's chrF++ tokenisation"),
    Promise("contract-lowercase",
            "lowercase: true lowercases (Unicode default case mapping) before tokenization; false keeps case",
            "lowercase is not applied as the contract states (scores or tokens keep or lose case wrongly)"),
    Promise("contract-beta",
            "beta weights recall in F-beta; omitted it is 2",
            "the beta of the request is not the one the score is computed with"),
    Promise("contract-response-schema",
            "every answer has the output schema: constants, patterns, counts and the request's parameters echoed",
            "an answer does not have the contract's output schema"),
    Promise("contract-refuses-non-object",
            "a body that is not a plain JSON object is refused with an error response",
            "a body that is not a JSON object is not refused with an error response"),
    Promise("contract-refuses-unknown-keys",
            "an unknown key is refused with an error response",
            "a request with an unknown key is not refused with an error response"),
    Promise("contract-refuses-missing-keys",
            "a missing hypotheses or references is refused with an error response",
            "a request missing a required key is not refused with an error response"),
    Promise("contract-refuses-wrong-types",
            "a value of the wrong type (texts not strings, arrays not arrays, beta not an integer, "
            "lowercase not a boolean) is refused with an error response",
            "a request with a value of the wrong type is not refused with an error response"),
    Promise("contract-refuses-segment-count",
            "0 segments, or more than max segments, are refused with an error response",
            "a request with no segments or too many segments is not refused with an error response"),
    Promise("contract-refuses-unequal-counts",
            "unequal numbers of hypotheses and references are refused with an error response",
            "a request with unequal segment counts is not refused with an error response"),
    Promise("contract-refuses-text-bytes",
            "more than max text bytes of UTF-8 in all texts together are refused with an error response",
            "a request over the byte limit is not refused with an error response"),
    Promise("contract-refuses-lone-surrogates",
            "a text with a lone surrogate is refused with an error response",
            "a text with a lone surrogate is not refused with an error response"),
    Promise("contract-refuses-beta-range",
            "beta outside its declared range is refused with an error response",
            "a beta outside the declared range is not refused with an error response"),
    Promise("contract-limits-accepted",
            "inputs at the limits (max segments, max text bytes, the least and greatest beta) are scored",
            "a valid input at the contract's limits is not scored correctly"),
    Promise("contract-deterministic",
            "the same request twice gives the same answer",
            "the same request twice gives different answers"),
    Promise("contract-request-independence",
            "an answer depends on its own request only (no answer replayed from an earlier request)",
            "an answer is a replay of the answer to an earlier, different request (state kept across "
            "requests, such as a cache keyed on part of the request)"),
    Promise("contract-inputs-not-mutated",
            "inputs are never mutated: the same texts score the same before and after other requests on them",
            "the same request scores differently after other requests on its texts (inputs or state mutated)"),
]

BY_FAMILY = {p.family: p for p in PROMISES}
FAMILIES = [p.family for p in PROMISES]
