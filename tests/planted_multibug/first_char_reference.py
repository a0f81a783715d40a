"""A stateful metric object (update/compute, like the deep-learning metric libraries).

Claims sacreBLEU's chrF++ (char order 6, word order 2, beta 2) and accepts ``word_order``.
Bugs: the sentence wrapper indexes the first reference string as if it were the list of
references, so a sentence is scored against the first character of its first reference; the
``word_order`` argument is ignored (2); and the corpus totals keep the hypothesis n-grams of
orders the chosen reference has none of.
"""

import string
from collections import Counter

CLAIMS = dict(char_order=6, word_order=2, beta=2, lowercase=False, whitespace=False,
              definition="sacrebleu", scale=100)
ACCEPTS = ("word_order",)

BUGS = {
    "reference-string-as-list": "sentence() takes references[0] for the reference list and scores against "
                                "its element [0]: the first character of the first reference",
    "parameter-ignored-word-order": "word_order is accepted, the metric is always built with n_word_order=2",
    "hypothesis-ngrams-where-reference-has-none": "update() adds every hypothesis n-gram count to the totals, "
                                                  "also for orders the chosen reference has none of",
}
UNCATALOGUED: list = []
# an empty first reference has no element [0] (IndexError); a one-character one is first-reference-only
ALLOWED = {"exception", "first-reference-only"}
PERVASIVE = True
WITNESSES = {
    "reference-string-as-list": ("sentence", dict(hypothesis="the cat", references=["the cat"])),
    "parameter-ignored-word-order": ("corpus", dict(hypotheses=["a cat sat"], references=[["a cat"]], word_order=0)),
    "hypothesis-ngrams-where-reference-has-none":
        ("corpus", dict(hypotheses=["abc", "xyz"], references=[["ab"], ["xyz"]])),
}


class ChrFMetric:
    def __init__(self, n_char_order=6, n_word_order=2, beta=2.0, bugs=frozenset()):
        self.bugs = frozenset(bugs)
        if "parameter-ignored-word-order" in self.bugs:
            n_word_order = 2
        self.n_char_order, self.n_word_order, self.beta = n_char_order, n_word_order, beta
        self.hyp = [0] * (n_char_order + n_word_order)
        self.ref = [0] * (n_char_order + n_word_order)
        self.match = [0] * (n_char_order + n_word_order)

    def _units(self, text):
        words = []
        for w in text.split():
            if len(w) > 1 and w[-1] in string.punctuation:
                words += [w[:-1], w[-1]]
            elif len(w) > 1 and w[0] in string.punctuation:
                words += [w[0], w[1:]]
            else:
                words.append(w)
        chars = "".join(text.split())
        return ([(chars, n) for n in range(1, self.n_char_order + 1)]
                + [(words, n) for n in range(1, self.n_word_order + 1)])

    def _counts(self, hyp, ref):
        rows = []
        for (h, n), (r, _) in zip(self._units(hyp), self._units(ref)):
            hc = Counter(tuple(h[i:i + n]) for i in range(len(h) - n + 1))
            rc = Counter(tuple(r[i:i + n]) for i in range(len(r) - n + 1))
            rows.append((hc.total(), rc.total(), (hc & rc).total()))
        return rows

    def _f(self, hyp, ref, match):
        live = [i for i in range(len(hyp)) if hyp[i] and ref[i]]
        if not live:
            return 0.0
        p = sum(match[i] / hyp[i] for i in live) / len(live)
        r = sum(match[i] / ref[i] for i in live) / len(live)
        b2 = self.beta ** 2
        return 0.0 if p + r == 0 else 100 * (1 + b2) * p * r / (b2 * p + r)

    def update(self, preds, target):
        for hyp, refs in zip(preds, target):
            best, best_f = None, -1.0
            for ref in refs:
                rows = self._counts(hyp, ref)
                f = self._f(*zip(*rows))
                if f > best_f:
                    best, best_f = rows, f
            for i, (h, r, m) in enumerate(best):
                keep_hyp = r > 0 or "hypothesis-ngrams-where-reference-has-none" in self.bugs
                self.hyp[i] += h if keep_hyp else 0
                self.ref[i] += r
                self.match[i] += m

    def compute(self):
        return self._f(self.hyp, self.ref, self.match)


def _make(bugs=frozenset()):
    bugs = frozenset(bugs)

    def sentence(hypothesis, references, word_order=2):
        metric = ChrFMetric(n_word_order=word_order, bugs=bugs)
        refs = [references[0][0]] if "reference-string-as-list" in bugs else references
        metric.update([hypothesis], [refs])
        return metric.compute()

    def corpus(hypotheses, references, word_order=2):
        metric = ChrFMetric(n_word_order=word_order, bugs=bugs)
        metric.update(hypotheses, references)
        return metric.compute()

    return sentence, corpus


sentence, corpus = _make(frozenset(BUGS) | frozenset(UNCATALOGUED))
