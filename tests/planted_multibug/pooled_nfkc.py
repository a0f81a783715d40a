"""chrF that pools the n-grams of all orders into one bag before taking ratios.

Claims sacreBLEU's chrF (char order 6, beta 2).  Bugs: precision and recall are computed once
over the pooled counts of the effective orders (a micro-average instead of the mean over
orders), and texts are NFKC-normalised (ligatures, full-width forms, compatibility digits).
"""

import unicodedata
from collections import Counter

CLAIMS = dict(char_order=6, word_order=0, beta=2, lowercase=False, whitespace=False,
              definition="sacrebleu", scale=100)

BUGS = {
    "precision-recall-pooled": "P = sum(M) / sum(H) and R = sum(M) / sum(R) over the effective orders",
    "unicode-normalization": "hypothesis and references are NFKC-normalised before counting",
}
UNCATALOGUED: list = []
ALLOWED: set = set()
PERVASIVE = True
WITNESSES = {
    "precision-recall-pooled": ("sentence", dict(hypothesis="abcd", references=["abd"])),
    "unicode-normalization": ("sentence", dict(hypothesis="\ufb01", references=["fi"])),
}


def _make(bugs=frozenset()):
    bugs = frozenset(bugs)

    def bag(text):
        if "unicode-normalization" in bugs:
            text = unicodedata.normalize("NFKC", text)
        text = "".join(text.split())
        return Counter((n, text[i:i + n]) for n in range(1, 7) for i in range(len(text) - n + 1))

    def per_order(hyp, ref):
        hb, rb, both = bag(hyp), bag(ref), bag(hyp) & bag(ref)
        hyp_n, ref_n, hit_n = Counter(), Counter(), Counter()
        for (n, _), k in hb.items():
            hyp_n[n] += k
        for (n, _), k in rb.items():
            ref_n[n] += k
        for (n, _), k in both.items():
            hit_n[n] += k
        return {n: (hyp_n[n] if ref_n[n] else 0, ref_n[n], hit_n[n]) for n in range(1, 7)}

    def score(orders):
        live = [v for v in orders.values() if v[0] and v[1]]
        if not live:
            return 0.0
        if "precision-recall-pooled" in bugs:
            hits = sum(m for _, _, m in live)
            p, r = hits / sum(h for h, _, _ in live), hits / sum(rr for _, rr, _ in live)
        else:
            p = sum(m / h for h, _, m in live) / len(live)
            r = sum(m / rr for _, rr, m in live) / len(live)
        return 0.0 if p + r == 0 else 100 * 5 * p * r / (4 * p + r)

    def best(hyp, refs):
        options = [per_order(hyp, r) for r in refs]
        values = [score(o) for o in options]
        return options[values.index(max(values))]

    def sentence(hypothesis, references):
        return score(best(hypothesis, references))

    def corpus(hypotheses, references):
        total = {n: (0, 0, 0) for n in range(1, 7)}
        for hyp, refs in zip(hypotheses, references):
            for n, row in best(hyp, refs).items():
                total[n] = tuple(a + b for a, b in zip(total[n], row))
        return score(total)

    return sentence, corpus


sentence, corpus = _make(frozenset(BUGS) | frozenset(UNCATALOGUED))
