"""The suggested patches of nltk's chrF (``nltk.translate.chrf_score``), as edits of the
installed source text (never line numbers; ``apply_edits`` gives None when the expected code
is not there).

nltk documents what three of its four departures from sacreBLEU's default do: its docstring
promises "results equivalent to running CHRF++ with the following options: -nw 0 -b 3"
(per-order F-scores averaged over every requested order, as chrF++.py does) and calls the
corpus score "the macro-averaged value of the sentence/segment level CHRF score".  Those are
definition differences, so their patches ADD the other behaviour behind a keyword whose
default keeps today's scores: ``effective_order=False`` (the divisor), ``average="fscore"``
(F-scores or precision and recall averaged) and ``micro_average=False`` (the corpus score).
The whitespace set breaks what nltk documents ("ignore whitespace characters"), so its patch
changes the default.  Every patch updates the docstrings it changes and adds doctest lines
(nltk's style: its CI runs ``--doctest-modules``) that fail before it and pass after.

``edits(families)`` writes the edits of any set of them at once: each family's patch is
``edits({family})``, the combined patch ``edits(all)``; one generator, so the combined patch
is exactly the per-family patches together.
"""

from __future__ import annotations

DIVISOR, FAVG, MACRO, WS = ("requested-order-divisor", "f-score-averaged", "corpus-macro-average",
                            "whitespace-set-white-space")
FAMILIES = (DIVISOR, FAVG, WS, MACRO)

#: the keyword each opt-in patch adds, and the value that turns the other behaviour on
OPTIONS = {DIVISOR: ("effective_order", True), FAVG: ("average", "precision_recall"), MACRO: ("micro_average", True)}

_SENT_SIG = '''\
def sentence_chrf(
    reference, hypothesis, min_len=1, max_len=6, beta=3.0, ignore_whitespace=True
):
'''
_CORPUS_SIG = '''\
def corpus_chrf(
    references, hypotheses, min_len=1, max_len=6, beta=3.0, ignore_whitespace=True
):
'''
_SENT_EXAMPLES_AT = '''\
        >>> sentence_chrf(ref1, hyp1, min_len=2, max_len=3) # doctest: +ELLIPSIS
        0.6617...

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
_CORPUS_HEAD = '''\
    Calculates the corpus level CHRF (Character n-gram F-score), it is the
    macro-averaged value of the sentence/segment level CHRF score.
'''
_CORPUS_EXAMPLES_AT = '''\
        >>> corpus_chrf([ref1, ref2, ref1, ref2], [hyp1, hyp2, hyp2, hyp1]) # doctest: +ELLIPSIS
        0.3910...
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
_WS_OLD = '        sent = redos.sub(r"\\s+", "", sent)\n'
_WS_NEW = (
    "        # every str.isspace() character, U+001C..U+001F included (the regex\n"
    "        # module's \\s lacks them); no regular expression, so no ReDoS either\n"
    '        sent = "".join(sent.split())\n'
)

_DOC_PARAMS = {
    DIVISOR: '''\
    :param effective_order: average over the effective orders only (those with
        n-grams in both the hypothesis and the reference), as sacreBLEU's default
        ``CHRF()`` does; by default every order from min_len to max_len counts,
        as in chrF++.py, so a hypothesis shorter than max_len is deflated
    :type effective_order: bool
''',
    FAVG: '''\
    :param average: "fscore" (the default, as chrF++.py) averages the per-order
        F-scores; "precision_recall" averages precision and recall over the
        orders and combines them into one F-score, as sacreBLEU's ``CHRF()`` does
    :type average: str
''',
    MACRO: '''\
    :param micro_average: sum the n-gram statistics over all sentences and score
        them once (chrF++.py's document-level score, sacreBLEU's corpus score)
        instead of averaging the sentence scores
    :type micro_average: bool
''',
}

_SENT_DOCTESTS = {
    DIVISOR: '''\
    By default every order from min_len to max_len counts, also those a short
    hypothesis has no n-grams of (as in chrF++.py); with ``effective_order=True``
    only the orders with n-grams on both sides are averaged (as sacreBLEU's
    default ``CHRF()`` does):

        >>> sentence_chrf('a', 'a') # doctest: +ELLIPSIS
        0.1666...
        >>> sentence_chrf('a', 'a', effective_order=True)
        1.0

''',
    FAVG: '''\
    By default the per-order F-scores are averaged (as in chrF++.py); with
    ``average="precision_recall"`` precision and recall are averaged over the
    orders and combined into one F-score (as sacreBLEU's ``CHRF()`` does):

        >>> sentence_chrf('aaaaaa', 'aaaaaaa') # doctest: +ELLIPSIS
        0.9614...
        >>> sentence_chrf('aaaaaa', 'aaaaaaa', average="precision_recall") # doctest: +ELLIPSIS
        0.9651...

''',
    WS: '''\
    Every whitespace character is ignored, also U+001C..U+001F, which
    ``str.isspace()`` counts as whitespace:

        >>> sentence_chrf('aaaaaa' + chr(0x1E), 'aaaaaa')
        1.0

''',
}

_CORPUS_DOCTEST = '''\

    With ``micro_average=True`` the n-gram statistics are summed over the
    sentences and scored once, so a sentence counts by its length:

        >>> corpus_chrf(['aaaaaa', ''], ['aaaaaa', ''])
        0.5
        >>> corpus_chrf(['aaaaaa', ''], ['aaaaaa', ''], micro_average=True)
        1.0
'''

_HELPER = '''\
def _chrf_from_statistics(
    statistics, beta=3.0, effective_order=False, average="fscore", epsilon=1e-16
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
    if average == "fscore":
        return sum(fscores) / len(fscores)
    prec = sum(precisions) / len(precisions)
    rec = sum(recalls) / len(recalls)
    try:
        return (1 + factor) * (prec * rec) / (factor * prec + rec)
    except ZeroDivisionError:
        return 0.0


'''


_DEFAULTS = {DIVISOR: "effective_order=False", FAVG: 'average="fscore"', MACRO: "micro_average=False"}


def _signature(name: str, first: str, fams) -> str:
    keys = [_DEFAULTS[f] for f in (DIVISOR, FAVG, MACRO) if f in fams and (f != MACRO or name == "corpus_chrf")]
    args = [*first.split(", "), "min_len=1", "max_len=6", "beta=3.0", "ignore_whitespace=True", *keys]
    return f"def {name}(\n" + "".join(f"    {a},\n" for a in args) + "):\n"


def _kwargs(fams) -> list[str]:
    """The keyword arguments passing the sentence-level options on."""
    return [f"{OPTIONS[f][0]}={OPTIONS[f][0]}" for f in (DIVISOR, FAVG) if f in fams]


def _corpus_body(fams) -> tuple[str, str]:
    """(the new ``_INIT``, the new ``_LOOP``): the default path is today's code."""
    per_sentence = " or ".join((["effective_order"] if DIVISOR in fams else [])
                               + (['average != "fscore"'] if FAVG in fams else []))
    micro = MACRO in fams
    kw = ", ".join(["beta", *_kwargs(fams)])
    init = _INIT
    if FAVG in fams:
        init = ('    if average not in ("fscore", "precision_recall"):\n'
                '        raise ValueError(f"average must be \\"fscore\\" or \\"precision_recall\\", got {average!r}")\n\n'
                + init)
    if micro:
        init += ("\n    # The n-gram statistics of each order summed over all sentences:\n"
                 "    # [matches, hypothesis n-grams, reference n-grams]\n"
                 "    ngram_stats = defaultdict(lambda: [0, 0, 0])\n")
    if per_sentence:
        init += "\n    # The sentence-level scores (with " + per_sentence.replace(" or ", ", ") + ")\n" \
                "    sentence_scores = []\n"
    if not (micro or per_sentence):
        return init, _LOOP
    loop = ("        # matches, hypothesis n-grams and reference n-grams of each order\n"
            "        statistics = {}\n\n")
    loop += _LOOP.replace("            ngram_fscores[n].append(fscore)\n\n    # how many n-gram sizes\n",
                          "            ngram_fscores[n].append(fscore)\n"
                          "            statistics[n] = (\n"
                          "                tp,\n"
                          "                max(len(hypothesis) - n + 1, 0),\n"
                          "                max(len(reference) - n + 1, 0),\n"
                          "            )\n")
    if per_sentence:
        loop += f"        sentence_scores.append(_chrf_from_statistics(statistics, {kw}))\n"
    if micro:
        loop += ("        for n, (tp, tpfp, tpfn) in statistics.items():\n"
                 "            stats = ngram_stats[n]\n"
                 "            stats[0] += tp\n"
                 "            # hypothesis n-grams count only where the reference has n-grams\n"
                 "            # of this order (as in chrF++.py and sacreBLEU)\n"
                 "            stats[1] += tpfp if tpfn else 0\n"
                 "            stats[2] += tpfn\n")
    loop += "\n"
    if micro:
        loop += ("    if micro_average:\n"
                 "        # score the statistics summed over all sentences\n"
                 f"        return _chrf_from_statistics(ngram_stats, {kw})\n\n")
    if per_sentence:
        loop += (f"    if {per_sentence}:\n"
                 "        # macro-average of the sentence scores\n"
                 "        return sum(sentence_scores) / num_sents\n\n")
    return init, loop + "    # how many n-gram sizes\n"


def edits(families) -> list[tuple[str, str]]:
    """The (old, new) edits of the installed chrf_score.py patching every family of
    ``families`` (those this module knows), in the order they apply."""
    fams = {f for f in families if f in FAMILIES}
    if not fams:
        return []
    out: list[tuple[str, str]] = []
    scoring = fams - {WS}
    sent_docs = "".join(_SENT_DOCTESTS[f] for f in (DIVISOR, FAVG, WS) if f in fams)
    if sent_docs:
        out.append((_SENT_EXAMPLES_AT, _SENT_EXAMPLES_AT + sent_docs))
    if scoring & {DIVISOR, FAVG}:
        out.append((_SENT_SIG, _signature("sentence_chrf", "reference, hypothesis", fams)))
        params = "".join(_DOC_PARAMS[f] for f in (DIVISOR, FAVG) if f in fams)
        call = "".join(f"        {k},\n" for k in _kwargs(fams))
        out.append((_SENT_TAIL, _SENT_TAIL.replace("    :return:", params + "    :return:", 1)
                    .replace("        ignore_whitespace=ignore_whitespace,\n",
                             "        ignore_whitespace=ignore_whitespace,\n" + call)))
    if WS in fams:
        out.append((_WS_OLD, _WS_NEW))
    if scoring:
        sig = _signature("corpus_chrf", "references, hypotheses", fams)
        out.append((_CORPUS_SIG, (_HELPER if scoring & {DIVISOR, FAVG, MACRO} else "") + sig))
        if MACRO in fams:
            out.append((_CORPUS_HEAD, _CORPUS_HEAD.replace(
                "it is the\n    macro-averaged value",
                "by default the\n    macro-averaged value") + "    With ``micro_average=True``, the score of the n-gram statistics summed\n"
                "    over the sentences.\n"))
            out.append((_CORPUS_EXAMPLES_AT, _CORPUS_EXAMPLES_AT + _CORPUS_DOCTEST))
        params = "".join(_DOC_PARAMS[f] for f in (DIVISOR, FAVG, MACRO) if f in fams)
        out.append((_CORPUS_TAIL, _CORPUS_TAIL.replace("    :return:", params + "    :return:", 1)))
        init, loop = _corpus_body(fams)
        out.append((_INIT, init))
        out.append((_LOOP, loop))
    return out


def options(families) -> dict:
    """The keyword arguments that turn on the behaviour the opt-in patches of ``families``
    add (the patched copy is audited called with them)."""
    return {OPTIONS[f][0]: OPTIONS[f][1] for f in families if f in OPTIONS}
