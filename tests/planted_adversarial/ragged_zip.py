"""A wrapper that hands a reference-streams API (sacreBLEU's layout) the per-segment lists it is
given, transposed with ``zip(*references)``: zip stops at the shortest list, so in a corpus
whose segments have different numbers of references every reference beyond the shortest
segment's count is dropped from *every* segment.

Claims sacreBLEU's chrF (char order 6, beta 2).  Bugs: the transposition by zip (no family
describes it: on corpora whose segments have as many references each it is the definition);
the corpus score is the mean of the sentence scores.
"""

CLAIMS = dict(char_order=6, word_order=0, beta=2, lowercase=False, whitespace=False,
              definition="sacrebleu", scale=100)
FOOLS = ("first-reference-only and references-beyond-first-ignored, which it matches on ragged corpora only; "
         "the ragged-references class counted as tried without a ragged corpus sent")

_ZIP = "streams = list(zip(*references)): references beyond the shortest segment's count are dropped"
BUGS = {"corpus-macro-average": "the corpus score is the mean of the sentence scores"}
UNCATALOGUED = [_ZIP]
ALLOWED: set = set()
PERVASIVE = False
WITNESSES = {
    _ZIP: ("corpus", dict(hypotheses=["the cat", "a dog"], references=[["the cat"], ["x y", "a dog"]])),
    "corpus-macro-average": ("corpus", dict(hypotheses=["ab", "abcd"], references=[["ab"], ["abce"]])),
}


def _make(bugs=frozenset()):
    bugs = frozenset(bugs)

    def grams(t, n):
        t = "".join(t.split())
        out = {}
        for i in range(len(t) - n + 1):
            out[t[i:i + n]] = out.get(t[i:i + n], 0) + 1
        return out

    def stats(hyp, ref):
        rows = []
        for n in range(1, 7):
            h, r = grams(hyp, n), grams(ref, n)
            rt = sum(r.values())
            rows.append((sum(h.values()) if rt else 0, rt, sum(min(c, r.get(g, 0)) for g, c in h.items())))
        return rows

    def f(rows):
        live = [x for x in rows if x[0] and x[1]]
        if not live:
            return 0.0
        p = sum(m / h for h, _, m in live) / len(live)
        r = sum(m / t for _, t, m in live) / len(live)
        return 0.0 if p + r == 0 else 500 * p * r / (4 * p + r)

    def best(hyp, refs):
        top, keep = -1.0, None
        for ref in refs:
            if f(stats(hyp, ref)) > top:
                top, keep = f(stats(hyp, ref)), stats(hyp, ref)
        return keep, top

    def score_streams(hypotheses, streams):  # the streams API: segment i's references are stream[i]
        per_segment = [[s[i] for s in streams] for i in range(len(hypotheses))]
        if "corpus-macro-average" in bugs:
            return sum(best(h, rs)[1] for h, rs in zip(hypotheses, per_segment)) / len(hypotheses)
        rows = [best(h, rs)[0] for h, rs in zip(hypotheses, per_segment)]
        return f([tuple(sum(r[n][j] for r in rows) for j in range(3)) for n in range(6)])

    def corpus(hypotheses, references):
        if _ZIP in bugs:
            streams = [list(s) for s in zip(*references)]
        else:  # padded with None, which the streams API drops (as sacreBLEU does)
            k = max(len(r) for r in references)
            streams = [[r[j] if j < len(r) else None for r in references] for j in range(k)]
            return _dropping_none(score_streams, hypotheses, streams)
        return score_streams(hypotheses, streams)

    def sentence(hypothesis, references):
        return best(hypothesis, references)[1]

    return sentence, corpus


def _dropping_none(score_streams, hypotheses, streams):
    kept = [[s[i] for s in streams if s[i] is not None] for i in range(len(hypotheses))]
    k = max(len(r) for r in kept)
    # every segment padded with its own last reference: a copy changes no best reference
    return score_streams(hypotheses, [[r[j] if j < len(r) else r[-1] for r in kept] for j in range(k)])


sentence, corpus = _make(frozenset(BUGS) | frozenset(UNCATALOGUED))
