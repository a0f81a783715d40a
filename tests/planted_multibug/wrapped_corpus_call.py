"""A library-style scorer whose sentence API wraps its corpus API (and forgets one bracket).

Claims sacreBLEU's chrF (char order 6, beta 2).  Bugs: ``sentence_score`` passes the
reference list where the corpus API expects a list of reference lists, so the first
reference string is iterated and each of its characters is scored as a reference; matches
are not clipped; and the n-gram orders run 1..5 (an off-by-one ``range``).
"""

from collections import Counter

CLAIMS = dict(char_order=6, word_order=0, beta=2, lowercase=False, whitespace=False,
              definition="sacrebleu", scale=100)

BUGS = {
    "reference-string-as-list": "sentence_score calls corpus_score([hyp], references) instead of [references]: "
                                "the first reference's characters become the references",
    "no-clipping": "a hypothesis n-gram the reference has counts all its occurrences",
    "wrong-ngram-orders": "orders come from range(1, char_order): 1..5 instead of 1..6",
}
UNCATALOGUED: list = []
ALLOWED = {"out-of-range", "first-reference-only"}  # a one-character first reference: exactly that
PERVASIVE = True
WITNESSES = {
    "reference-string-as-list": ("sentence", dict(hypothesis="ab", references=["ab"])),
    "no-clipping": ("sentence", dict(hypothesis="aa", references=["a"])),
    "wrong-ngram-orders": ("corpus", dict(hypotheses=["abcdef"], references=[["abcdeg"]])),
}


class ChrF:
    """``ChrF().corpus_score(hypotheses, [[refs of segment 0], ...])``, ``sentence_score(hyp, refs)``."""

    def __init__(self, char_order=6, beta=2, bugs=frozenset()):
        self.char_order, self.beta, self.bugs = char_order, beta, frozenset(bugs)

    def _orders(self):
        last = self.char_order if "wrong-ngram-orders" in self.bugs else self.char_order + 1
        return range(1, last)

    def _extract(self, text):
        text = "".join(text.split())
        return {n: Counter(text[i:i + n] for i in range(len(text) - n + 1)) for n in self._orders()}

    def _match(self, hyp, ref):
        if "no-clipping" in self.bugs:
            return sum(count for gram, count in hyp.items() if gram in ref)
        return sum(min(count, ref[gram]) for gram, count in hyp.items() if gram in ref)

    def _stats(self, hyp_ngrams, ref_ngrams):
        out = {}
        for n in self._orders():
            h, r = hyp_ngrams[n], ref_ngrams[n]
            out[n] = (h.total() if r else 0, r.total(), self._match(h, r))
        return out

    def _f(self, stats):
        eff = [s for s in stats.values() if s[0] and s[1]]
        if not eff:
            return 0.0
        p = sum(m / h for h, _, m in eff) / len(eff)
        r = sum(m / rr for _, rr, m in eff) / len(eff)
        if p == r == 0:
            return 0.0
        b2 = self.beta ** 2
        return 100.0 * (1 + b2) * p * r / (b2 * p + r)

    def _best(self, hyp, refs):
        hyp_ngrams = self._extract(hyp)
        best, best_f = None, -1.0
        for ref in refs:
            stats = self._stats(hyp_ngrams, self._extract(ref))
            f = self._f(stats)
            if f > best_f:
                best, best_f = stats, f
        return best

    def corpus_score(self, hypotheses, references):
        totals = {n: (0, 0, 0) for n in self._orders()}
        for hyp, refs in zip(hypotheses, references):
            stats = self._best(hyp, refs) or {}
            for n, triple in stats.items():
                totals[n] = tuple(a + b for a, b in zip(totals[n], triple))
        return self._f(totals)

    def sentence_score(self, hypothesis, references):
        if "reference-string-as-list" in self.bugs:
            return self.corpus_score([hypothesis], references)
        return self.corpus_score([hypothesis], [references])


def _make(bugs=frozenset()):
    scorer = ChrF(bugs=bugs)
    return scorer.sentence_score, scorer.corpus_score


sentence, corpus = _make(frozenset(BUGS) | frozenset(UNCATALOGUED))
