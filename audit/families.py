"""The named families of chrF bugs: stable kebab-case ids and one-sentence explanations.

A family is either a *deviation* (a small exact bug model, see ``audit.models``) or an
outcome that no model needs (crash, timeout, ...).  Ids are stable: baselines, JSON reports
and the pytest plugin key on them.
"""

from __future__ import annotations

FAMILIES: dict[str, str] = {
    # -- how per-order statistics become a score
    "requested-order-divisor": "precision and recall are averaged over all requested n-gram orders instead of the effective orders (those with n-grams on both sides), so inputs shorter than the order are deflated",
    "f-score-averaged": "the per-order F-scores are averaged instead of averaging precision and recall first and combining them once",
    "effective-order-divisor": "per-order scores are averaged over the effective orders only, where the claimed definition averages over all requested orders",
    "precision-recall-averaged": "precision and recall are averaged over orders and combined once, where the claimed definition averages per-order F-scores",
    "beta-not-squared": "F-beta is computed with beta instead of beta squared",
    "precision-recall-swapped": "precision and recall are swapped in the F-beta formula (beta weights precision)",
    "empty-input-perfect": "an input with no n-grams on either side scores 100 instead of 0",
    "empty-input-epsilon": "an input with no n-grams on either side scores a smoothing epsilon instead of 0",
    # -- counting
    "no-clipping": "matches are not clipped: repeated n-grams are counted more often than the reference holds them",
    "hypothesis-ngrams-where-reference-has-none": "hypothesis n-grams are counted for orders the reference has none of",
    "wrong-ngram-orders": "the wrong set of n-gram orders is used (off by one)",
    # -- text handling
    "whitespace-set-ascii-space": "only U+0020 is removed, other whitespace is scored as characters",
    "whitespace-set-ascii": "only ASCII whitespace is removed, Unicode whitespace is scored as characters",
    "whitespace-set-white-space": "Unicode White_Space is removed instead of every str.isspace() code point: U+001C..U+001F are scored as characters (nltk >= 3.10.4)",
    "whitespace-set-isspace": "every str.isspace() code point is removed, where the claimed definition (chrF++.py) removes only U+0020 inside a line",
    "whitespace-kept": "whitespace is scored as characters although the definition removes it",
    "whitespace-removed": "whitespace is removed although the claimed parameters keep it",
    "case-folded": "text is lowercased although the claimed parameters are case-sensitive",
    "case-not-folded": "text is not lowercased although the claimed parameters ask for it",
    "casefold-instead-of-lower": "str.casefold() (full case folding, e.g. ß -> ss) is used instead of str.lower()",
    "utf8-bytes": "n-grams are over UTF-8 bytes instead of code points",
    "utf16-code-units": "n-grams are over UTF-16 code units instead of code points (non-BMP characters count twice)",
    "unicode-normalization": "text is Unicode-normalized (NFC/NFD/NFKC/NFKD) before counting",
    "word-punctuation-not-split": "chrF++ word tokens keep their ASCII punctuation attached",
    "word-punctuation-split-both": "chrF++ word tokens have punctuation split off both ends",
    # -- references and corpus
    "corpus-macro-average": "the corpus score is the mean of sentence scores instead of being computed from summed statistics",
    "first-reference-only": "only the first reference is used instead of the best one",
    "unmatched-segment-reference-dropped": "a segment that matches none of its references adds its hypothesis n-grams but no reference n-grams to the corpus statistics, so corpus recall is inflated",
    "references-averaged": "scores against several references are averaged instead of taking the best",
    # -- output
    "precision-loss": "the score is rounded or computed in low precision",
    # -- outcomes that need no model
    "exception": "the implementation raised an exception",
    "crash": "the implementation's process died",
    "timeout": "the implementation did not answer within the timeout",
    "invalid-output": "the implementation returned something that is not a finite number",
    "out-of-range": "the score is outside [0, scale]",
    "nondeterminism": "the same input gave different scores on repeated calls",
    "metamorphic-identical-not-perfect": "an identical non-empty hypothesis and reference do not score 100",
    "metamorphic-segment-order": "the corpus score changes when segments are reordered",
    "metamorphic-whitespace": "inserting whitespace that the definition removes changes the score",
    "metamorphic-added-reference": "adding a reference lowers a best-reference sentence score",
    "unexplained": "the score differs from the definition and no known deviation explains it",
}


def title(family: str) -> str:
    return FAMILIES.get(family, family)
