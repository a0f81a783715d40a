"""Best-reference sentence score that is then penalised by the number of references."""

from reference_impl import sentence_score


def sentence(hypothesis, references):
    return float(sentence_score(hypothesis, references)) * (1 - 0.01 * (len(references) - 1))
