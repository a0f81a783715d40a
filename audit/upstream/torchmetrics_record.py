"""What torchmetrics documents about its chrF and what its tracker already says (the record the
issue files cite, ``records.Knowledge``).  The quotes are torchmetrics 1.9.0's source,
verbatim; the related issue and pull request were looked up on the tracker before they were
written here."""

from __future__ import annotations

from .records import BUG, DEFINITION, Documented, FamilyNote, Knowledge, Related

TM = "Lightning-AI/torchmetrics"
HYP, UNMATCHED, FLOAT = ("hypothesis-ngrams-where-reference-has-none", "unmatched-segment-reference-dropped",
                         "float32-arithmetic")

KNOWLEDGE = Knowledge(
    documented=Documented(
        where="torchmetrics/functional/text/chrf.py, its header and the chrf_score docstring",
        quotes=(
            "The code is derived from https://github.com/m-popovic/chrF/blob/6d3c384/chrF%2B%2B.py",
            "This implementation follows the implementations from https://github.com/m-popovic/chrF and "
            "https://github.com/mjpost/sacrebleu/blob/master/sacrebleu/metrics/chrf.py.",
        ),
        definition="chrF/chrF++ as Popović's chrF++.py and sacreBLEU compute it (the corpus score from the "
                   "n-gram statistics summed over the segments)",
    ),
    parameters={"char_order": "n_char_order", "word_order": "n_word_order", "beta": "beta",
                "lowercase": "lowercase", "whitespace": "whitespace"},
    dependencies=("torch",),
    functions={"sentence": "chrf_score", "corpus": "CHRFScore"},
    related=(
        Related(TM, 3480, "issue", "chrF drops the reference n-grams of a zero-scoring sentence, inflating the "
                "corpus score", "closed", 2026, families=(UNMATCHED,),
                note="the same root cause, reported after 1.9.0"),
        Related(TM, 3481, "pull request", "Fix chrF dropping the reference n-grams of a zero-scoring sentence",
                "merged", 2026, fixed_in="", families=(UNMATCHED,),
                note="keeps the first reference unconditionally, as sacreBLEU does; 1.9.0 is the newest release "
                     "on the package index"),
    ),
    notes={
        HYP: FamilyNote(
            kind=BUG, function="CHRFScore",
            title="corpus chrF counts a segment's hypothesis n-grams of orders its reference has none of",
            lead="This breaks what torchmetrics documents: its chrF is \"derived from\" chrF++.py and \"follows\" "
                 "chrF++.py and sacreBLEU, and both add a segment's hypothesis n-grams to the corpus totals only "
                 "for the orders its chosen reference has n-grams of; torchmetrics adds them for every order, so "
                 "corpus precision drops.",
            consequence="Every segment whose reference is shorter than an order it scores (short references: one "
                        "word, a number) lowers the corpus precision of that order, so the corpus score is too low.",
            related=()),
        UNMATCHED: FamilyNote(
            kind=BUG, function="CHRFScore",
            title="corpus chrF drops the reference n-grams of a segment that matches no reference",
            lead="This breaks what torchmetrics documents (chrF++.py's and sacreBLEU's corpus statistics).",
            consequence="Corpus recall is inflated by every segment that matches none of its references.",
            fixed_upstream=(TM, 3481)),
        FLOAT: FamilyNote(
            kind=DEFINITION, function="chrf_score",
            title="chrF is computed in float32",
            lead="A definition difference of arithmetic: torchmetrics computes in float32 tensors, where "
                 "chrF++.py and sacreBLEU compute in float64.",
            consequence="Scores differ from chrF++.py's by about 1e-7 relative."),
    },
)
