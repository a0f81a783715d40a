"""Functional chrF with a beta argument that never reaches the formula.

Claims sacreBLEU's chrF (char order 6, beta 2) and accepts ``beta``.  Bugs: a segment's
references are joined with a space into one reference, the corpus score is the mean of the
sentence scores, and the ``beta`` argument is ignored (2 is used).
"""

CLAIMS = dict(char_order=6, word_order=0, beta=2, lowercase=False, whitespace=False,
              definition="sacrebleu", scale=100)
ACCEPTS = ("beta",)

BUGS = {
    "references-joined": "' '.join(references) is scored as the one reference",
    "corpus-macro-average": "the corpus score is the mean of the segment scores",
    "parameter-ignored-beta": "beta is accepted but the F formula uses the module constant 2",
}
UNCATALOGUED: list = []
ALLOWED: set = set()
PERVASIVE = False
WITNESSES = {
    "references-joined": ("sentence", dict(hypothesis="ab", references=["a", "b"])),
    "corpus-macro-average": ("corpus", dict(hypotheses=["ab", "abcd"], references=[["ab"], ["abce"]])),
    "parameter-ignored-beta": ("sentence", dict(hypothesis="abcd", references=["abd"], beta=1)),
}

DEFAULT_BETA = 2


def _ngrams(chars, n):
    counts = {}
    for gram in zip(*(chars[i:] for i in range(n))):
        counts[gram] = counts.get(gram, 0) + 1
    return counts


def _order(hyp_chars, ref_chars, n):
    h, r = _ngrams(hyp_chars, n), _ngrams(ref_chars, n)
    ref_total = sum(r.values())
    return (sum(h.values()) if ref_total else 0, ref_total, sum(min(c, r.get(g, 0)) for g, c in h.items()))


def _pair(hyp, ref):
    hc, rc = "".join(hyp.split()), "".join(ref.split())
    return [_order(hc, rc, n) for n in range(1, 7)]


def _score(rows, beta):
    live = [(h, r, m) for h, r, m in rows if h and r]
    if not live:
        return 0.0
    p = sum(m / h for h, _, m in live) / len(live)
    r = sum(m / rr for _, rr, m in live) / len(live)
    if p + r == 0:
        return 0.0
    b2 = beta * beta
    return 100 * (1 + b2) * p * r / (b2 * p + r)


def _make(bugs=frozenset()):
    bugs = frozenset(bugs)

    def effective_beta(beta):
        return DEFAULT_BETA if "parameter-ignored-beta" in bugs else beta

    def segment(hyp, refs, beta):
        if "references-joined" in bugs:
            refs = [" ".join(refs)]
        candidates = [_pair(hyp, ref) for ref in refs]
        values = [_score(c, beta) for c in candidates]
        top = max(values)
        return candidates[values.index(top)], top

    def sentence(hypothesis, references, beta=DEFAULT_BETA):
        return segment(hypothesis, references, effective_beta(beta))[1]

    def corpus(hypotheses, references, beta=DEFAULT_BETA):
        beta = effective_beta(beta)
        picked = [segment(h, rs, beta) for h, rs in zip(hypotheses, references)]
        if "corpus-macro-average" in bugs:
            return sum(v for _, v in picked) / len(picked)
        summed = [tuple(map(sum, zip(*column))) for column in zip(*(rows for rows, _ in picked))]
        return _score(summed, beta)

    return sentence, corpus


sentence, corpus = _make(frozenset(BUGS) | frozenset(UNCATALOGUED))
