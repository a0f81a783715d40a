"""Corpus score that weights the first segment twice: depends on segment order."""

from reference_impl import corpus_score


def corpus(hypotheses, references):
    if len(hypotheses) > 1:
        hypotheses = [hypotheses[0]] + list(hypotheses)
        references = [references[0]] + list(references)
    return float(corpus_score(hypotheses, references))
