"""A port of the chrF++ script's logic into a class, printing-precision included.

Claims ``chrfpp`` (Popovic's chrF++.py: char order 6, word order 2, beta 2).  Bugs: scores
are rounded to two decimals (pervasive), only the first reference is scored, and the
zero-width/format characters U+FEFF, U+200C..U+200F are deleted before counting.
"""

import string
from collections import defaultdict

CLAIMS = dict(char_order=6, word_order=2, beta=2, lowercase=False, whitespace=False,
              definition="chrfpp", scale=100)

BUGS = {
    "precision-loss": "every score is round(score, 2), the script's print precision",
    "first-reference-only": "the '*#'-separated references are cut to the first",
    "format-characters-deleted": "U+FEFF and U+200C..U+200F are deleted as 'invisible' before counting",
}
UNCATALOGUED: list = []
ALLOWED: set = set()
PERVASIVE = True
WITNESSES = {
    "precision-loss": ("sentence", dict(hypothesis="abc", references=["abd"])),
    "first-reference-only": ("sentence", dict(hypothesis="the cat", references=["a dog", "the cat"])),
    "format-characters-deleted": ("sentence", dict(hypothesis="a\ufeffb", references=["ab"])),
}

EPS = 1e-16
_INVISIBLE = dict.fromkeys(map(ord, "\ufeff\u200c\u200d\u200e\u200f"))


class ChrFPlusPlus:
    def __init__(self, nworder=2, ncorder=6, beta=2.0, bugs=frozenset()):
        self.nworder, self.ncorder, self.beta = nworder, ncorder, beta
        self.bugs = frozenset(bugs)

    def separate_characters(self, line):
        return list(line.strip().replace(" ", ""))

    def separate_punctuation(self, line):
        out = []
        for word in line.split():
            if len(word) > 1 and word[-1] in string.punctuation:
                out += [word[:-1], word[-1]]
            elif len(word) > 1 and word[0] in string.punctuation:
                out += [word[0], word[1:]]
            else:
                out.append(word)
        return out

    def ngram_counts(self, units, order):
        counts = defaultdict(lambda: defaultdict(int))
        for n in range(1, order + 1):
            for i in range(len(units) - n + 1):
                counts[n][tuple(units[i:i + n])] += 1
        return counts

    def compute_stats(self, hyp, ref):
        if "format-characters-deleted" in self.bugs:
            hyp, ref = hyp.translate(_INVISIBLE), ref.translate(_INVISIBLE)
        rows = []
        for split, order in ((self.separate_characters, self.ncorder), (self.separate_punctuation, self.nworder)):
            hc, rc = self.ngram_counts(split(hyp), order), self.ngram_counts(split(ref), order)
            for n in range(1, order + 1):
                ref_n = sum(rc[n].values())
                hyp_n = sum(hc[n].values()) if ref_n else 0
                rows.append((hyp_n, ref_n, sum(min(c, rc[n].get(g, 0)) for g, c in hc[n].items())))
        return rows

    def order_f(self, hyp_n, ref_n, match, smooth):
        if smooth:
            p = match / hyp_n if hyp_n else EPS
            r = match / ref_n if ref_n else EPS
            denominator = self.beta ** 2 * p + r
            return (1 + self.beta ** 2) * p * r / denominator if denominator > 0 else EPS
        if match == 0:
            return 0.0
        p, r = match / hyp_n, match / ref_n
        return (1 + self.beta ** 2) * p * r / (self.beta ** 2 * p + r)

    def finish(self, rows, smooth):
        value = 100 * sum(self.order_f(*row, smooth) for row in rows) / len(rows)
        return round(value, 2) if "precision-loss" in self.bugs else value

    def best(self, hyp, refs):
        if "first-reference-only" in self.bugs:
            refs = refs[:1]
        best_rows, best_f = self.compute_stats(hyp, refs[0]), 0.0
        for ref in refs:
            rows = self.compute_stats(hyp, ref)
            f = self.finish(rows, smooth=False)
            if f > best_f:
                best_rows, best_f = rows, f
        return best_rows

    def sentence(self, hypothesis, references):
        return self.finish(self.best(hypothesis, references), smooth=False)

    def document(self, hypotheses, references):
        total = None
        for hyp, refs in zip(hypotheses, references):
            rows = self.best(hyp, refs)
            total = rows if total is None else [tuple(a + b for a, b in zip(x, y)) for x, y in zip(total, rows)]
        return self.finish(total, smooth=True)


def _make(bugs=frozenset()):
    scorer = ChrFPlusPlus(bugs=bugs)
    return scorer.sentence, scorer.document


sentence, corpus = _make(frozenset(BUGS) | frozenset(UNCATALOGUED))
