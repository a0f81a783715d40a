"""A chrF with a "fast path" for short texts and a shortcut in the arithmetic, the way a
performance patch is written: texts of at most 5 characters skip the whitespace removal, and
only the highest order with n-grams on both sides is scored.

Claims sacreBLEU's chrF (char order 6, beta 2).  Bugs: the highest order alone (no family
describes it, pervasive); whitespace kept in texts of at most 5 characters (no family
describes it either: whitespace-kept is wrong on longer texts); the corpus score is the mean
of the sentence scores.
"""

CLAIMS = dict(char_order=6, word_order=0, beta=2, lowercase=False, whitespace=False,
              definition="sacrebleu", scale=100)
FOOLS = ("whitespace-kept, judged behind the pervasive bug where it is inert (one n-gram order): on short "
         "texts the whitespace is kept, on long ones it is not")

_TOP = "only the highest order with n-grams on both sides is scored"
_SHORT = "whitespace is not removed from texts of at most 5 characters (a fast path)"
BUGS = {"corpus-macro-average": "corpus() returns the mean of sentence()"}
UNCATALOGUED = [_TOP, _SHORT]
ALLOWED: set = set()
PERVASIVE = True
WITNESSES = {
    _TOP: ("sentence", dict(hypothesis="abc", references=["abd"])),
    _SHORT: ("sentence", dict(hypothesis="a b", references=["ab"])),
    "corpus-macro-average": ("corpus", dict(hypotheses=["ab", "abcd"], references=[["ab"], ["abce"]])),
}


def _make(bugs=frozenset()):
    bugs = frozenset(bugs)

    def chars(text):
        if _SHORT in bugs and len(text) <= 5:
            return text
        return "".join(text.split())

    def rows(hyp, ref):
        h, r = chars(hyp), chars(ref)
        out = []
        for n in range(1, 7):
            hg = [h[i:i + n] for i in range(len(h) - n + 1)]
            rg = [r[i:i + n] for i in range(len(r) - n + 1)]
            pool = list(rg)
            m = 0
            for g in hg:
                if g in pool:
                    pool.remove(g)
                    m += 1
            out.append((len(hg) if rg else 0, len(rg), m))
        return out

    def f(table):
        live = [t for t in table if t[0] and t[1]]
        if _TOP in bugs:
            live = live[-1:]
        if not live:
            return 0.0
        p = sum(m / h for h, _, m in live) / len(live)
        r = sum(m / x for _, x, m in live) / len(live)
        return 0.0 if p + r == 0 else 100 * 5 * p * r / (4 * p + r)

    def best(hyp, refs):
        return max(((f(t), -i, t) for i, t in enumerate(rows(hyp, r) for r in refs)))

    def sentence(hypothesis, references):
        return best(hypothesis, references)[0]

    def corpus(hypotheses, references):
        if "corpus-macro-average" in bugs:
            return sum(sentence(h, rs) for h, rs in zip(hypotheses, references)) / len(hypotheses)
        table = [best(h, rs)[2] for h, rs in zip(hypotheses, references)]
        return f([tuple(sum(t[n][j] for t in table) for j in range(3)) for n in range(6)])

    return sentence, corpus


sentence, corpus = _make(frozenset(BUGS) | frozenset(UNCATALOGUED))
