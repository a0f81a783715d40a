"""chrF/chrF++ with order settings, cleaning its references of empty strings.

Claims sacreBLEU's chrF (char order 6, word order 0, beta 2) and accepts ``char_order`` and
``word_order``.  Bugs: empty reference strings are filtered out (a segment left with none is
skipped by the corpus), characters are UTF-16 code units, and ``char_order`` is ignored (6).
"""

import string
from collections import Counter

CLAIMS = dict(char_order=6, word_order=0, beta=2, lowercase=False, whitespace=False,
              definition="sacrebleu", scale=100)
ACCEPTS = ("char_order", "word_order")

BUGS = {
    "empty-references-dropped": "references are cleaned with [r for r in refs if r]; a segment left without "
                                "references is skipped in the corpus (a sentence without any scores 0)",
    "utf16-code-units": "character n-grams are over UTF-16 code units",
    "parameter-ignored-char-order": "char_order is accepted, but the n-gram table is built for CHAR_ORDER = 6",
}
UNCATALOGUED: list = []
ALLOWED: set = set()
PERVASIVE = False
WITNESSES = {
    "empty-references-dropped": ("corpus", dict(hypotheses=["ab", "uv"], references=[["ab"], ["", "xyz"]])),
    "utf16-code-units": ("sentence", dict(hypothesis="\U00010400b", references=["\U00010400c"])),
    "parameter-ignored-char-order": ("sentence", dict(hypothesis="abc", references=["abd"], char_order=2)),
}

CHAR_ORDER = 6
PUNCT = frozenset(string.punctuation)


def _utf16(text):
    data = text.encode("utf-16-le", "surrogatepass")
    return [data[i:i + 2] for i in range(0, len(data), 2)]


def _words(text):
    for w in text.split():
        if len(w) > 1 and w[-1] in PUNCT:
            yield from (w[:-1], w[-1])
        elif len(w) > 1 and w[0] in PUNCT:
            yield from (w[0], w[1:])
        else:
            yield w


def _make(bugs=frozenset()):
    bugs = frozenset(bugs)

    def sequences(text, char_order, word_order):
        flat = "".join(text.split())
        units = _utf16(flat) if "utf16-code-units" in bugs else list(flat)
        toks = list(_words(text))
        return [(units, n) for n in range(1, char_order + 1)] + [(toks, n) for n in range(1, word_order + 1)]

    def stats(hyp, ref, char_order, word_order):
        out = []
        for (hs, n), (rs, _) in zip(sequences(hyp, char_order, word_order), sequences(ref, char_order, word_order)):
            hc = Counter(tuple(hs[i:i + n]) for i in range(len(hs) - n + 1))
            rc = Counter(tuple(rs[i:i + n]) for i in range(len(rs) - n + 1))
            out.append((hc.total() if rc else 0, rc.total(), (hc & rc).total()))
        return out

    def f2(rows):
        eff = [x for x in rows if x[0] > 0 and x[1] > 0]
        if not eff:
            return 0.0
        p = sum(m / h for h, _, m in eff) / len(eff)
        r = sum(m / rr for _, rr, m in eff) / len(eff)
        return 0.0 if p + r == 0 else 100 * 5 * p * r / (4 * p + r)

    def best(hyp, refs, char_order, word_order):
        if "parameter-ignored-char-order" in bugs:
            char_order = CHAR_ORDER
        if "empty-references-dropped" in bugs:
            refs = [r for r in refs if r]
        options = [stats(hyp, r, char_order, word_order) for r in refs]
        return max(options, key=f2, default=None)

    def sentence(hypothesis, references, char_order=6, word_order=0):
        rows = best(hypothesis, references, char_order, word_order)
        return 0.0 if rows is None else f2(rows)

    def corpus(hypotheses, references, char_order=6, word_order=0):
        totals = None
        for hyp, refs in zip(hypotheses, references):
            rows = best(hyp, refs, char_order, word_order)
            if rows is None:
                continue
            totals = rows if totals is None else [tuple(map(sum, zip(a, b))) for a, b in zip(totals, rows)]
        return 0.0 if totals is None else f2(totals)

    return sentence, corpus


sentence, corpus = _make(frozenset(BUGS) | frozenset(UNCATALOGUED))
