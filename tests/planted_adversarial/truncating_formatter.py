"""A Go chrF service's scorer, transliterated: float64 arithmetic, the score formatted for a
JSON answer with two decimals by ``math.Trunc(score*100) / 100`` (a cut, not a rounding), and
the reference loop that keeps the first reference only.

Claims sacreBLEU's chrF (char order 6, beta 2).  Bugs: the score is truncated toward zero at
two decimals (precision-loss, as a truncation); only the first reference is scored.
"""

import math

CLAIMS = dict(char_order=6, word_order=0, beta=2, lowercase=False, whitespace=False,
              definition="sacrebleu", scale=100)
FOOLS = "precision-loss as rounding to two decimals (half to even), which gives the same number half the time"

BUGS = {
    "precision-loss": "return math.Trunc(score*100) / 100",
    "first-reference-only": "for _, ref := range refs[:1]",
}
UNCATALOGUED: list = []
ALLOWED: set = set()
PERVASIVE = True
WITNESSES = {
    "precision-loss": ("sentence", dict(hypothesis="abc", references=["abd"])),
    "first-reference-only": ("sentence", dict(hypothesis="ab", references=["x", "ab"])),
}


def _make(bugs=frozenset()):
    bugs = frozenset(bugs)

    def grams(s, n):  # map[string]int over the runes
        m = {}
        for i in range(0, len(s) - n + 1):
            m[s[i:i + n]] = m.get(s[i:i + n], 0) + 1
        return m

    def stats(hyp, ref):
        h, r = "".join(hyp.split()), "".join(ref.split())
        out = []
        for n in range(1, 7):
            hm, rm = grams(h, n), grams(r, n)
            rt = sum(rm.values())
            mt = 0
            for k, v in hm.items():
                mt += min(v, rm.get(k, 0))
            out.append((sum(hm.values()) if rt > 0 else 0, rt, mt))
        return out

    def score(rows):
        p, r, k = 0.0, 0.0, 0
        for h, rt, m in rows:
            if h > 0 and rt > 0:
                p, r, k = p + m / h, r + m / rt, k + 1
        if k == 0:
            return 0.0
        p, r = p / k, r / k
        if p + r == 0:
            return 0.0
        return 100 * 5 * p * r / (4 * p + r)

    def format_score(v):
        return math.trunc(v * 100) / 100 if "precision-loss" in bugs else v

    def best(hyp, refs):
        keep, top = None, -1.0
        for ref in (refs[:1] if "first-reference-only" in bugs else refs):
            rows = stats(hyp, ref)
            if score(rows) > top:
                keep, top = rows, score(rows)
        return keep, top

    def sentence(hypothesis, references):
        return format_score(best(hypothesis, references)[1])

    def corpus(hypotheses, references):
        total = [[0, 0, 0] for _ in range(6)]
        for h, rs in zip(hypotheses, references):
            for t, row in zip(total, best(h, rs)[0]):
                for j in range(3):
                    t[j] += row[j]
        return format_score(score(total))

    return sentence, corpus


sentence, corpus = _make(frozenset(BUGS))
