"""The entries of the deviation registry, in report order.  Titles are implementation-neutral:
remarks about one library (versions, its source) belong in ``roots`` or ``audit.upstream``."""

from __future__ import annotations

from fractions import Fraction

from .deviation import Deviation


def _sacre(p, level, nrefs, nsegs):
    return p.definition == "sacrebleu"


def _not_sacre(p, level, nrefs, nsegs):
    return p.definition != "sacrebleu"


def _beta_not_1(p, level, nrefs, nsegs):
    return p.beta != 1


def _multi_ref(p, level, nrefs, nsegs):
    return nrefs > 1


def _corpus(p, level, nrefs, nsegs):
    return level == "corpus"


def _corpus_several(p, level, nrefs, nsegs):
    # several segments, or one with several references (read as several one-reference streams)
    return level == "corpus" and (nsegs > 1 or nrefs > 1)


def _corpus_multi_ref(p, level, nrefs, nsegs):
    # (a segment's score is the same either way: an empty reference scores 0, as a segment
    # with no reference does; only its statistics, summed into a corpus, differ)
    return level == "corpus" and nrefs > 1


def _corpus_multi(p, level, nrefs, nsegs):
    return level == "corpus" and nsegs > 1


def _ws_removed_by_claim(p, level, nrefs, nsegs):
    return not p.whitespace


def _ws_removed_by_claim_sacre(p, level, nrefs, nsegs):
    return not p.whitespace and p.definition != "chrfpp"


def _ws_kept_by_claim(p, level, nrefs, nsegs):
    return p.whitespace


def _chrfpp_ws(p, level, nrefs, nsegs):
    return not p.whitespace and p.definition == "chrfpp"


def _lower(p, level, nrefs, nsegs):
    return p.lowercase


def _not_lower(p, level, nrefs, nsegs):
    return not p.lowercase


def _words(p, level, nrefs, nsegs):
    return p.word_order > 0


# -- root causes: upstream library -> (regex on one line of its installed source, what it shows).
# A family never borrows another family's line: two families of one library may share a
# pattern only when SHARED_ROOTS below says they share the cause, and why (checked when the
# registry is built, audit.diagnose.deviations).  sacreBLEU removes whitespace in
# sacrebleu.metrics.helpers (extract_all_char_ngrams), outside the module searched, so its
# whitespace families have no pointer.
_WS_NLTK = (r"redos\.sub\(\s*r?[\"']\\s",
            "`\\s` of nltk's regex wrapper matches Unicode White_Space, which lacks "
            "U+001C..U+001F that str.isspace() (and sacreBLEU) remove")

#: library -> {families: why they share one root-cause line}
SHARED_ROOTS = {
    "nltk": {
        frozenset({"whitespace-set-white-space", "metamorphic-whitespace"}):
            "the metamorphic relation inserts whitespace the definition removes; the characters nltk "
            "keeps (U+001C..U+001F) are the ones its whitespace set lacks, so the relation breaks on the "
            "very line that makes the whitespace set wrong",
    },
}

DEVIATIONS = [
    # -- how per-order statistics become a score
    Deviation(
        "requested-order-divisor",
        "precision and recall are averaged over all requested n-gram orders instead of the effective orders "
        "(those with n-grams on both sides), so inputs shorter than the order are deflated",
        "score", (("divisor", "requested"),), _sacre, "short", "length",
        {"nltk": (r"num_ngram_sizes\s*=\s*len\(",
                  "the divisor is the number of requested orders (every order 1..max_len is a key of "
                  "ngram_fscores, including orders without n-grams, which contribute an epsilon)"),
         "sacrebleu": (r"avg_prec\s*/=\s*effective_order", "averaging of precision and recall over the orders")}),
    Deviation(
        "f-score-averaged",
        "the per-order F-scores are averaged instead of averaging precision and recall first and combining them once",
        "score", (("average", "f"),), _sacre, "unequal-pr", "prefix",
        {"nltk": (r"ngram_fscores\[n\]\.append\(fscore\)",
                  "the per-order F-score is collected and averaged, instead of averaging precision and "
                  "recall over the orders and combining them once"),
         "sacrebleu": (r"score\s*\+=.*denom", "per-order F-scores are summed when eps_smoothing is on")}),
    Deviation(
        "effective-order-divisor",
        "per-order scores are averaged over the effective orders only, where the claimed definition averages "
        "over all requested orders",
        "score", (("divisor", "effective"),), _not_sacre, "short", "length"),
    Deviation(
        "precision-recall-averaged",
        "precision and recall are averaged over orders and combined once, where the claimed definition "
        "averages per-order F-scores",
        "score", (("average", "pr"),), _not_sacre, "unequal-pr", "prefix"),
    Deviation(
        "precision-recall-pooled",
        "precision and recall are each computed once over the n-grams of all orders pooled together, "
        "instead of per order and then averaged",
        "score", (("average", "pooled"),), trigger="unequal-pr", sweep="prefix"),
    Deviation(
        "beta-not-squared", "F-beta is computed with beta instead of beta squared",
        "score", (("beta_not_squared", True),), _beta_not_1, "unequal-pr", "prefix"),
    Deviation(
        "wrong-beta", "F is computed with a beta other than the claimed one",
        "score", tuple(("beta", Fraction(b)) for b in (1, 2, 3, Fraction(1, 2))), trigger="unequal-pr",
        sweep="prefix",
        # not the claimed beta, nor the betas that are the same formula as the swap (1/beta)
        # or as beta-not-squared (sqrt(beta))
        model_filter=lambda p, m: m[1] not in (p.beta, 1 / p.beta) and m[1] * m[1] != p.beta),
    Deviation(
        "precision-recall-swapped", "precision and recall are swapped in the F-beta formula (beta weights precision)",
        "score", (("swapped", True),), _beta_not_1, "unequal-pr", "prefix"),
    Deviation(
        "empty-input-perfect", "an input with no n-grams on either side scores 100 instead of 0",
        "score", (("empty_perfect", True),), trigger="empty"),
    Deviation(
        "empty-input-epsilon", "an input with no n-grams on either side scores a smoothing epsilon instead of 0",
        "score"),
    # -- counting
    Deviation(
        "no-clipping",
        "matches are not clipped: repeated n-grams are counted more often than the reference holds them",
        "text", (("clip", False),), trigger="repeats",
        roots={"sacrebleu": (r"def _get_match_statistics", "match counting")}),
    Deviation(
        "hypothesis-ngrams-where-reference-has-none",
        "hypothesis n-grams are counted for orders the reference has none of",
        "text", (("hyp_where_no_ref", True),), _corpus, "short-references",
        roots={"torchmetrics": (
            r"total_preds_char_n_grams = _sum_over_dicts\(total_preds_char_n_grams, pred_char_n_grams\)",
            "the hypothesis n-grams of every order are added to the corpus totals before the best "
            "reference is known, also for orders that reference has no n-gram of")}),
    Deviation(
        "wrong-ngram-orders", "the wrong set of n-gram orders is used (off by one)",
        "text", (("orders", "minus-one"), ("orders", "plus-one"), ("orders", "from-two")), trigger="plain",
        sweep="length", model_filter=lambda p, m: not (m[1] == "minus-one" and p.char_order == 1)),
    # -- text handling
    Deviation("whitespace-set-ascii-space", "only U+0020 is removed, other whitespace is scored as characters",
              "text", (("ws", "whitespace-set-ascii-space"),), _ws_removed_by_claim_sacre, "whitespace", "whitespace"),
    Deviation("whitespace-set-ascii",
              "only ASCII whitespace is removed, Unicode whitespace is scored as characters",
              "text", (("ws", "whitespace-set-ascii"),), _ws_removed_by_claim_sacre, "whitespace", "whitespace"),
    Deviation("whitespace-set-white-space",
              "Unicode White_Space is removed instead of every str.isspace() code point: U+001C..U+001F are "
              "scored as characters",
              "text", (("ws", "whitespace-set-white-space"),), _ws_removed_by_claim_sacre, "whitespace",
              "whitespace", {"nltk": _WS_NLTK}),
    Deviation("whitespace-set-isspace",
              "every str.isspace() code point is removed, where the claimed definition (chrF++.py) removes only "
              "U+0020 inside a line",
              "text", (("ws", "whitespace-set-isspace"),), _chrfpp_ws, "whitespace", "whitespace"),
    Deviation("whitespace-stripped-ends-only",
              "whitespace is stripped from the ends of the text only; whitespace inside it is scored as characters",
              "text", (("ws", "whitespace-stripped-ends-only"),), _ws_removed_by_claim_sacre, "whitespace",
              "whitespace"),
    Deviation("whitespace-kept", "whitespace is scored as characters although the definition removes it",
              "text", (("ws", "whitespace-kept"),), _ws_removed_by_claim, "whitespace", "whitespace"),
    Deviation("whitespace-removed", "whitespace is removed although the claimed parameters keep it",
              "text", (("ws", "whitespace-removed"),), _ws_kept_by_claim, "whitespace", "whitespace"),
    Deviation("format-characters-deleted",
              "format characters (U+FEFF, the zero-width (non-)joiners U+200C/U+200D, the direction marks "
              "U+200E/U+200F) are deleted before counting",
              "text", (("format_deleted", "bom"), ("format_deleted", "format")), trigger="format",
              sweep="format-characters"),
    Deviation("case-folded", "text is lowercased although the claimed parameters are case-sensitive",
              "text", (("case", "case-folded"),), _not_lower, "case"),
    Deviation("case-not-folded", "text is not lowercased although the claimed parameters ask for it",
              "text", (("case", "case-not-folded"),), _lower, "case"),
    Deviation("casefold-instead-of-lower",
              "str.casefold() (full case folding, e.g. ß -> ss) is used instead of str.lower()",
              "text", (("case", "casefold-instead-of-lower"),), _lower, "casefold"),
    Deviation("utf8-bytes", "n-grams are over UTF-8 bytes instead of code points",
              "text", (("units", "utf8-bytes"),), trigger="non-ascii"),
    Deviation("utf16-code-units",
              "n-grams are over UTF-16 code units instead of code points (non-BMP characters count twice)",
              "text", (("units", "utf16-code-units"),), trigger="non-bmp"),
    Deviation("unicode-normalization", "text is Unicode-normalized (NFC/NFD/NFKC/NFKD) before counting",
              "text", tuple(("units", u) for u in ("NFC", "NFD", "NFKC", "NFKD")), trigger="normalization"),
    Deviation("word-punctuation-not-split", "chrF++ word tokens keep their ASCII punctuation attached",
              "text", (("words", "word-punctuation-not-split"),), _words, "punctuation",
              roots={"sacrebleu": (r"if w\[-1\] in self\._PUNCTS",
                                   "the split of punctuation off the end of a word")}),
    Deviation("word-punctuation-split-both", "chrF++ word tokens have punctuation split off both ends",
              "text", (("words", "word-punctuation-split-both"),), _words, "punctuation",
              roots={"sacrebleu": (r"elif w\[0\] in self\._PUNCTS",
                                   "the split of punctuation off the start of a word, made only when none ends it")}),
    # -- references and corpus
    Deviation("corpus-macro-average",
              "the corpus score is the mean of sentence scores instead of being computed from summed statistics",
              "score", (("macro", True),), _corpus_multi, "segments", "corpus-size",
              {"nltk": (r"return .*/\s*num_sents",
                        "the corpus score divides the summed sentence-level F-scores by the number of "
                        "sentences (a macro-average) instead of scoring the summed n-gram statistics"),
               "sacrebleu": (r"def _aggregate_and_compute", "corpus aggregation of statistics")}),
    Deviation("best-reference-sentinel-zero",
              "the best-reference search starts from a score of 0, so a segment that scores 0 against every "
              "reference contributes no statistics to the corpus",
              "score", (("references", "sentinel-zero"),), _corpus, "zero-segments", "zero-segments",
              {"sacrebleu": (r"best_f_score\s*=\s*-?[\d.]+\s*$",
                             "the best-reference search's starting score: from 0 instead of below every F-score, "
                             "a segment that scores 0 against every reference adds no statistics")}),
    Deviation("unmatched-segment-reference-dropped",
              "a segment that matches none of its references adds its hypothesis n-grams but no reference "
              "n-grams to the corpus statistics, so corpus recall is inflated",
              "score", (("unmatched_dropped", True), ("unmatched_dropped", "all")), _corpus, "zero-segments",
              roots={"torchmetrics": (
                  r"if f_score > best_f_score:",
                  "a reference is kept only when its F is strictly above 0, so a segment that matches no "
                  "reference keeps the empty initial statistics: its reference n-grams never reach the "
                  "corpus totals, while its hypothesis n-grams do")}),
    Deviation("first-reference-only", "only the first reference is used instead of the best one",
              "score", (("references", "first"),), _multi_ref, "references",
              roots={"sacrebleu": (r"for _ref_ngrams in ref_kwargs\[",
                                   "the loop over the segment's references (the first alone would skip the others)")}),
    Deviation("references-averaged",
              "scores against several references are averaged instead of taking the best",
              "score", (("references", "mean"),), _multi_ref, "references",
              roots={"sacrebleu": (r"if f_score > best_f_score:",
                                   "the best-scoring reference's statistics are kept here (a mean would replace this choice)")}),
    # -- how references and segments are read (layout)
    Deviation("reference-string-as-list",
              "a reference string is iterated as a list of references: the hypothesis is scored against its "
              "first character (or against each of its characters)",
              "text", (("refs_layout", "first-character"), ("refs_layout", "characters")), trigger="plain"),
    Deviation("references-joined",
              "a segment's references are joined into one reference instead of scoring each and taking the best",
              "text", (("refs_layout", "joined"),), _multi_ref, "references"),
    Deviation("empty-references-dropped",
              "empty references are dropped, and a segment left without a reference is skipped, instead of "
              "scoring against the empty reference",
              "text", (("refs_layout", "empty-dropped"),), _corpus_multi_ref, "empty-references"),
    Deviation("reference-streams-transposed",
              "the corpus references are read as reference streams (zip(*references), one list per reference "
              "position) instead of one list of references per segment",
              "text", (("corpus_layout", "transposed"),), _corpus_several, "segments"),
    Deviation("corpus-single-segment",
              "the corpus score is computed from one segment only (the first or the last) instead of all of them",
              "text", (("corpus_layout", "first-segment"), ("corpus_layout", "last-segment")), _corpus_multi,
              "segments", "corpus-size"),
    # -- claimed parameters the implementation does not honour (found by configuring it)
    *(Deviation(f"parameter-ignored-{name.replace('_', '-')}",
                f"the {name} parameter is accepted but ignored: the implementation computes with its default "
                f"value whatever it is given", "claims")
      for name in ("char_order", "word_order", "beta", "lowercase", "whitespace")),
    # -- output
    Deviation("precision-loss", "the score is rounded or computed in low precision", "output", trigger="plain"),
    Deviation("float32-arithmetic", "the score is computed in single-precision (float32) arithmetic throughout",
              "output", trigger="plain", sweep="prefix",
              roots={"torchmetrics": (
                  r"n: matching_n_grams\[n\] / hyp_n_grams\[n\]",
                  "precision, recall and F are computed on float32 tensors (every count and total starts "
                  "as tensor(0.0), torch's default dtype), so the score carries float32 rounding")}),
    # -- outcomes that need no model
    Deviation("exception", "the implementation raised an exception", "outcome"),
    Deviation("crash", "the implementation's process died", "outcome"),
    Deviation("timeout", "the implementation did not answer within the timeout", "outcome"),
    Deviation("invalid-output", "the implementation returned something that is not a finite number", "outcome"),
    Deviation("out-of-range", "the score is outside [0, scale]", "outcome"),
    Deviation("nondeterminism", "the same input gave different scores on repeated calls", "outcome"),
    Deviation("metamorphic-identical-not-perfect", "an identical non-empty hypothesis and reference do not score 100",
              "metamorphic", sweep="length"),
    Deviation("metamorphic-segment-order", "the corpus score changes when segments are reordered", "metamorphic",
              sweep="corpus-size"),
    Deviation("metamorphic-whitespace", "inserting whitespace that the definition removes changes the score",
              "metamorphic", sweep="whitespace", roots={"nltk": _WS_NLTK}),
    Deviation("metamorphic-added-reference", "adding a reference lowers a best-reference sentence score",
              "metamorphic"),
    Deviation("unexplained", "the score differs from the definition and no known deviation explains it",
              "unexplained"),
]


# -- service contracts (audit.contract, --http): one family per promise of a scoring contract.
# Outcome-like entries without a model: the contract checks judge them, not audit.diagnose.explain.
# Kept in this one block; their texts live with the promises (audit/contract/promises.py).
def _contract_entries():
    from ...contract.promises import PROMISES

    return [Deviation(p.family, p.title, "contract") for p in PROMISES]


DEVIATIONS += _contract_entries()
