"""A scorer class that keeps the last of the references tied at the best score.

Claims sacreBLEU's chrF (char order 6, beta 2).  Bugs: the best reference is searched with
``>=``, so of references tied at the best score the last one is kept (out of the catalogue:
it changes which statistics reach the corpus sums, e.g. between an empty reference and one the
hypothesis shares nothing with), and only ASCII whitespace is deleted.
"""

CLAIMS = dict(char_order=6, word_order=0, beta=2, lowercase=False, whitespace=False,
              definition="sacrebleu", scale=100)
FOOLS = "empty-references-dropped: of '' and a reference matching nothing, both keep the non-empty one"

_TIE = "of references tied at the best score the last one is used (>= in the best-reference search)"
BUGS = {"whitespace-set-ascii": "only ' \\t\\n\\r\\x0b\\x0c' is deleted before counting"}
UNCATALOGUED = [_TIE]
ALLOWED: set = set()
PERVASIVE = False
WITNESSES = {
    _TIE: ("corpus", dict(hypotheses=["abc", "abcd"], references=[["", "xyz"], ["abcd", "abce"]])),
    "whitespace-set-ascii": ("sentence", dict(hypothesis="a\u3000b", references=["ab"])),
}


class TieScorer:
    ORDER = 6
    ASCII = " \t\n\r\x0b\x0c"

    def __init__(self, bugs):
        self.bugs = frozenset(bugs)

    def clean(self, text):
        if "whitespace-set-ascii" in self.bugs:
            return "".join(c for c in text if c not in self.ASCII)
        return "".join(text.split())

    def counts(self, text, n):
        out = {}
        for i in range(len(text) - n + 1):
            out[text[i:i + n]] = out.get(text[i:i + n], 0) + 1
        return out

    def stats(self, hyp, ref):
        h, r = self.clean(hyp), self.clean(ref)
        rows = []
        for n in range(1, self.ORDER + 1):
            hc, rc = self.counts(h, n), self.counts(r, n)
            rt = sum(rc.values())
            rows.append([sum(hc.values()) if rt else 0, rt, sum(min(v, rc.get(g, 0)) for g, v in hc.items())])
        return rows

    def f(self, rows):
        live = [x for x in rows if x[0] and x[1]]
        if not live:
            return 0.0
        p = sum(m / h for h, _, m in live) / len(live)
        r = sum(m / rr for _, rr, m in live) / len(live)
        return 0.0 if p + r == 0 else 500 * p * r / (4 * p + r)

    def best(self, hyp, refs):
        best_rows, best_f = None, -1.0
        for ref in refs:
            rows = self.stats(hyp, ref)
            value = self.f(rows)
            if value >= best_f if _TIE in self.bugs else value > best_f:
                best_rows, best_f = rows, value
        return best_rows, best_f

    def sentence(self, hypothesis, references):
        return self.best(hypothesis, references)[1]

    def corpus(self, hypotheses, references):
        total = [[0, 0, 0] for _ in range(self.ORDER)]
        for hyp, refs in zip(hypotheses, references):
            for acc, row in zip(total, self.best(hyp, refs)[0]):
                for k in range(3):
                    acc[k] += row[k]
        return self.f(total)


def _make(bugs=frozenset()):
    s = TieScorer(bugs)
    return s.sentence, s.corpus


sentence, corpus = _make(frozenset(BUGS) | frozenset(UNCATALOGUED))
