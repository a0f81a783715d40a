"""A scorer class with a memo, keyed on part of its input.

Claims sacreBLEU's chrF (char order 6, beta 2).  Bugs: ``sentence`` memoises its scores by
the hypothesis alone, so a hypothesis scored once keeps that score whatever references come
with it later (state between calls: in a fresh process the same call gives the right score),
and beta weights precision instead of recall.
"""

from collections import Counter

CLAIMS = dict(char_order=6, word_order=0, beta=2, lowercase=False, whitespace=False,
              definition="sacrebleu", scale=100)
FOOLS = ("flaky: false on repros that give another value in a fresh process; a family named from a stale "
         "value")

BUGS = {
    "stateful": "Scorer.sentence caches its result under the hypothesis alone",
    "precision-recall-swapped": "F = (1 + b2) P R / (P + b2 R): beta weights precision",
}
UNCATALOGUED: list = []
ALLOWED: set = {"nondeterminism"}
PERVASIVE = True
#: a witness may be several calls in one process: the last one's score is compared
WITNESSES = {
    "stateful": ("sentence", [dict(hypothesis="abc", references=["xyz"]), dict(hypothesis="abc", references=["abc"])]),
    "precision-recall-swapped": ("sentence", dict(hypothesis="abcd", references=["abc"])),
}


class Scorer:
    def __init__(self, bugs):
        self.bugs = frozenset(bugs)
        self.memo = {}
        self.profiles = {}

    def profile(self, text):
        if text not in self.profiles:
            chars = "".join(text.split())
            self.profiles[text] = [Counter(chars[i:i + n] for i in range(len(chars) - n + 1)) for n in range(1, 7)]
        return self.profiles[text]

    def stats(self, hyp, ref):
        out = []
        for a, b in zip(self.profile(hyp), self.profile(ref)):
            r = sum(b.values())
            out.append((sum(a.values()) if r else 0, r, sum((a & b).values())))
        return out

    def fscore(self, rows):
        live = [x for x in rows if x[0] and x[1]]
        if not live:
            return 0.0
        p = sum(m / h for h, _, m in live) / len(live)
        r = sum(m / rr for _, rr, m in live) / len(live)
        if "precision-recall-swapped" in self.bugs:
            p, r = r, p
        return 0.0 if p + r == 0 else 500 * p * r / (4 * p + r)

    def best(self, hyp, refs):
        tables = [self.stats(hyp, r) for r in refs]
        values = [self.fscore(t) for t in tables]
        return tables[values.index(max(values))], max(values)

    def sentence(self, hypothesis, references):
        if "stateful" in self.bugs and hypothesis in self.memo:
            return self.memo[hypothesis]
        value = self.best(hypothesis, references)[1]
        self.memo[hypothesis] = value
        return value

    def corpus(self, hypotheses, references):
        rows = [self.best(h, rs)[0] for h, rs in zip(hypotheses, references)]
        return self.fscore([tuple(map(sum, zip(*col))) for col in zip(*rows)])


def _make(bugs=frozenset()):
    s = Scorer(bugs)
    return s.sentence, s.corpus


sentence, corpus = _make(frozenset(BUGS))
