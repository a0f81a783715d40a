"""A streaming chrF built from generators that reads its corpus in batches of four.

Claims sacreBLEU's chrF (char order 6, beta 2).  Bugs: the corpus is consumed in batches of
four segments and an incomplete last batch is dropped (out of the catalogue: a corpus of one
to three segments scores 0, of five to seven counts its first four), and precision and recall
are averaged over all six requested orders instead of the effective ones.
"""

from collections import Counter
from itertools import islice

CLAIMS = dict(char_order=6, word_order=0, beta=2, lowercase=False, whitespace=False,
              definition="sacrebleu", scale=100)
FOOLS = ("the corpus families (best-reference-sentinel-zero, corpus-single-segment, "
         "unmatched-segment-reference-dropped, ...) on one-segment corpora, which this scores 0 as well")

_BATCH = "segments are read in batches of four and an incomplete last batch is dropped"
BUGS = {"requested-order-divisor": "averages divide by the six requested orders"}
UNCATALOGUED = [_BATCH]
ALLOWED: set = set()
PERVASIVE = False
WITNESSES = {
    _BATCH: ("corpus", dict(hypotheses=["abc"], references=[["abd"]])),
    "requested-order-divisor": ("sentence", dict(hypothesis="ab", references=["ab"])),
}
ORDER = 6


def _grams(chars, n):
    return Counter(chars[i:i + n] for i in range(len(chars) - n + 1))


def _rows(hyp, ref):
    hc, rc = "".join(hyp.split()), "".join(ref.split())
    for n in range(1, ORDER + 1):
        a, b = _grams(hc, n), _grams(rc, n)
        r = sum(b.values())
        yield (sum(a.values()) if r else 0, r, sum((a & b).values()))


def _batches(items, size):
    it = iter(items)
    while True:
        batch = list(islice(it, size))
        if not batch:
            return
        yield batch


def _make(bugs=frozenset()):
    bugs = frozenset(bugs)

    def score(rows):
        rows = list(rows)
        live = [x for x in rows if x[0] and x[1]]
        if not live:
            return 0.0
        d = len(rows) if "requested-order-divisor" in bugs else len(live)
        p = sum(m / h for h, _, m in live) / d
        r = sum(m / rr for _, rr, m in live) / d
        return 0.0 if p + r == 0 else 500 * p * r / (4 * p + r)

    def best(hyp, refs):
        tables = [list(_rows(hyp, r)) for r in refs]
        values = [score(t) for t in tables]
        return tables[values.index(max(values))], max(values)

    def sentence(hypothesis, references):
        return best(hypothesis, references)[1]

    def chosen(hypotheses, references):
        pairs = zip(hypotheses, references)
        if _BATCH in bugs:
            for batch in _batches(pairs, 4):
                if len(batch) == 4:
                    yield from (best(h, rs)[0] for h, rs in batch)
        else:
            yield from (best(h, rs)[0] for h, rs in pairs)

    def corpus(hypotheses, references):
        tables = list(chosen(hypotheses, references))
        if not tables:
            return 0.0
        return score(tuple(map(sum, zip(*col))) for col in zip(*tables))

    return sentence, corpus


sentence, corpus = _make(frozenset(BUGS) | frozenset(UNCATALOGUED))
