"""A tokenizer-first chrF that "normalises" whitespace instead of removing it.

Claims sacreBLEU's chrF (char order 6, beta 2, whitespace removed).  Bugs: the text goes
through ``" ".join(text.split())`` and the single spaces left are scored as characters (runs
collapsed, ends stripped: neither whitespace kept as it is nor stripped at the ends only), and
the per-order F scores are averaged instead of precision and recall.
"""

from collections import Counter

CLAIMS = dict(char_order=6, word_order=0, beta=2, lowercase=False, whitespace=False,
              definition="sacrebleu", scale=100)
FOOLS = ("whitespace-kept and whitespace-stripped-ends-only: on text with single inner spaces and no "
         "whitespace at the ends all three agree")

BUGS = {
    "whitespace-collapsed": "chars = ' '.join(text.split()): single spaces stay characters",
    "f-score-averaged": "the score is the mean of the per-order F scores",
}
UNCATALOGUED: list = []
ALLOWED: set = set()
PERVASIVE = False
WITNESSES = {
    "whitespace-collapsed": ("sentence", dict(hypothesis="ab cd", references=["abcd"])),
    "f-score-averaged": ("sentence", dict(hypothesis="abcdefgh", references=["abcdef"])),
}


def _make(bugs=frozenset()):
    bugs = frozenset(bugs)

    def prep(text):
        return " ".join(text.split()) if "whitespace-collapsed" in bugs else "".join(text.split())

    def orders(hyp, ref):
        h, r = prep(hyp), prep(ref)
        for n in range(1, 7):
            a = Counter(h[i:i + n] for i in range(len(h) - n + 1))
            b = Counter(r[i:i + n] for i in range(len(r) - n + 1))
            rt = sum(b.values())
            yield (sum(a.values()) if rt else 0), rt, sum((a & b).values())

    def value(rows):
        live = [(h, r, m) for h, r, m in rows if h and r]
        if not live:
            return 0.0
        if "f-score-averaged" in bugs:
            fs = [0.0 if not m else 5 * (m / h) * (m / r) / (4 * (m / h) + m / r) for h, r, m in live]
            return 100 * sum(fs) / len(fs)
        p = sum(m / h for h, _, m in live) / len(live)
        rc = sum(m / r for _, r, m in live) / len(live)
        return 0.0 if p + rc == 0 else 500 * p * rc / (4 * p + rc)

    def pick(hyp, refs):
        options = [list(orders(hyp, r)) for r in refs]
        scores = [value(o) for o in options]
        return options[scores.index(max(scores))], max(scores)

    def sentence(hypothesis, references):
        return pick(hypothesis, references)[1]

    def corpus(hypotheses, references):
        rows = [pick(h, rs)[0] for h, rs in zip(hypotheses, references)]
        return value([tuple(map(sum, zip(*col))) for col in zip(*rows)])

    return sentence, corpus


sentence, corpus = _make(frozenset(BUGS))
