"""What chrf-audit knows about nltk's chrF (``nltk.translate.chrf_score``).

nltk's ``sentence_chrf(reference, hypothesis, min_len=1, max_len=6, beta=3.0,
ignore_whitespace=True)`` takes the REFERENCE FIRST, a single reference, and returns a score
on 0..1; ``corpus_chrf(references, hypotheses, ...)`` takes one reference per segment.

Its scoring has coupled bugs: the sentence score is the mean over the *requested* orders of
the per-order F (the divisor and the F-averaging at once), and the corpus score is the mean of
the sentence scores.  Each patch below fixes exactly one family and keeps the others, so that a
verification of the patched copy shows only that family fixed; ``combined_source`` fixes
them all at once (the scoring families' edits overlap: ``COMBINED_EDITS``).  Patches are computed against the *installed* source
text (never hard-coded line numbers); when the expected code is not there (another nltk
version), ``patch`` returns None.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Optional

from ._base import CLAIM_DEFAULTS, apply_edits, beta_literal, claims_with_defaults, combine_edits, exact_beta, py_list_literal, py_literal
from .library import BuiltinAdapter, Upstream, plain_beta, source_of

NAME = "nltk"
DISTRIBUTION = "nltk"
MODULE = "nltk.translate.chrf_score"

#: The claims of the built-in nltk adapter (nltk's defaults, where they differ from the
#: reference's), for probes, sweeps and repro snippets.
DEFAULT_CLAIMS = {**CLAIM_DEFAULTS, "beta": 3, "scale": 1}

# -- repro snippets ----------------------------------------------------------------------------
def _kwargs(claims: dict) -> str:
    c = claims_with_defaults({**DEFAULT_CLAIMS, **(claims or {})})
    return (
        f"min_len=1, max_len={int(c['char_order'])}, beta={float(exact_beta(c['beta']))!r}, "
        f"ignore_whitespace={not bool(c['whitespace'])}"
    )


def _unit(value: Optional[float]) -> str:
    return "no number" if value is None else repr(value / 100)


def repro_snippet(finding, version: Optional[str] = None) -> str:
    m = finding.minimal
    claims = claims_with_defaults({**DEFAULT_CLAIMS, **(finding.claims or {})})
    head = [f"# chrF repro for nltk{' ' + version if version else ''}: {finding.family}"]
    expected = Fraction(m.expected_fraction) / 100
    exp_text = repr(float(expected))
    head.append(
        f"# Expected {exp_text} on nltk's 0..1 scale (chrF, {claims['definition']} definition, "
        f"beta={beta_literal(claims['beta'])}, char order {claims['char_order']})."
    )
    if m.actual_raw is not None:
        got = m.actual_raw
    elif m.actual is not None:
        got = repr(m.actual / 100)
    else:
        got = m.outcome
    lines = list(head)
    notes = []
    if m.level == "sentence":
        refs = list(m.inputs["references"])
        if len(refs) > 1:
            notes.append(f"# nltk takes a single reference; the audit used the first of {len(refs)}.")
        lines += notes + [
            "from nltk.translate.chrf_score import sentence_chrf",
            "",
            f"hypothesis = {py_literal(m.inputs['hypothesis'])}",
            f"reference = {py_literal(refs[0])}",
            "# nltk takes the reference first and scores on 0..1",
            f"score = sentence_chrf(reference, hypothesis, {_kwargs(claims)})",
        ]
    else:
        refs = [list(r)[0] for r in m.inputs["references"]]
        if any(len(r) > 1 for r in m.inputs["references"]):
            notes.append("# nltk takes a single reference per segment; the audit used the first.")
        lines += notes + [
            "from nltk.translate.chrf_score import corpus_chrf",
            "",
            f"hypotheses = {py_list_literal(m.inputs['hypotheses'])}",
            f"references = {py_list_literal(refs)}  # one reference per segment",
            "# nltk takes the references first and scores on 0..1",
            f"score = corpus_chrf(references, hypotheses, {_kwargs(claims)})",
        ]
    lines.append(f"print(score)  # prints {got}; expected {exp_text}")
    return "\n".join(lines) + "\n"


# -- patches -----------------------------------------------------------------------------------
_LOOP_AND_RETURN = '''\
        # Calculate f-scores for each sentence and for each n-gram order
        # separately.
        for n in range(min_len, max_len + 1):
            # Compute the precision, recall, fscore and support.
            prec, rec, fscore, tp = chrf_precision_recall_fscore_support(
                reference, hypothesis, n, beta=beta
            )
            ngram_fscores[n].append(fscore)

    # how many n-gram sizes
    num_ngram_sizes = len(ngram_fscores)

    # sum of f-scores over all sentences for each n-gram order
    total_scores = [sum(fscores) for n, fscores in ngram_fscores.items()]

    # macro-average over n-gram orders and over all sentences
    return (sum(total_scores) / num_ngram_sizes) / num_sents
'''

_INIT = '''\
    # Keep f-scores for each n-gram order separate
    ngram_fscores = defaultdict(list)
'''

# divide by the effective orders; keep averaging F and the macro-average over sentences
_DIVISOR_INIT = '''\
    # Keep the sentence-level scores
    sentence_scores = []
'''
_DIVISOR_LOOP = '''\
        # Average the f-scores over the effective orders only: the orders for
        # which both the hypothesis and the reference have n-grams.
        fscores = []
        for n in range(min_len, max_len + 1):
            if len(hypothesis) < n or len(reference) < n:
                continue  # no n-grams of this order: not an effective order
            # Compute the precision, recall, fscore and support.
            prec, rec, fscore, tp = chrf_precision_recall_fscore_support(
                reference, hypothesis, n, beta=beta
            )
            fscores.append(fscore)
        sentence_scores.append(sum(fscores) / len(fscores) if fscores else 0.0)

    # macro-average over all sentences
    return sum(sentence_scores) / num_sents
'''

# average P and R over the (requested) orders, then F once; keep the divisor and macro-average
_FAVG_LOOP = '''\
        # Average precision and recall over the n-gram orders, then combine
        # them once into the f-score.
        precisions, recalls = [], []
        for n in range(min_len, max_len + 1):
            # Compute the precision, recall, fscore and support.
            prec, rec, fscore, tp = chrf_precision_recall_fscore_support(
                reference, hypothesis, n, beta=beta
            )
            precisions.append(prec)
            recalls.append(rec)
        avg_prec = sum(precisions) / len(precisions)
        avg_rec = sum(recalls) / len(recalls)
        denominator = beta**2 * avg_prec + avg_rec
        f = (1 + beta**2) * avg_prec * avg_rec / denominator if denominator > 0 else 0.0
        sentence_scores.append(f)

    # macro-average over all sentences
    return sum(sentence_scores) / num_sents
'''

# the loop both corpus fixes share: each order's statistics summed over the sentences
_SUM_STATS_LOOP = '''\
        # Collect the n-gram statistics of each order.
        for n in range(min_len, max_len + 1):
            # Compute the precision, recall, fscore and support.
            prec, rec, fscore, tp = chrf_precision_recall_fscore_support(
                reference, hypothesis, n, beta=beta
            )
            stats = ngram_stats[n]
            ref_ngrams = max(len(reference) - n + 1, 0)
            stats[0] += tp
            # hypothesis n-grams count only where the reference has n-grams of
            # this order (as in chrF++.py and sacreBLEU)
            stats[1] += max(len(hypothesis) - n + 1, 0) if ref_ngrams else 0
            stats[2] += ref_ngrams
'''

# sum the statistics over sentences, then score; keep F-averaging over the requested orders
_MACRO_INIT = '''\
    # Sum the n-gram statistics of each order over all sentences:
    # [true positives, hypothesis n-grams, reference n-grams]
    ngram_stats = defaultdict(lambda: [0, 0, 0])
'''
_MACRO_LOOP = _SUM_STATS_LOOP + '''
    # f-score of each n-gram order from the statistics summed over the corpus
    ngram_fscores = {}
    for n, (tp, tpfp, tpfn) in ngram_stats.items():
        try:
            prec, rec, factor = tp / tpfp, tp / tpfn, beta**2
            ngram_fscores[n] = (1 + factor) * (prec * rec) / (factor * prec + rec)
        except ZeroDivisionError:
            ngram_fscores[n] = 1e-16

    # how many n-gram sizes
    num_ngram_sizes = len(ngram_fscores)

    # average over n-gram orders
    return sum(ngram_fscores.values()) / num_ngram_sizes
'''

# all three scoring families at once: the claimed (sacreBLEU) definition.  Their per-family
# edits replace the same lines, so they cannot be applied one after the other; this is what
# applying all three means: the statistics summed over the corpus, precision and recall
# averaged over the effective orders of the sums, and F computed once.
_ALL_SCORING_LOOP = _SUM_STATS_LOOP + """
    # Average precision and recall over the effective orders (the orders with
    # n-grams on both sides, summed over the corpus), then combine them once
    # into the f-score.
    precisions, recalls = [], []
    for n, (tp, tpfp, tpfn) in ngram_stats.items():
        if tpfp > 0 and tpfn > 0:
            precisions.append(tp / tpfp)
            recalls.append(tp / tpfn)
    if not precisions:
        return 0.0
    avg_prec = sum(precisions) / len(precisions)
    avg_rec = sum(recalls) / len(recalls)
    factor = beta**2
    denominator = factor * avg_prec + avg_rec
    return (1 + factor) * avg_prec * avg_rec / denominator if denominator > 0 else 0.0
"""

_WS_OLD = '        sent = redos.sub(r"\\s+", "", sent)\n'
_WS_NEW = (
    "        # remove every str.isspace() code point (U+001C..U+001F included)\n"
    '        sent = "".join(sent.split())\n'
)

_EDITS: dict[str, list[tuple[str, str]]] = {
    "requested-order-divisor": [(_INIT, _DIVISOR_INIT), (_LOOP_AND_RETURN, _DIVISOR_LOOP)],
    "f-score-averaged": [(_INIT, _DIVISOR_INIT), (_LOOP_AND_RETURN, _FAVG_LOOP)],
    "corpus-macro-average": [(_INIT, _MACRO_INIT), (_LOOP_AND_RETURN, _MACRO_LOOP)],
    "whitespace-set-white-space": [(_WS_OLD, _WS_NEW)],
}

#: families whose edits overlap, fixed together by one set of edits (``combined_source``)
COMBINED_EDITS: dict[frozenset, list[tuple[str, str]]] = {
    frozenset({"requested-order-divisor", "f-score-averaged", "corpus-macro-average"}):
        [(_INIT, _MACRO_INIT), (_LOOP_AND_RETURN, _ALL_SCORING_LOOP)],
}

PATCH_DESCRIPTIONS = {
    "requested-order-divisor": "divide each sentence's summed per-order F-scores by its number of effective orders (orders with n-grams on both sides); F-averaging and the macro-average are kept",
    "f-score-averaged": "average precision and recall over the orders and combine them into F once; the divisor and the macro-average are kept",
    "corpus-macro-average": "sum the per-order n-gram statistics over the sentences and compute the F-scores once from the sums; F-averaging over the requested orders is kept",
    "whitespace-set-white-space": "remove every str.isspace() code point with \"\".join(sent.split())",
}


def patched_source(family: str) -> Optional[tuple[str, str, str]]:
    """(relative file, original text, patched text) or None when not applicable."""
    return apply_edits(MODULE, _EDITS.get(family))


def combined_source(families) -> Optional[tuple[str, str, str, list[str]]]:
    """(relative file, original text, text fixing every family of ``families`` that has a
    patch, those families) or None when fewer than two have one or their edits do not combine."""
    return combine_edits(MODULE, _EDITS, COMBINED_EDITS, families)
# -- the backend the worker builds ----------------------------------------------------------


class NltkBackend:
    """Calls nltk's ``sentence_chrf``/``corpus_chrf`` inside the worker (reference first, one
    reference per segment)."""

    def __init__(self):
        from nltk.translate import chrf_score

        self.m = chrf_score

    def describe(self):
        from importlib import metadata

        return {
            "version": metadata.version("nltk"),
            "sources": {
                "sentence": source_of(self.m.sentence_chrf),
                "corpus": source_of(self.m.corpus_chrf),
            },
        }

    @staticmethod
    def _kw(claims):
        return dict(
            min_len=1,
            max_len=claims["char_order"],
            beta=plain_beta(claims["beta"]),
            ignore_whitespace=not claims["whitespace"],
        )

    def sentence(self, claims, hypothesis, references):
        return self.m.sentence_chrf(references[0], hypothesis, **self._kw(claims))

    def corpus(self, claims, hypotheses, references):
        return self.m.corpus_chrf([r[0] for r in references], hypotheses, **self._kw(claims))


UPSTREAM = Upstream(
    name=NAME, distribution=DISTRIBUTION, module=MODULE, default_claims=DEFAULT_CLAIMS,
    adapters=(
        BuiltinAdapter("nltk", dict(char_order=6, word_order=0, beta=3, whitespace=False, definition="sacrebleu",
                                    scale=1),
                       accepts=frozenset({"char_order", "beta", "whitespace"}), multi_reference=False, default=True),
    ),
    combined_source=combined_source, backend=NltkBackend, repro_snippet=repro_snippet, patched_source=patched_source,
    patch_descriptions=PATCH_DESCRIPTIONS,
)
