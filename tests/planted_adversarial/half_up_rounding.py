"""A chrF from a Java evaluation toolkit, transliterated: a score object whose getter returns
``Math.round(score * 10) / 10.0`` (one decimal, ties rounded half up, as Java does), and
per-order F-scores averaged (``fScores.stream().mapToDouble(...).average()``).

Claims sacreBLEU's chrF (char order 6, beta 2).  Bugs: the score is rounded half up to one
decimal (precision-loss: 6.25 gives 6.3 where half to even gives 6.2); the per-order F-scores
are averaged.
"""

import math

CLAIMS = dict(char_order=6, word_order=0, beta=2, lowercase=False, whitespace=False,
              definition="sacrebleu", scale=100)
FOOLS = "precision-loss as Python's round() (half to even), which differs from it only on ties"

BUGS = {
    "precision-loss": "return Math.round(score * 10) / 10.0",
    "f-score-averaged": "fScores.stream().mapToDouble(Double::doubleValue).average()",
}
UNCATALOGUED: list = []
ALLOWED: set = set()
PERVASIVE = True
WITNESSES = {
    "precision-loss": ("sentence", dict(hypothesis="abc", references=["abd"])),
    "f-score-averaged": ("sentence", dict(hypothesis="abcdefgh", references=["abcd"])),
}


class ChrFScore:
    def __init__(self, value, bugs):
        self.value, self.bugs = value, bugs

    def getScore(self):
        if "precision-loss" in self.bugs:
            return math.floor(self.value * 10 + 0.5) / 10.0  # Math.round
        return self.value


def _make(bugs=frozenset()):
    bugs = frozenset(bugs)

    def ngramStats(hyp, ref):
        h, r = "".join(hyp.split()), "".join(ref.split())
        rows = []
        for n in range(1, 7):
            hc = {}
            for i in range(len(h) - n + 1):
                hc[h[i:i + n]] = hc.get(h[i:i + n], 0) + 1
            rc = {}
            for i in range(len(r) - n + 1):
                rc[r[i:i + n]] = rc.get(r[i:i + n], 0) + 1
            rt = sum(rc.values())
            rows.append((sum(hc.values()) if rt else 0, rt, sum(min(v, rc.get(k, 0)) for k, v in hc.items())))
        return rows

    def compute(rows):
        live = [(h, r, m) for h, r, m in rows if h > 0 and r > 0]
        if not live:
            return 0.0
        if "f-score-averaged" in bugs:
            fs = []
            for h, r, m in live:
                p, rc = m / h, m / r
                fs.append(0.0 if p + rc == 0 else 5 * p * rc / (4 * p + rc))
            return 100 * sum(fs) / len(fs)
        p = sum(m / h for h, _, m in live) / len(live)
        rc = sum(m / r for _, r, m in live) / len(live)
        return 0.0 if p + rc == 0 else 100 * 5 * p * rc / (4 * p + rc)

    def bestRows(hyp, refs):
        best, top = None, -1.0
        for ref in refs:
            rows = ngramStats(hyp, ref)
            if compute(rows) > top:
                best, top = rows, compute(rows)
        return best

    def sentence(hypothesis, references):
        return ChrFScore(compute(bestRows(hypothesis, references)), bugs).getScore()

    def corpus(hypotheses, references):
        total = [[0, 0, 0] for _ in range(6)]
        for h, rs in zip(hypotheses, references):
            for t, row in zip(total, bestRows(h, rs)):
                for j in range(3):
                    t[j] += row[j]
        return ChrFScore(compute(total), bugs).getScore()

    return sentence, corpus


sentence, corpus = _make(frozenset(BUGS))
