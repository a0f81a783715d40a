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


def _beyond_two(p, level, nrefs, nsegs):
    return nrefs > 2


from .shared import _WS_NLTK, _WS_RIVALS, RIVALS, SHARED_ROOTS  # noqa: E402,F401 - re-exported

DEVIATIONS = [
    # -- how per-order statistics become a score
    Deviation(
        id="requested-order-divisor",
        title="the per-order scores (precision and recall, or F) are averaged over all requested n-gram orders instead of the effective orders "
        "(those with n-grams on both sides), so inputs shorter than the order are deflated",
        stage="score", models=(("divisor", "requested"),), applies=_sacre, trigger="short", sweep="length",
        rivals=("empty-order-scores-one", "reference-length-order-cap"),
        roots={"nltk": (r"num_ngram_sizes\s*=\s*len\(",
                  "the divisor is the number of requested orders (every order 1..max_len is a key of "
                  "ngram_fscores, including orders without n-grams, which contribute an epsilon)"),
         "sacrebleu": (r"avg_prec\s*/=\s*effective_order", "averaging of precision and recall over the orders")}),
    Deviation(
        id="f-score-averaged",
        title="the per-order F-scores are averaged instead of averaging precision and recall first and combining them once",
        stage="score", models=(("average", "f"),), applies=_sacre, trigger="unequal-pr", sweep="prefix",
        rivals=("precision-recall-pooled", "char-word-f-averaged"),
        roots={"nltk": (r"ngram_fscores\[n\]\.append\(fscore\)",
                  "the per-order F-score is collected and averaged, instead of averaging precision and "
                  "recall over the orders and combining them once"),
         "sacrebleu": (r"score\s*\+=.*denom", "per-order F-scores are summed when eps_smoothing is on")}),
    Deviation(
        id="effective-order-divisor",
        title="per-order scores are averaged over the effective orders only, where the claimed definition averages "
        "over all requested orders",
        stage="score", models=(("divisor", "effective"),), applies=_not_sacre, trigger="short", sweep="length",
        rivals=("reference-length-order-cap",)),
    Deviation(
        id="precision-recall-averaged",
        title="precision and recall are averaged over orders and combined once, where the claimed definition "
        "averages per-order F-scores",
        stage="score", models=(("average", "pr"),), applies=_not_sacre, trigger="unequal-pr", sweep="prefix",
        rivals=("precision-recall-pooled",)),
    Deviation(
        id="precision-recall-pooled",
        title="precision and recall are each computed once over the n-grams of all orders pooled together, "
        "instead of per order and then averaged",
        stage="score", models=(("average", "pooled"),), trigger="unequal-pr", sweep="prefix"),
    Deviation(
        id="beta-not-squared", title="F-beta is computed with beta instead of beta squared",
        stage="score", models=(("beta_not_squared", True),), applies=_beta_not_1, trigger="unequal-pr", sweep="prefix"),
    Deviation(
        id="wrong-beta", title="F is computed with a beta other than the claimed one",
        stage="score", models=tuple(("beta", Fraction(b)) for b in (1, 2, 3, Fraction(1, 2))), trigger="unequal-pr",
        sweep="prefix",
        # not the claimed beta, nor the betas that are the same formula as the swap (1/beta)
        # or as beta-not-squared (sqrt(beta))
        model_filter=lambda p, m: m[1] not in (p.beta, 1 / p.beta) and m[1] * m[1] != p.beta),
    Deviation(
        id="precision-recall-swapped", title="precision and recall are swapped in the F-beta formula (beta weights precision)",
        stage="score", models=(("swapped", True),), applies=_beta_not_1, trigger="unequal-pr", sweep="prefix"),
    Deviation(
        id="empty-input-perfect", title="an input with no n-grams on either side scores 100 instead of 0",
        stage="score", models=(("empty_perfect", True),), trigger="empty", rivals=("empty-order-scores-one",)),
    Deviation(
        id="empty-input-epsilon", title="an input with no n-grams on either side scores a smoothing epsilon instead of 0",
        stage="score"),
    # -- counting
    Deviation(
        id="no-clipping",
        title="matches are not clipped: repeated n-grams are counted more often than the reference holds them",
        stage="text", models=(("clip", False),), trigger="repeats",
        roots={"sacrebleu": (r"def _get_match_statistics", "match counting")}),
    Deviation(
        id="hypothesis-ngrams-where-reference-has-none",
        title="hypothesis n-grams are counted for orders the reference has none of",
        stage="text", models=(("hyp_where_no_ref", True),), applies=_corpus, trigger="short-references",
        rivals=("unmatched-segment-reference-dropped", "incomplete-batch-dropped"),
        roots={"torchmetrics": (
            r"total_preds_char_n_grams = _sum_over_dicts\(total_preds_char_n_grams, pred_char_n_grams\)",
            "the hypothesis n-grams of every order are added to the corpus totals before the best "
            "reference is known, also for orders that reference has no n-gram of")}),
    Deviation(
        id="wrong-ngram-orders", title="the wrong set of n-gram orders is used (off by one)",
        stage="text", models=(("orders", "minus-one"), ("orders", "plus-one"), ("orders", "from-two")), trigger="plain",
        sweep="length", model_filter=lambda p, m: not (m[1] == "minus-one" and p.char_order == 1),
        rivals=("requested-order-divisor", "text-truncated")),
    # -- text handling
    Deviation(id="whitespace-set-ascii-space", title="only U+0020 is removed, other whitespace is scored as characters",
              stage="text", models=(("ws", "whitespace-set-ascii-space"),), applies=_ws_removed_by_claim_sacre, trigger="whitespace", sweep="whitespace",
              rivals=_WS_RIVALS),
    Deviation(id="whitespace-set-ascii",
              title="only ASCII whitespace is removed (C isspace() in the C locale, Java's regex \\s), Unicode "
              "whitespace is scored as characters",
              stage="text", models=(("ws", "whitespace-set-ascii"),), applies=_ws_removed_by_claim_sacre, trigger="whitespace", sweep="whitespace",
              rivals=_WS_RIVALS),
    Deviation(id="whitespace-set-white-space",
              title="Unicode White_Space is removed (Rust char::is_whitespace, Go unicode.IsSpace) instead of every "
              "str.isspace() code point: U+001C..U+001F are scored as characters",
              stage="text", models=(("ws", "whitespace-set-white-space"),), applies=_ws_removed_by_claim_sacre, trigger="whitespace",
              sweep="whitespace", roots={"nltk": _WS_NLTK}, rivals=_WS_RIVALS),
    Deviation(id="whitespace-set-java",
              title="Java's Character.isWhitespace set is removed instead of every str.isspace() code point: the "
              "no-break spaces U+00A0, U+2007, U+202F and U+0085 are scored as characters",
              stage="text", models=(("ws", "whitespace-set-java"),), applies=_ws_removed_by_claim_sacre, trigger="whitespace",
              sweep="whitespace", rivals=_WS_RIVALS),
    Deviation(id="whitespace-set-javascript",
              title="JavaScript's \\s set is removed (trim(), split(/\\s+/)) instead of every str.isspace() code point: "
              "U+001C..U+001F and U+0085 are scored as characters, U+FEFF is removed",
              stage="text", models=(("ws", "whitespace-set-javascript"),), applies=_ws_removed_by_claim_sacre,
              trigger="whitespace", sweep="whitespace", rivals=_WS_RIVALS),
    Deviation(id="whitespace-set-isspace",
              title="every str.isspace() code point is removed, where the claimed definition (chrF++.py) removes only "
              "U+0020 inside a line",
              stage="text", models=(("ws", "whitespace-set-isspace"),), applies=_chrfpp_ws, trigger="whitespace", sweep="whitespace",
              rivals=_WS_RIVALS),
    Deviation(id="whitespace-stripped-ends-only",
              title="whitespace is stripped from the ends of the text only; whitespace inside it is scored as characters",
              stage="text", models=(("ws", "whitespace-stripped-ends-only"),), applies=_ws_removed_by_claim_sacre, trigger="whitespace",
              sweep="whitespace", rivals=_WS_RIVALS),
    Deviation(id="whitespace-kept", title="whitespace is scored as characters although the definition removes it",
              stage="text", models=(("ws", "whitespace-kept"),), applies=_ws_removed_by_claim, trigger="whitespace", sweep="whitespace",
              rivals=_WS_RIVALS),
    Deviation(id="whitespace-removed", title="whitespace is removed although the claimed parameters keep it",
              stage="text", models=(("ws", "whitespace-removed"),), applies=_ws_kept_by_claim, trigger="whitespace", sweep="whitespace",
              rivals=_WS_RIVALS),
    Deviation(id="format-characters-deleted",
              title="format characters (U+FEFF, the zero-width (non-)joiners U+200C/U+200D, the direction marks "
              "U+200E/U+200F) are deleted before counting",
              stage="text", models=(("format_deleted", "bom"), ("format_deleted", "format")), trigger="format",
              sweep="format-characters", rivals=("unicode-normalization", "whitespace-set-javascript")),
    Deviation(id="case-folded", title="text is lowercased although the claimed parameters are case-sensitive",
              stage="text", models=(("case", "case-folded"),), applies=_not_lower, trigger="case"),
    Deviation(id="case-not-folded", title="text is not lowercased although the claimed parameters ask for it",
              stage="text", models=(("case", "case-not-folded"),), applies=_lower, trigger="case"),
    Deviation(id="casefold-instead-of-lower",
              title="str.casefold() (full case folding, e.g. ß -> ss) is used instead of str.lower()",
              stage="text", models=(("case", "casefold-instead-of-lower"),), applies=_lower, trigger="casefold",
              rivals=("lowercase-mapping-not-python", "unicode-normalization")),
    Deviation(id="utf8-bytes", title="n-grams are over UTF-8 bytes (Go, Rust and C++ byte strings) instead of code points",
              stage="text", models=(("units", "utf8-bytes"),), trigger="non-ascii",
              rivals=("utf16-code-units", "unicode-normalization")),
    Deviation(id="utf16-code-units",
              title="n-grams are over UTF-16 code units (Java and JavaScript strings) instead of code points "
              "(non-BMP characters count twice)",
              stage="text", models=(("units", "utf16-code-units"),), trigger="non-bmp", rivals=("utf8-bytes",)),
    Deviation(id="unicode-normalization", title="text is Unicode-normalized (NFC/NFD/NFKC/NFKD) before counting",
              stage="text", models=tuple(("units", u) for u in ("NFC", "NFD", "NFKC", "NFKD")), trigger="normalization"),
    Deviation(id="word-punctuation-not-split", title="chrF++ word tokens keep their ASCII punctuation attached",
              stage="text", models=(("words", "word-punctuation-not-split"),), applies=_words, trigger="punctuation",
              rivals=("word-punctuation-split-both", "regex-word-runs"),
              roots={"sacrebleu": (r"if w\[-1\] in self\._PUNCTS",
                                   "the split of punctuation off the end of a word")}),
    Deviation(id="word-punctuation-split-both", title="chrF++ word tokens have punctuation split off both ends",
              stage="text", models=(("words", "word-punctuation-split-both"),), applies=_words, trigger="punctuation",
              rivals=("regex-word-runs",),
              roots={"sacrebleu": (r"elif w\[0\] in self\._PUNCTS",
                                   "the split of punctuation off the start of a word, made only when none ends it")}),
    # -- references and corpus
    Deviation(id="corpus-macro-average",
              title="the corpus score is the mean of sentence scores instead of being computed from summed statistics",
              stage="score", models=(("macro", True),), applies=_corpus_multi, trigger="segments", sweep="corpus-size",
              rivals=("corpus-length-weighted-mean", "corpus-single-segment"),
              roots={"nltk": (r"return .*/\s*num_sents",
                        "the corpus score divides the summed sentence-level F-scores by the number of "
                        "sentences (a macro-average) instead of scoring the summed n-gram statistics"),
               "sacrebleu": (r"def _aggregate_and_compute", "corpus aggregation of statistics")}),
    Deviation(id="best-reference-sentinel-zero",
              title="the best-reference search starts from a score of 0, so a segment that scores 0 against every "
              "reference contributes no statistics to the corpus",
              stage="score", models=(("references", "sentinel-zero"),), applies=_corpus, trigger="zero-segments", sweep="zero-segments",
              rivals=("unmatched-segment-reference-dropped", "incomplete-batch-dropped", "empty-references-dropped"),
              roots={"sacrebleu": (r"best_f_score\s*=\s*-?[\d.]+\s*$",
                             "the best-reference search's starting score: from 0 instead of below every F-score, "
                             "a segment that scores 0 against every reference adds no statistics")}),
    Deviation(id="unmatched-segment-reference-dropped",
              title="a segment that matches none of its references adds its hypothesis n-grams but no reference "
              "n-grams to the corpus statistics, so corpus recall is inflated",
              stage="score", models=(("unmatched_dropped", True), ("unmatched_dropped", "all")), applies=_corpus, trigger="zero-segments",
              rivals=("incomplete-batch-dropped",),
              roots={"torchmetrics": (
                  r"if f_score > best_f_score:",
                  "a reference is kept only when its F is strictly above 0, so a segment that matches no "
                  "reference keeps the empty initial statistics: its reference n-grams never reach the "
                  "corpus totals, while its hypothesis n-grams do")}),
    Deviation(id="first-reference-only", title="only the first reference is used instead of the best one",
              stage="score", models=(("references", "first"),), applies=_multi_ref, trigger="references",
              rivals=("references-beyond-first-ignored", "reference-string-as-list", "references-joined"),
              roots={"sacrebleu": (r"for _ref_ngrams in ref_kwargs\[",
                                   "the loop over the segment's references (the first alone would skip the others)")}),
    Deviation(id="references-averaged",
              title="scores against several references are averaged instead of taking the best",
              stage="score", models=(("references", "mean"),), applies=_multi_ref, trigger="references",
              rivals=("references-joined",),
              roots={"sacrebleu": (r"if f_score > best_f_score:",
                                   "the best-scoring reference's statistics are kept here (a mean would replace this choice)")}),
    # -- how references and segments are read (layout)
    Deviation(id="reference-string-as-list",
              title="a reference string is iterated as a list of references: the hypothesis is scored against its "
              "first character (or against each of its characters)",
              stage="text", models=(("refs_layout", "first-character"), ("refs_layout", "characters")), trigger="plain"),
    Deviation(id="references-joined",
              title="a segment's references are joined into one reference instead of scoring each and taking the best",
              stage="text", models=(("refs_layout", "joined"),), applies=_multi_ref, trigger="references"),
    Deviation(id="empty-references-dropped",
              title="empty references are dropped, and a segment left without a reference is skipped, instead of "
              "scoring against the empty reference",
              stage="text", models=(("refs_layout", "empty-dropped"),), applies=_corpus_multi_ref, trigger="empty-references",
              rivals=("reference-ties-to-last", "unmatched-segment-reference-dropped")),
    Deviation(id="reference-streams-transposed",
              title="the corpus references are read as reference streams (zip(*references), one list per reference "
              "position) instead of one list of references per segment",
              stage="text", models=(("corpus_layout", "transposed"),), applies=_corpus_several, trigger="segments",
              rivals=("corpus-single-segment", "incomplete-batch-dropped")),
    Deviation(id="corpus-single-segment",
              title="the corpus score is computed from one segment only (the first or the last) instead of all of them",
              stage="text", models=(("corpus_layout", "first-segment"), ("corpus_layout", "last-segment")), applies=_corpus_multi,
              trigger="segments", sweep="corpus-size", rivals=("incomplete-batch-dropped",)),
    # -- seen in real code (issue 30): each declared once, with its distinguishing inputs
    Deviation(id="lowercase-mapping-not-python",
              title="text is lowercased by a mapping other than str.lower(): one code point to one (Go unicode.ToLower, "
              "Java Character.toLowerCase: U+0130 to i, no word-final sigma), each code point alone (Rust "
              "char::to_lowercase: no word-final sigma), or A-Z only (C tolower() in the C locale)",
              stage="text", models=(("case", "lower-simple"), ("case", "lower-per-character"), ("case", "lower-ascii")),
              applies=_lower, trigger="case-mappings", rivals=("case-not-folded",)),
    Deviation(id="reference-length-order-cap",
              title="the orders averaged over are those the reference has n-grams of (the requested orders capped by "
              "the reference's length), so an order the hypothesis is too short for counts as 0",
              stage="score", models=(("divisor", "reference"),), trigger="short-hypotheses", sweep="length"),
    Deviation(id="whitespace-collapsed",
              title="runs of whitespace are collapsed to one space and the ends stripped, and the spaces are scored "
              "as characters, instead of the claimed whitespace handling",
              stage="text", models=(("ws", "whitespace-collapsed"),), trigger="whitespace", sweep="whitespace",
              rivals=_WS_RIVALS + ("whitespace-removed",)),
    Deviation(id="char-word-f-averaged",
              title="the chrF++ score is the mean of a character F and a word F, each from its own orders, instead of "
              "one F over the character and word orders together",
              stage="score", models=(("average", "char-word-mean"),), applies=_words, trigger="char-word"),
    Deviation(id="empty-order-scores-one",
              title="an n-gram order without n-grams scores 1 (precision and recall 1) instead of being left out, and "
              "every requested order counts",
              stage="score", models=(("empty_order", "both"), ("empty_order", "side")), trigger="short"),
    Deviation(id="text-truncated",
              title="texts are cut to their first N characters before scoring (the hypothesis alone, or every text)",
              stage="text", models=tuple(("truncate", (side, n)) for side in ("hypothesis", "both")
                                         for n in (64, 100, 128, 200, 256, 500, 512, 1000, 1024)),
              trigger="long"),
    Deviation(id="references-beyond-first-ignored",
              title="only the first K references of a segment are used (K = 2, 3 or 4): the references after them "
              "are ignored",
              stage="text", models=(("refs_layout", "first-2"), ("refs_layout", "first-3"), ("refs_layout", "first-4")),
              applies=_beyond_two, trigger="many-references", rivals=("first-reference-only",)),
    Deviation(id="corpus-length-weighted-mean",
              title="the corpus score is the mean of the sentence scores weighted by text length instead of being "
              "computed from summed statistics",
              stage="score", models=(("macro", "hypothesis-length"), ("macro", "reference-length")),
              applies=_corpus_multi, trigger="segment-lengths", sweep="corpus-size"),
    # -- claimed parameters the implementation does not honour (found by configuring it)
    *(Deviation(id=f"parameter-ignored-{name.replace('_', '-')}",
                title=f"the {name} parameter is accepted but ignored: the implementation computes with its default "
                f"value whatever it is given", stage="claims")
      for name in ("char_order", "word_order", "beta", "lowercase", "whitespace")),
    # -- output
    Deviation(id="precision-loss", title="the score is rounded (half to even, half up or toward zero) or computed in "
              "low precision", stage="output", trigger="rounding"),
    Deviation(id="float32-arithmetic", title="the score is computed in single-precision (float32) arithmetic throughout",
              stage="output", trigger="plain", sweep="prefix",
              roots={"torchmetrics": (
                  r"n: matching_n_grams\[n\] / hyp_n_grams\[n\]",
                  "precision, recall and F are computed on float32 tensors (every count and total starts "
                  "as tensor(0.0), torch's default dtype), so the score carries float32 rounding")}),
    # -- outcomes that need no model
    Deviation(id="exception", title="the implementation raised an exception", stage="outcome"),
    Deviation(id="crash", title="the implementation's process died", stage="outcome"),
    Deviation(id="timeout", title="the implementation did not answer within the timeout", stage="outcome"),
    Deviation(id="invalid-output", title="the implementation returned something that is not a finite number", stage="outcome"),
    Deviation(id="out-of-range", title="the score is outside [0, scale]", stage="outcome"),
    Deviation(id="nondeterminism", title="the same input gave different scores on repeated calls", stage="outcome"),
    Deviation(id="stateful", title="the same input scores differently in a fresh process: the implementation keeps "
              "state between calls (a cache, a counter) that changes its answers", stage="outcome"),
    Deviation(id="arguments-mutated", title="the implementation changed the lists it was given (its caller's data)",
              stage="outcome"),
    Deviation(id="metamorphic-identical-not-perfect", title="an identical non-empty hypothesis and reference do not score 100",
              stage="metamorphic", sweep="length"),
    Deviation(id="metamorphic-segment-order", title="the corpus score changes when segments are reordered", stage="metamorphic",
              sweep="corpus-size"),
    Deviation(id="metamorphic-whitespace", title="inserting whitespace that the definition removes changes the score",
              stage="metamorphic", sweep="whitespace", roots={"nltk": _WS_NLTK}),
    Deviation(id="metamorphic-added-reference", title="adding a reference lowers a best-reference sentence score",
              stage="metamorphic"),
    Deviation(id="unexplained", title="the score differs from the definition and no known deviation explains it",
              stage="unexplained"),
]


# -- service contracts (audit.contract, --http): one family per promise of a scoring contract.
# Outcome-like entries without a model: the contract checks judge them, not audit.diagnose.explain.
# Kept in this one block; their texts live with the promises (audit/contract/promises.py).
def _contract_entries():
    from ...contract.promises import PROMISES

    return [Deviation(id=p.family, title=p.title, stage="contract") for p in PROMISES]


DEVIATIONS += _contract_entries()
