"""What nltk documents about its chrF and what its tracker (and sacreBLEU's) already says: the
record the issue files cite (``records.Knowledge``).

The quotes are nltk 3.10.4's docstrings, verbatim.  Every related issue and pull request was
looked up on its tracker before it was written here (number, title, state, year).
"""

from __future__ import annotations

from .nltk_patches import DIVISOR, FAVG, MACRO, WS
from .records import BUG, DEFINITION, Documented, FamilyNote, Knowledge, Related

NLTK, SACREBLEU = "nltk/nltk", "mjpost/sacrebleu"

_DEFAULT_KEPT = ("the patch adds it behind a keyword and keeps the default, because nltk's docstring promises "
                 "chrF++.py's results")

KNOWLEDGE = Knowledge(
    documented=Documented(
        where="nltk/translate/chrf_score.py, the docstrings of sentence_chrf and corpus_chrf",
        quotes=(
            "The code should output results equivalent to running CHRF++ with the following options: -nw 0 -b 3",
            ":param ignore_whitespace: ignore whitespace characters in scoring",
            "Calculates the corpus level CHRF (Character n-gram F-score), it is the macro-averaged value of the "
            "sentence/segment level CHRF score.",
        ),
        definition="chrF as Popović's chrF++.py computes it with -nw 0 -b 3 (per-order F-scores averaged over "
                   "every order from min_len to max_len), with whitespace characters ignored, and the corpus score "
                   "the mean of the sentence scores (chrF++.py's avgF)",
    ),
    parameters={"char_order": "max_len", "beta": "beta", "whitespace": "ignore_whitespace (negated)"},
    dependencies=("regex",),
    functions={"sentence": "sentence_chrf", "corpus": "corpus_chrf"},
    # the minimal repro ("aaaaa" + U+001E against "aaaaaa") leaves 5 characters once fixed, so
    # the divisor starts to matter; with 6 on both sides every other family is inert
    repros={WS: (("sentence", {"hypothesis": "aaaaaa", "references": ["aaaaaa\u001e"]}),
                 ("corpus", {"hypotheses": ["aaaaaa"], "references": [["aaaaaa\u001e"]]})),
           # two segments of different length, each scoring 100 or nothing: only the averaging differs
           MACRO: (("corpus", {"hypotheses": ["aaaaaa", ""], "references": [["aaaaaa"], [""]]}),)},
    related=(
        Related(NLTK, 2069, "pull request", "Chrf bug fixes", "merged", 2018,
                families=(DIVISOR, FAVG, MACRO),
                note="made nltk follow chrF++.py on purpose: macro-averages over n-gram orders and over "
                     "sentences; the review suggested an sklearn-style average= parameter with macro as the default"),
        Related(NLTK, 3833, "pull request", "Route nltk.translate regexes through nltk.redos (CWE-1333/CWE-400)",
                "merged", 2026, families=(WS,),
                note="routed chrf_score.py's regular expressions through nltk.redos, stating \"No behaviour "
                     "change\"; nltk.redos runs the regex module"),
        Related(SACREBLEU, 121, "issue", "Sentence CHRF silently accepts single reference as string", "closed", 2021,
                families=(DIVISOR,),
                note="where the effective-order versus epsilon smoothing difference between sacreBLEU and chrF++.py "
                     "was found"),
        Related(SACREBLEU, 144, "issue", "chrF not compatible with chrF++, Moses and NLTK for sentence-level "
                "smoothing", "closed", 2021, families=(DIVISOR, FAVG),
                note="sacreBLEU 2.0 kept effective-order averaging as its default and added eps_smoothing=True "
                     "for the chrF++.py/NLTK behaviour"),
    ),
    notes={
        DIVISOR: FamilyNote(
            kind=DEFINITION, function="sentence_chrf",
            title="chrF of an output shorter than max_len is averaged over all max_len orders, up to 6x below "
                  "sacreBLEU's default",
            lead="This is a definition difference, not a bug against nltk's documentation: sentence_chrf averages "
                 "the per-order F-scores over every order from min_len to max_len, as Popović's chrF++.py (which "
                 "the docstring says nltk is equivalent to) and sacreBLEU's CHRF(eps_smoothing=True) do. It "
                 "differs from sacreBLEU's default CHRF(), the chrF most papers report since sacreBLEU 2.0, which "
                 "averages over the effective orders only (those with n-grams on both sides): there 'c' against "
                 "'c' scores 100, here 0.1667 (16.67 on sacreBLEU's scale).",
            consequence="An output with fewer than max_len characters (after whitespace removal) is scored over "
                        "orders it cannot have: with the default max_len=6, a correct one-character output scores "
                        "1/6 of sacreBLEU's value, two characters 2/6, and so on: short outputs (single words, "
                        "labels, numbers) are deflated up to 6x against the de-facto standard; outputs of max_len "
                        "characters or more are not affected.",
            default_change="Making effective_order=True the default would make nltk agree with sacreBLEU's default "
                           "and no longer with chrF++.py, and change the score of every sentence shorter than "
                           "max_len; " + _DEFAULT_KEPT + ".",
            option=("effective_order", True), related=((NLTK, 2069), (SACREBLEU, 121), (SACREBLEU, 144))),
        FAVG: FamilyNote(
            kind=DEFINITION, function="sentence_chrf",
            title="chrF averages the per-order F-scores, where sacreBLEU's default averages precision and recall",
            lead="This is a definition difference, not a bug against nltk's documentation: sentence_chrf computes "
                 "an F-score per order and averages them, as chrF++.py (which the docstring says nltk is "
                 "equivalent to) and sacreBLEU's CHRF(eps_smoothing=True) do. sacreBLEU's default CHRF() averages "
                 "precision and recall over the orders and combines them into one F-score: there 'aaaaaaa' "
                 "against 'aaaaaa' scores 96.51, here 0.9615 (96.15).",
            consequence="Wherever precision and recall differ across orders the two means differ, usually by a "
                        "fraction of a point, always in the same direction on a given input: nltk's scores cannot "
                        "be compared with sacreBLEU's to the decimals papers report.",
            default_change="Making average=\"precision_recall\" the default would change nearly every score and "
                           "leave chrF++.py's definition; " + _DEFAULT_KEPT + ".",
            option=("average", "precision_recall"), related=((NLTK, 2069), (SACREBLEU, 144))),
        MACRO: FamilyNote(
            kind=DEFINITION, function="corpus_chrf",
            title="corpus chrF is the mean of the sentence scores, not the score of the summed n-gram statistics",
            lead="This is a definition difference, not a bug against nltk's documentation: the docstring says "
                 "corpus_chrf \"is the macro-averaged value of the sentence/segment level CHRF score\", which is "
                 "chrF++.py's avgF, and nltk PR #2069 chose it on purpose. sacreBLEU (and chrF++.py's own "
                 "document-level score) sum the n-gram statistics over the corpus and score them once: there "
                 "['aaaaaa', ''] against ['aaaaaa', ''] scores 100, here 0.5 (50).",
            consequence="Every sentence weighs the same whatever its length, so corpus scores differ from "
                        "sacreBLEU's and system rankings can change.",
            default_change="Making micro_average=True the default would change every corpus score and reverse the "
                           "choice of PR #2069; the patch keeps the documented macro-average as the default.",
            option=("micro_average", True), related=((NLTK, 2069),)),
        WS: FamilyNote(
            kind=BUG, function="sentence_chrf",
            title="chrF with ignore_whitespace=True scores U+001C..U+001F as characters",
            lead="This breaks what nltk documents: ignore_whitespace is \"ignore whitespace characters in "
                 "scoring\", and U+001C..U+001F are whitespace to Python (str.isspace(), str.split() and the re "
                 "module's \\s). _preprocess removes whitespace with redos.sub(r\"\\s+\", \"\", sent), which runs "
                 "the regex module, whose \\s lacks these four characters: they stay in the text and are scored.",
            consequence="A text holding one of them scores lower than the same text without it: 'aaaaaa' against "
                        "'aaaaaa' + U+001E scores 0.753 instead of 1.0.",
            related=((NLTK, 3833),)),
    },
)
