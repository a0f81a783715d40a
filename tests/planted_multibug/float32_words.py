"""chrF++ on numpy with a configurable float dtype (float32 to "save memory").

Claims sacreBLEU's chrF++ (char order 6, word order 2, beta 2).  Bugs: all arithmetic is in
float32 (pervasive), word tokens have punctuation split off both ends, and a segment that
matches none of its references adds its hypothesis n-grams but no reference n-grams.
"""

import string
from collections import Counter

import numpy as np

CLAIMS = dict(char_order=6, word_order=2, beta=2, lowercase=False, whitespace=False,
              definition="sacrebleu", scale=100)

BUGS = {
    "float32-arithmetic": "counts, ratios, means and F are numpy float32",
    "word-punctuation-split-both": "a word loses a punctuation mark at both ends, not only at one",
    "unmatched-segment-reference-dropped": "the best-reference search starts from the hypothesis-only statistics "
                                           "with F = 0 and keeps a reference only when its F > 0",
}
UNCATALOGUED: list = []
ALLOWED: set = set()
PERVASIVE = True
WITNESSES = {
    "float32-arithmetic": ("sentence", dict(hypothesis="abcdefg", references=["abcdxfg"])),
    "word-punctuation-split-both": ("sentence", dict(hypothesis="(cat)", references=["cat"])),
    "unmatched-segment-reference-dropped": ("corpus", dict(hypotheses=["abc", "xyz"], references=[["abc"], ["pq"]])),
}

PUNCT = frozenset(string.punctuation)
ORDERS = (("char", 6), ("word", 2))


def _make(bugs=frozenset()):
    bugs = frozenset(bugs)
    real = np.float32 if "float32-arithmetic" in bugs else np.float64

    def tokens(text):
        out = []
        for w in text.split():
            if len(w) == 1:
                out.append(w)
            elif "word-punctuation-split-both" in bugs and w[0] in PUNCT and w[-1] in PUNCT:
                out += [w[0]] + ([w[1:-1]] if len(w) > 2 else []) + [w[-1]]
            elif w[-1] in PUNCT:
                out += [w[:-1], w[-1]]
            elif w[0] in PUNCT:
                out += [w[0], w[1:]]
            else:
                out.append(w)
        return out

    def counters(text):
        units = {"char": "".join(text.split()), "word": tokens(text)}
        return [Counter(tuple(units[kind][i:i + n]) for i in range(len(units[kind]) - n + 1))
                for kind, top in ORDERS for n in range(1, top + 1)]

    def matrix(hyp_counts, ref_counts, reference_side=True):
        rows = []
        for h, r in zip(hyp_counts, ref_counts):
            ref_total = r.total() if reference_side else 0
            hyp_total = h.total() if ref_total or not reference_side else 0
            rows.append((hyp_total, ref_total, (h & r).total() if reference_side else 0))
        return np.array(rows, dtype=np.int64)

    def fscore(stats):
        s = stats.astype(real)
        live = (stats[:, 0] > 0) & (stats[:, 1] > 0)
        if not live.any():
            return 0.0
        p = np.mean(s[live, 2] / s[live, 0], dtype=real)
        r = np.mean(s[live, 2] / s[live, 1], dtype=real)
        if p + r == 0:
            return 0.0
        b2 = real(4)
        return float(real(100) * (real(1) + b2) * p * r / (b2 * p + r))

    def pick(hyp, refs):
        hc = counters(hyp)
        if "unmatched-segment-reference-dropped" in bugs:
            keep, keep_f = matrix(hc, hc, reference_side=False), 0.0
        else:
            keep, keep_f = None, -1.0
        for ref in refs:
            m = matrix(hc, counters(ref))
            f = fscore(m)
            if f > keep_f:
                keep, keep_f = m, f
        return keep

    def sentence(hypothesis, references):
        return fscore(pick(hypothesis, references))

    def corpus(hypotheses, references):
        return fscore(sum(pick(h, rs) for h, rs in zip(hypotheses, references)))

    return sentence, corpus


sentence, corpus = _make(frozenset(BUGS) | frozenset(UNCATALOGUED))
