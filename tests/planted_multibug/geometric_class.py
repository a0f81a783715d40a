"""A library-style chrF class whose author mixed BLEU in: orders are combined geometrically.

Claims sacreBLEU's chrF (char order 6, beta 2, case-sensitive).  Five bugs: precision and
recall are geometric means over the orders (out of the catalogue, pervasive), the text is
lowercased, the whitespace set lacks U+001C..U+001F, an input with no n-grams on either side
scores 100, and the corpus score is the mean of the sentence scores.
"""

CLAIMS = dict(char_order=6, word_order=0, beta=2, lowercase=False, whitespace=False,
              definition="sacrebleu", scale=100)

_GEOMETRIC = "precision and recall are geometric means over the effective orders (BLEU style), not arithmetic means"
BUGS = {
    "case-folded": "CharacterF.preprocess lowercases every text",
    "whitespace-set-white-space": "whitespace removal skips U+001C..U+001F (Unicode White_Space, "
                                  "not str.isspace()): they stay as characters",
    "empty-input-perfect": "CharacterF.score returns 100 when neither side has an n-gram",
    "corpus-macro-average": "CharacterF.corpus_score averages sentence scores",
}
UNCATALOGUED = [_GEOMETRIC]
ALLOWED: set = set()
PERVASIVE = True
#: No catalogued bug is hidden since issue 41: behind the pervasive _GEOMETRIC no model
#: reproduces a score they change on the inputs the search meets, but with one n-gram order
#: effective a geometric mean is the arithmetic one, and the audit judges the catalogued
#: families there (audit.diagnose.inert): case-folded, whitespace-set-white-space and
#: empty-input-perfect are named.
WITNESSES = {
    _GEOMETRIC: ("sentence", dict(hypothesis="abcd", references=["abce"])),
    "case-folded": ("sentence", dict(hypothesis="Ab", references=["ab"])),
    "whitespace-set-white-space": ("sentence", dict(hypothesis="a\x1cb", references=["ab"])),
    "empty-input-perfect": ("sentence", dict(hypothesis=" ", references=[""])),
    "corpus-macro-average": ("corpus", dict(hypotheses=["ab", "abcd"], references=[["ab"], ["abce"]])),
}

_NOT_WHITE_SPACE = frozenset("\x1c\x1d\x1e\x1f")


class CharacterF:
    """chrF scorer: ``sentence_score(hyp, refs)`` and ``corpus_score(hyps, refs_per_segment)``."""

    def __init__(self, char_order=6, beta=2.0, bugs=frozenset()):
        self.char_order = char_order
        self.beta = beta
        self.bugs = frozenset(bugs)

    def preprocess(self, text):
        if "case-folded" in self.bugs:
            text = text.lower()
        if "whitespace-set-white-space" in self.bugs:
            return "".join(c for c in text if not c.isspace() or c in _NOT_WHITE_SPACE)
        return "".join(text.split())

    def extract(self, text):
        chars = self.preprocess(text)
        grams = []
        for n in range(1, self.char_order + 1):
            bag = {}
            for start in range(len(chars) - n + 1):
                bag[chars[start:start + n]] = bag.get(chars[start:start + n], 0) + 1
            grams.append(bag)
        return grams

    def statistics(self, hyp, ref):
        result = []
        for hyp_bag, ref_bag in zip(self.extract(hyp), self.extract(ref)):
            ref_total = sum(ref_bag.values())
            hyp_total = sum(hyp_bag.values()) if ref_total else 0
            match = sum(min(c, ref_bag.get(g, 0)) for g, c in hyp_bag.items())
            result.append((hyp_total, ref_total, match, sum(hyp_bag.values())))  # last: before zeroing
        return result

    def score(self, statistics):
        effective = [(h, r, m) for h, r, m, _ in statistics if h and r]
        if not effective:
            nothing = not any(raw or r for _, r, _, raw in statistics)
            return 100.0 if nothing and "empty-input-perfect" in self.bugs else 0.0
        if _GEOMETRIC in self.bugs:
            p = r = 1.0
            for h, rr, m in effective:
                p *= (m / h) ** (1 / len(effective))
                r *= (m / rr) ** (1 / len(effective))
        else:
            p = sum(m / h for h, _, m in effective) / len(effective)
            r = sum(m / rr for _, rr, m in effective) / len(effective)
        if p + r == 0:
            return 0.0
        b2 = self.beta ** 2
        return 100 * (1 + b2) * p * r / (b2 * p + r)

    def best(self, hyp, refs):
        scored = [(self.score(s), i, s) for i, s in enumerate(self.statistics(hyp, r) for r in refs)]
        top = max(score for score, _, _ in scored)
        return next((score, s) for score, _, s in scored if score == top)

    def sentence_score(self, hypothesis, references):
        return self.best(hypothesis, references)[0]

    def corpus_score(self, hypotheses, references):
        chosen = [self.best(h, rs) for h, rs in zip(hypotheses, references)]
        if "corpus-macro-average" in self.bugs:
            return sum(score for score, _ in chosen) / len(chosen)
        sums = [tuple(map(sum, zip(*column))) for column in zip(*(s for _, s in chosen))]
        return self.score(sums)


def _make(bugs=frozenset()):
    scorer = CharacterF(bugs=bugs)
    return scorer.sentence_score, scorer.corpus_score


sentence, corpus = _make(frozenset(BUGS) | frozenset(UNCATALOGUED))
