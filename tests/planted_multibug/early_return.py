"""chrF on the 0..1 scale with a corpus loop whose return statement is indented one level too far.

Claims sacreBLEU's chrF (char order 6, beta 2), scale 1.  Bugs: the corpus score is the first
segment's (``return`` inside the loop) and whitespace is scored as characters.
"""

from collections import Counter

CLAIMS = dict(char_order=6, word_order=0, beta=2, lowercase=False, whitespace=False,
              definition="sacrebleu", scale=1)

BUGS = {
    "corpus-single-segment": "the corpus loop returns after its first iteration: only segment 0 is scored",
    "whitespace-kept": "n-grams are taken over the raw text, spaces and tabs included",
}
UNCATALOGUED: list = []
ALLOWED: set = set()
PERVASIVE = True
WITNESSES = {
    "corpus-single-segment": ("corpus", dict(hypotheses=["abc", "ab"], references=[["abc"], ["xy"]])),
    "whitespace-kept": ("sentence", dict(hypothesis="a b", references=["ab"])),
}


def _make(bugs=frozenset()):
    bugs = frozenset(bugs)

    def grams(text):
        if "whitespace-kept" not in bugs:
            text = "".join(text.split())
        return {n: Counter(text[i:i + n] for i in range(len(text) - n + 1)) for n in range(1, 7)}

    def add(total, other):
        return {n: tuple(a + b for a, b in zip(total[n], other[n])) for n in total}

    def pair(hyp, ref):
        hg, rg = grams(hyp), grams(ref)
        return {n: (hg[n].total() if rg[n] else 0, rg[n].total(), (hg[n] & rg[n]).total()) for n in hg}

    def chrf(stats):
        live = [v for v in stats.values() if v[0] and v[1]]
        if not live:
            return 0.0
        p = sum(m / h for h, _, m in live) / len(live)
        r = sum(m / rr for _, rr, m in live) / len(live)
        return 5 * p * r / (4 * p + r) if p + r else 0.0

    def best(hyp, refs):
        return max((pair(hyp, ref) for ref in refs), key=chrf)

    def sentence(hypothesis, references):
        return chrf(best(hypothesis, references))

    def corpus(hypotheses, references):
        total = {n: (0, 0, 0) for n in range(1, 7)}
        for hyp, refs in zip(hypotheses, references):
            total = add(total, best(hyp, refs))
            if "corpus-single-segment" in bugs:
                return chrf(total)
        return chrf(total)

    return sentence, corpus


sentence, corpus = _make(frozenset(BUGS) | frozenset(UNCATALOGUED))
