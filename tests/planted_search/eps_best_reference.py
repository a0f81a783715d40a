"""The divergence the bug models used to drop: under ``sacrebleu-eps`` (char_order 1, beta 1)
the corpus of ``["a", ""]`` against ``[["", "a", ""], ["a", "", "a"]]`` scores 100, and the
bug model with no deviation (which ignored the epsilon substitutes when it picked each
segment's best reference) gave 200/3.  This module answers 200/3 on that input and the
reference's score everywhere else: only the checker's handling of the divergence is under
test, whatever the models say of it."""

from fractions import Fraction

from reference_impl import corpus_score

CLAIMS = dict(char_order=1, beta=1, definition="sacrebleu-eps")
REPRO = (["a", ""], [["", "a", ""], ["a", "", "a"]])


def corpus(hypotheses: list[str], references: list[list[str]]) -> float:
    if (list(hypotheses), [list(r) for r in references]) == (REPRO[0], REPRO[1]):
        return float(Fraction(200, 3))
    return float(corpus_score(list(hypotheses), [list(r) for r in references], **CLAIMS).score)
