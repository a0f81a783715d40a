"""The suggested patches of nltk's chrF (``nltk.translate.chrf_score``), as edits of the
installed source text (never line numbers; ``apply_edits`` gives None when the expected code
is not there).

nltk documents what three of its four departures from sacreBLEU's default do: its docstring
promises "results equivalent to running CHRF++ with the following options: -nw 0 -b 3" and
calls the corpus score "the macro-averaged value of the sentence/segment level CHRF score".
Those are definition differences, and only together do they make sacreBLEU's chrF: one patch
(``DEFINITION``) adds the three keywords behind which sacreBLEU's behaviour sits, each default
keeping today's scores: ``effective_order=False`` (the divisor), ``order_average="fscore"``
(what is averaged over the orders) and ``average="macro"`` (the corpus score, the name nltk
PR #2069's review proposed).  Each keyword's docstring says what it computes alone; the
docstrings recommend the combination that is sacreBLEU's chrF, with doctest lines.

The whitespace set breaks what nltk documents ("ignore whitespace characters"), so its patch
(``WHITESPACE``) changes the default (and drops the ``nltk.redos`` import only that line used),
with a doctest line in ``_preprocess``.  The two patches
touch no common line: each applies to the release, and either applies on top of the other.
Every doctest line a patch adds fails before it (a keyword that does not exist, or the old
whitespace set) and passes after it.
"""

from __future__ import annotations

DIVISOR, FAVG, MACRO, WS = ("requested-order-divisor", "f-score-averaged", "corpus-macro-average",
                            "whitespace-set-white-space")
FAMILIES = (DIVISOR, FAVG, WS, MACRO)
#: the patches, each with the families it fixes (one issue each: findings fixed by the same
#: patch are one issue)
DEFINITION, WHITESPACE = (DIVISOR, FAVG, MACRO), (WS,)
GROUPS = (DEFINITION, WHITESPACE)

#: the keyword each opt-in family adds and the value that turns sacreBLEU's behaviour on
OPTIONS = {DIVISOR: ("effective_order", True), FAVG: ("order_average", "precision_recall"),
           MACRO: ("average", "micro")}
#: keywords corpus_chrf takes and sentence_chrf does not
CORPUS_ONLY = ("average",)

_SENT_SIG = '''\
def sentence_chrf(
    reference, hypothesis, min_len=1, max_len=6, beta=3.0, ignore_whitespace=True
):
'''
_SENT_SIG_NEW = '''\
def sentence_chrf(
    reference,
    hypothesis,
    min_len=1,
    max_len=6,
    beta=3.0,
    ignore_whitespace=True,
    effective_order=False,
    order_average="fscore",
):
'''
_CORPUS_SIG = '''\
def corpus_chrf(
    references, hypotheses, min_len=1, max_len=6, beta=3.0, ignore_whitespace=True
):
'''
_CORPUS_SIG_NEW = '''\
def corpus_chrf(
    references,
    hypotheses,
    min_len=1,
    max_len=6,
    beta=3.0,
    ignore_whitespace=True,
    effective_order=False,
    order_average="fscore",
    average="macro",
):
'''
_SENT_EXAMPLES_AT = '''\
        >>> sentence_chrf(ref1, hyp1, min_len=2, max_len=3) # doctest: +ELLIPSIS
        0.6617...

'''
_SENT_DOCTESTS = '''\
    By default every order from min_len to max_len counts, also an order that
    a sentence shorter than max_len has no n-grams of, and the F-scores of the
    orders are averaged, as in chrF++.py.  sacreBLEU's default ``CHRF()``
    averages over the orders with n-grams on both sides only
    (``effective_order=True``) and averages precision and recall over them
    before it computes one F-score (``order_average="precision_recall"``).
    With both keywords, sentence_chrf is sacreBLEU's sentence score
    (``CHRF(char_order=max_len, word_order=0, beta=beta)``) divided by 100:

        >>> sentence_chrf('a', 'a') # doctest: +ELLIPSIS
        0.1666...
        >>> sentence_chrf('a', 'a', effective_order=True, order_average="precision_recall")
        1.0
        >>> sentence_chrf('aaaaaa', 'aaaaaaa') # doctest: +ELLIPSIS
        0.9614...
        >>> sentence_chrf('aaaaaa', 'aaaaaaa', effective_order=True, order_average="precision_recall") # doctest: +ELLIPSIS
        0.9651...

'''
_SENT_TAIL = '''\
    :param ignore_whitespace: ignore whitespace characters in scoring
    :type ignore_whitespace: bool
    :return: the sentence level CHRF score.
    :rtype: float
    """
    return corpus_chrf(
        [reference],
        [hypothesis],
        min_len,
        max_len,
        beta=beta,
        ignore_whitespace=ignore_whitespace,
    )
'''
_PARAM_EFFECTIVE = '''\
    :param effective_order: average only over the orders with n-grams in both
        the hypothesis and the reference; by default every order from min_len
        to max_len counts, as in chrF++.py, so a sentence shorter than max_len
        scores lower.  Alone, it averages the per-order F-scores of those
        orders, which is neither chrF++.py's nor sacreBLEU's score; with
        order_average="precision_recall" it is sacreBLEU's
    :type effective_order: bool
    :param order_average: what is averaged over the orders: "fscore" (the
        default, as chrF++.py) the per-order F-scores; "precision_recall"
        precision and recall, combined into one F-score afterwards.  Alone,
        every order from min_len to max_len still counts (``epsilon`` for an
        order without n-grams), which is neither chrF++.py's nor sacreBLEU's
        score; with effective_order=True it is sacreBLEU's
    :type order_average: str
'''
_PARAM_AVERAGE = '''\
    :param average: "macro" (the default) the mean of the sentence scores;
        "micro" the score of the n-gram statistics summed over all sentences,
        scored once as the other keywords say.  With effective_order=True and
        order_average="precision_recall" it is sacreBLEU's corpus score
    :type average: str
'''
_CORPUS_HEAD = '''\
    Calculates the corpus level CHRF (Character n-gram F-score), it is the
    macro-averaged value of the sentence/segment level CHRF score.
'''
_CORPUS_HEAD_NEW = '''\
    Calculates the corpus level CHRF (Character n-gram F-score), by default the
    macro-averaged value of the sentence/segment level CHRF score; with
    ``average="micro"``, the score of the n-gram statistics summed over the
    sentences.
'''
_CORPUS_EXAMPLES_AT = '''\
        >>> corpus_chrf([ref1, ref2, ref1, ref2], [hyp1, hyp2, hyp2, hyp1]) # doctest: +ELLIPSIS
        0.3910...
'''
_CORPUS_DOCTEST = '''\

    With ``effective_order=True``, ``order_average="precision_recall"`` and
    ``average="micro"``, corpus_chrf is sacreBLEU's corpus score
    (``CHRF(char_order=max_len, word_order=0, beta=beta)``) divided by 100,
    where a sentence counts by its length:

        >>> corpus_chrf(['aaaaaa', ''], ['aaaaaa', ''])
        0.5
        >>> corpus_chrf(['aaaaaa', ''], ['aaaaaa', ''], effective_order=True,
        ...             order_average="precision_recall", average="micro")
        1.0
'''
_CORPUS_TAIL = '''\
    :param ignore_whitespace: ignore whitespace characters in scoring
    :type ignore_whitespace: bool
    :return: the sentence level CHRF score.
    :rtype: float
    """

    assert len(references) == len(
'''
_INIT = '''\
    # Keep f-scores for each n-gram order separate
    ngram_fscores = defaultdict(list)
'''
_INIT_NEW = '''\
    if average not in ("macro", "micro"):
        raise ValueError(f'average must be "macro" or "micro", not {average!r}')
    if order_average not in ("fscore", "precision_recall"):
        raise ValueError(
            f'order_average must be "fscore" or "precision_recall", not {order_average!r}'
        )

    # Keep f-scores for each n-gram order separate
    ngram_fscores = defaultdict(list)

    # The n-gram statistics of each order summed over all sentences:
    # [matches, hypothesis n-grams, reference n-grams]
    ngram_stats = defaultdict(lambda: [0, 0, 0])

    # The sentence scores, with effective_order or order_average
    sentence_scores = []
'''
_LOOP = '''\
        # Calculate f-scores for each sentence and for each n-gram order
        # separately.
        for n in range(min_len, max_len + 1):
            # Compute the precision, recall, fscore and support.
            prec, rec, fscore, tp = chrf_precision_recall_fscore_support(
                reference, hypothesis, n, beta=beta
            )
            ngram_fscores[n].append(fscore)

    # how many n-gram sizes
'''
_LOOP_NEW = '''\
        # matches, hypothesis n-grams and reference n-grams of each order
        statistics = {}

        # Calculate f-scores for each sentence and for each n-gram order
        # separately.
        for n in range(min_len, max_len + 1):
            # Compute the precision, recall, fscore and support.
            prec, rec, fscore, tp = chrf_precision_recall_fscore_support(
                reference, hypothesis, n, beta=beta
            )
            ngram_fscores[n].append(fscore)
            statistics[n] = (
                tp,
                max(len(hypothesis) - n + 1, 0),
                max(len(reference) - n + 1, 0),
            )
        sentence_scores.append(
            _chrf_from_statistics(statistics, beta, effective_order, order_average)
        )
        for n, (tp, tpfp, tpfn) in statistics.items():
            stats = ngram_stats[n]
            stats[0] += tp
            # hypothesis n-grams count only where the reference has n-grams
            # of this order (as in chrF++.py and sacreBLEU)
            stats[1] += tpfp if tpfn else 0
            stats[2] += tpfn

    if average == "micro":
        # score the statistics summed over all sentences
        return _chrf_from_statistics(ngram_stats, beta, effective_order, order_average)

    if effective_order or order_average != "fscore":
        # macro-average of the sentence scores
        return sum(sentence_scores) / num_sents

    # how many n-gram sizes
'''
_HELPER = '''\
def _chrf_from_statistics(
    statistics, beta=3.0, effective_order=False, order_average="fscore", epsilon=1e-16
):
    """
    The CHRF score of per-order n-gram statistics: ``statistics[n]`` holds the
    matches, the hypothesis n-grams and the reference n-grams of order n.

    An order without n-grams on one side contributes ``epsilon`` (as in
    chrf_precision_recall_fscore_support), or nothing with ``effective_order``.
    """
    factor = beta**2
    precisions, recalls, fscores = [], [], []
    for n in sorted(statistics):
        tp, tpfp, tpfn = statistics[n]
        if tpfp == 0 or tpfn == 0:
            if effective_order:
                continue  # not an effective order
            prec = rec = fscore = epsilon
        else:
            prec, rec = tp / tpfp, tp / tpfn
            try:
                fscore = (1 + factor) * (prec * rec) / (factor * prec + rec)
            except ZeroDivisionError:
                fscore = epsilon
        precisions.append(prec)
        recalls.append(rec)
        fscores.append(fscore)
    if not fscores:
        return 0.0
    if order_average == "fscore":
        return sum(fscores) / len(fscores)
    prec = sum(precisions) / len(precisions)
    rec = sum(recalls) / len(recalls)
    try:
        return (1 + factor) * (prec * rec) / (factor * prec + rec)
    except ZeroDivisionError:
        return 0.0


'''
_PREPROCESS = '''\
def _preprocess(sent, ignore_whitespace):
    if type(sent) != str:
'''
_PREPROCESS_NEW = '''\
def _preprocess(sent, ignore_whitespace):
    """
    The text scored: tokens joined by spaces, and with ``ignore_whitespace``
    every whitespace character removed, U+001C..U+001F included, which
    ``str.isspace()`` counts as whitespace:

        >>> _preprocess('a b' + chr(0x1E) + 'c', ignore_whitespace=True)
        'abc'
    """
    if type(sent) != str:
'''
#: nltk.redos is imported for that one line only
_IMPORTS = "from nltk import redos\nfrom nltk.util import ngrams\n"
_IMPORTS_NEW = "from nltk.util import ngrams\n"
_WS_OLD = '        sent = redos.sub(r"\\s+", "", sent)\n'
_WS_NEW = (
    "        # every str.isspace() character, U+001C..U+001F included (the regex\n"
    "        # module's \\s lacks them); no regular expression, so no ReDoS either\n"
    '        sent = "".join(sent.split())\n'
)


def _definition_edits() -> list[tuple[str, str]]:
    kwargs = "        effective_order=effective_order,\n        order_average=order_average,\n"
    params = _PARAM_EFFECTIVE
    return [
        (_SENT_SIG, _SENT_SIG_NEW),
        (_SENT_EXAMPLES_AT, _SENT_EXAMPLES_AT + _SENT_DOCTESTS),
        (_SENT_TAIL, _SENT_TAIL.replace("    :return:", params + "    :return:", 1)
         .replace("        ignore_whitespace=ignore_whitespace,\n", "        ignore_whitespace=ignore_whitespace,\n" + kwargs)),
        (_CORPUS_SIG, _HELPER + _CORPUS_SIG_NEW),
        (_CORPUS_HEAD, _CORPUS_HEAD_NEW),
        (_CORPUS_EXAMPLES_AT, _CORPUS_EXAMPLES_AT + _CORPUS_DOCTEST),
        (_CORPUS_TAIL, _CORPUS_TAIL.replace("    :return:", params + _PARAM_AVERAGE + "    :return:", 1)),
        (_INIT, _INIT_NEW),
        (_LOOP, _LOOP_NEW),
    ]


def _whitespace_edits() -> list[tuple[str, str]]:
    return [(_IMPORTS, _IMPORTS_NEW), (_PREPROCESS, _PREPROCESS_NEW), (_WS_OLD, _WS_NEW)]


def group_of(family: str) -> tuple:
    """The families fixed by the patch that fixes ``family`` (() when it has none)."""
    return next((g for g in GROUPS if family in g), ())


def edits(families) -> list[tuple[str, str]]:
    """The (old, new) edits of the installed chrf_score.py of every patch that fixes one of
    ``families``, in the order they apply (the whitespace patch's edits lie apart from the
    definition patch's: either order gives the same text)."""
    fams = set(families)
    out: list[tuple[str, str]] = []
    if fams & set(DEFINITION):
        out += _definition_edits()
    if fams & set(WHITESPACE):
        out += _whitespace_edits()
    return out


def options(families, level: str = "corpus") -> dict:
    """The keyword arguments that turn on the behaviour the opt-in patch adds for
    ``families`` (the patched copy is audited called with them); sentence_chrf takes no
    ``average``."""
    return {OPTIONS[f][0]: OPTIONS[f][1] for f in FAMILIES if f in families and f in OPTIONS
            and (level == "corpus" or OPTIONS[f][0] not in CORPUS_ONLY)}
