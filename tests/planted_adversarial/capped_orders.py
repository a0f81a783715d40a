"""chrF++ whose orders are capped by the reference: ``max_n = min(N, len(reference))``.

Claims sacreBLEU's chrF++ (char order 6, word order 2, beta 2).  Bugs: precision and recall
are averaged over the orders the reference has n-grams of (an order the hypothesis is too
short for counts as 0 instead of being left out), and a punctuation mark is split off both
ends of a word.
"""

from collections import Counter

CLAIMS = dict(char_order=6, word_order=2, beta=2, lowercase=False, whitespace=False,
              definition="sacrebleu", scale=100)
FOOLS = ("requested-order-divisor and effective-order counting: on a hypothesis as long as its reference "
         "the capped, requested and effective orders agree")

BUGS = {
    "reference-length-order-cap": "for n in range(1, min(N, len(ref_units)) + 1): orders the reference has",
    "word-punctuation-split-both": "a leading and a trailing mark are both split off a word",
}
UNCATALOGUED: list = []
ALLOWED: set = set()
PERVASIVE = False
WITNESSES = {
    "reference-length-order-cap": ("sentence", dict(hypothesis="ab", references=["abcd"])),
    "word-punctuation-split-both": ("sentence", dict(hypothesis="(abc) de", references=["( abc ) de"])),
}
PUNCT = set("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")


def _make(bugs=frozenset()):
    bugs = frozenset(bugs)

    def words(text):
        out = []
        for w in text.split():
            if len(w) == 1:
                out.append(w)
                continue
            head = w[0] if w[0] in PUNCT else ""
            tail = w[-1] if w[-1] in PUNCT else ""
            if "word-punctuation-split-both" in bugs and head and tail and len(w) > 2:
                out += [head, w[1:-1], tail]
            elif tail:
                out += [w[:-1], tail]
            elif head:
                out += [head, w[1:]]
            else:
                out.append(w)
        return out

    def side(h, r, top):
        for n in range(1, top + 1):
            a = Counter(tuple(h[i:i + n]) for i in range(len(h) - n + 1))
            b = Counter(tuple(r[i:i + n]) for i in range(len(r) - n + 1))
            rt = sum(b.values())
            yield (sum(a.values()) if rt else 0), rt, sum((a & b).values())

    def rows(hyp, ref):
        hc, rc = "".join(hyp.split()), "".join(ref.split())
        return list(side(hc, rc, 6)) + list(side(words(hyp), words(ref), 2))

    def f(table):
        live = [t for t in table if t[0] and t[1]]
        if not live:
            return 0.0
        d = sum(1 for t in table if t[1]) if "reference-length-order-cap" in bugs else len(live)
        p = sum(m / h for h, _, m in live) / d
        r = sum(m / rr for _, rr, m in live) / d
        return 0.0 if p + r == 0 else 500 * p * r / (4 * p + r)

    def best(hyp, refs):
        tables = [rows(hyp, r) for r in refs]
        values = [f(t) for t in tables]
        return tables[values.index(max(values))], max(values)

    def sentence(hypothesis, references):
        return best(hypothesis, references)[1]

    def corpus(hypotheses, references):
        picked = [best(h, rs)[0] for h, rs in zip(hypotheses, references)]
        return f([tuple(map(sum, zip(*col))) for col in zip(*picked)])

    return sentence, corpus


sentence, corpus = _make(frozenset(BUGS))
