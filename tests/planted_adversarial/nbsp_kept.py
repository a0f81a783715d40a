"""A chrF written for French text, which keeps the no-break spaces (U+00A0) its typography puts
before punctuation: every other whitespace character is removed.

Claims sacreBLEU's chrF (char order 6, beta 2).  Bugs: U+00A0 is scored as a character (no
family describes a set that keeps it alone: Java's Character.isWhitespace keeps it too, and
U+2007, U+202F and U+0085 besides); beta weights precision (F uses beta, not beta squared).
"""

CLAIMS = dict(char_order=6, word_order=0, beta=2, lowercase=False, whitespace=False,
              definition="sacrebleu", scale=100)
FOOLS = "whitespace-set-java, which differs from it only on U+2007, U+202F and U+0085"

_NBSP = "U+00A0 is kept as a character; every other str.isspace() character is removed"
BUGS = {"beta-not-squared": "F = (1 + b) P R / (b P + R) with b = beta"}
UNCATALOGUED = [_NBSP]
ALLOWED: set = set()
PERVASIVE = True
WITNESSES = {
    _NBSP: ("sentence", dict(hypothesis="prix\xa0: 5", references=["prix: 5"])),
    "beta-not-squared": ("sentence", dict(hypothesis="abcd", references=["abc"])),
}


def _make(bugs=frozenset()):
    bugs = frozenset(bugs)
    weight = 2.0 if "beta-not-squared" in bugs else 4.0

    def letters(text):
        if _NBSP in bugs:
            return "".join(c for c in text if c == "\xa0" or not c.isspace())
        return "".join(text.split())

    def stats(hyp, ref):
        h, r = letters(hyp), letters(ref)
        out = []
        for n in range(1, 7):
            hc, rc = {}, {}
            for i in range(len(h) - n + 1):
                hc[h[i:i + n]] = hc.get(h[i:i + n], 0) + 1
            for i in range(len(r) - n + 1):
                rc[r[i:i + n]] = rc.get(r[i:i + n], 0) + 1
            rt = sum(rc.values())
            out.append((sum(hc.values()) if rt else 0, rt, sum(min(c, rc.get(g, 0)) for g, c in hc.items())))
        return out

    def fscore(rows):
        live = [x for x in rows if x[0] and x[1]]
        if not live:
            return 0.0
        p = sum(m / h for h, _, m in live) / len(live)
        r = sum(m / t for _, t, m in live) / len(live)
        return 0.0 if p + r == 0 else 100 * (1 + weight) * p * r / (weight * p + r)

    def best(hyp, refs):
        top, keep = -1.0, None
        for ref in refs:
            rows = stats(hyp, ref)
            if fscore(rows) > top:
                top, keep = fscore(rows), rows
        return keep, top

    def sentence(hypothesis, references):
        return best(hypothesis, references)[1]

    def corpus(hypotheses, references):
        rows = [best(h, rs)[0] for h, rs in zip(hypotheses, references)]
        return fscore([tuple(sum(r[n][j] for r in rows) for j in range(3)) for n in range(6)])

    return sentence, corpus


sentence, corpus = _make(frozenset(BUGS) | frozenset(UNCATALOGUED))
