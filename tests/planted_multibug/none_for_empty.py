"""A functional-style lowercased chrF that gives up (None) on an empty hypothesis.

Claims sacreBLEU's chrF with lowercase=True (char order 6, beta 2).  Bugs: a hypothesis with
no characters returns None (out of the catalogue), the text is casefolded instead of
lowercased, only the first reference is used, and precision and recall are divided by the
requested number of orders (pervasive on short texts).
"""

from functools import reduce
from operator import add

CLAIMS = dict(char_order=6, word_order=0, beta=2, lowercase=True, whitespace=False,
              definition="sacrebleu", scale=100)

_NONE = "a hypothesis (or corpus) without characters returns None instead of a score"
BUGS = {
    "casefold-instead-of-lower": "normalise() calls str.casefold() (ß -> ss, ς -> σ) where lower() is claimed",
    "first-reference-only": "references[0] is the only reference scored",
    "requested-order-divisor": "precision and recall sums are divided by 6 even when fewer orders have n-grams",
}
UNCATALOGUED = [_NONE]
ALLOWED = {"invalid-output"}
PERVASIVE = False
WITNESSES = {
    _NONE: ("sentence", dict(hypothesis=" ", references=["abcdefg"])),
    "casefold-instead-of-lower": ("sentence", dict(hypothesis="Maß", references=["mass"])),
    "first-reference-only": ("sentence", dict(hypothesis="abcdefgh", references=["xyz", "abcdefgh"])),
    "requested-order-divisor": ("sentence", dict(hypothesis="ab", references=["ab"])),
}

ORDER = 6
BETA_SQ = 4


def _make(bugs=frozenset()):
    bugs = frozenset(bugs)
    normalise = str.casefold if "casefold-instead-of-lower" in bugs else str.lower

    def flat(text):
        return "".join(normalise(text).split())

    def bag(chars, n):
        keys = [chars[i:i + n] for i in range(len(chars) - n + 1)]
        return {k: keys.count(k) for k in set(keys)}

    def order_stats(hyp_chars, ref_chars, n):
        hb, rb = bag(hyp_chars, n), bag(ref_chars, n)
        ref_n = len(ref_chars) - n + 1 if len(ref_chars) >= n else 0
        hyp_n = len(hyp_chars) - n + 1 if len(hyp_chars) >= n and ref_n else 0
        return (hyp_n, ref_n, sum(min(v, rb.get(k, 0)) for k, v in hb.items()))

    def segment(hyp, ref):
        h, r = flat(hyp), flat(ref)
        return tuple(order_stats(h, r, n) for n in range(1, ORDER + 1))

    def f_beta(stats):
        live = [s for s in stats if s[0] > 0 and s[1] > 0]
        if not live:
            return 0.0
        divisor = ORDER if "requested-order-divisor" in bugs else len(live)
        p = sum(m / h for h, _, m in live) / divisor
        r = sum(m / rr for _, rr, m in live) / divisor
        return 0.0 if p + r == 0 else 100 * (1 + BETA_SQ) * p * r / (BETA_SQ * p + r)

    def choose(hyp, refs):
        if "first-reference-only" in bugs:
            refs = refs[:1]
        return max((segment(hyp, r) for r in refs), key=f_beta)  # max keeps the first of equals

    def sentence(hypothesis, references):
        if _NONE in bugs and not flat(hypothesis):
            return None
        return f_beta(choose(hypothesis, references))

    def corpus(hypotheses, references):
        if _NONE in bugs and not any(flat(h) for h in hypotheses):
            return None
        per_segment = [choose(h, rs) for h, rs in zip(hypotheses, references)]
        summed = reduce(lambda a, b: tuple(tuple(map(add, x, y)) for x, y in zip(a, b)), per_segment)
        return f_beta(summed)

    return sentence, corpus


sentence, corpus = _make(frozenset(BUGS) | frozenset(UNCATALOGUED))
