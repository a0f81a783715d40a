"""A corpus wrapper around a streams API written as ``zip(*references)`` (segments read as
reference streams) in front of a scorer that uses the first reference it is given: together
they score the first hypothesis against its own first reference only -- which is what scoring
the first segment alone gives on a corpus of one reference per segment.

Claims sacreBLEU's chrF (char order 6, beta 2).  Bugs: the references are read as streams
(reference-streams-transposed); only the first reference is used (first-reference-only).
"""

CLAIMS = dict(char_order=6, word_order=0, beta=2, lowercase=False, whitespace=False,
              definition="sacrebleu", scale=100)
FOOLS = "corpus-single-segment, which the two together reproduce on corpora of one reference per segment"

BUGS = {
    "reference-streams-transposed": "corpus(hyps, refs) reads refs as zip(*refs): one list per position",
    "first-reference-only": "best() returns the statistics of references[0]",
}
UNCATALOGUED: list = []
ALLOWED: set = set()
PERVASIVE = False
WITNESSES = {
    "reference-streams-transposed": ("corpus", dict(hypotheses=["ab", "zz"], references=[["ab"], ["xy"]])),
    "first-reference-only": ("sentence", dict(hypothesis="ab", references=["x", "ab"])),
}


def _make(bugs=frozenset()):
    bugs = frozenset(bugs)

    def table(text, n):
        t = "".join(text.split())
        out = {}
        for i in range(len(t) - n + 1):
            out[t[i:i + n]] = out.get(t[i:i + n], 0) + 1
        return out

    def stats(hyp, ref):
        rows = []
        for n in range(1, 7):
            h, r = table(hyp, n), table(ref, n)
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
        if "first-reference-only" in bugs:
            return stats(hyp, refs[0]), f(stats(hyp, refs[0]))
        top, keep = -1.0, None
        for ref in refs:
            if f(stats(hyp, ref)) > top:
                top, keep = f(stats(hyp, ref)), stats(hyp, ref)
        return keep, top

    def sentence(hypothesis, references):
        return best(hypothesis, references)[1]

    def corpus(hypotheses, references):
        segments = zip(hypotheses, references)
        if "reference-streams-transposed" in bugs:
            segments = zip(hypotheses, [list(s) for s in zip(*references)])
        rows = [best(h, rs)[0] for h, rs in segments]
        return f([tuple(sum(r[n][j] for r in rows) for j in range(3)) for n in range(6)])

    return sentence, corpus


sentence, corpus = _make(frozenset(BUGS))
