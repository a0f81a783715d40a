"""chrF that counts matches by merging sorted n-gram lists (no hash tables at all).

Claims sacreBLEU's chrF (char order 6, beta 2).  Bugs: precision and recall are divided by
the requested number of orders (pervasive on short texts), the best-reference search starts
from 0, and texts are NFC-normalised first.
"""

import unicodedata

CLAIMS = dict(char_order=6, word_order=0, beta=2, lowercase=False, whitespace=False,
              definition="sacrebleu", scale=100)

BUGS = {
    "requested-order-divisor": "the per-order precision and recall sums are divided by char_order (6)",
    "best-reference-sentinel-zero": "best score starts at 0.0 with a strict >, so a segment that matches none "
                                    "of its references adds nothing to the corpus sums",
    "unicode-normalization": "hypothesis and references are NFC-normalised before counting",
}
UNCATALOGUED: list = []
ALLOWED: set = set()
PERVASIVE = False
WITNESSES = {
    "requested-order-divisor": ("sentence", dict(hypothesis="ab", references=["ab"])),
    "best-reference-sentinel-zero": ("corpus", dict(hypotheses=["abc", "xyz"], references=[["abc"], ["pq", "uv"]])),
    "unicode-normalization": ("sentence", dict(hypothesis="e\u0301", references=["\u00e9"])),
}

NC = 6
BB = 4.0


def _make(bugs=frozenset()):
    bugs = frozenset(bugs)

    def prepare(text):
        if "unicode-normalization" in bugs:
            text = unicodedata.normalize("NFC", text)
        return "".join(text.split())

    def merged_matches(a, b):
        a, b = sorted(a), sorted(b)
        i = j = hits = 0
        while i < len(a) and j < len(b):
            if a[i] == b[j]:
                hits, i, j = hits + 1, i + 1, j + 1
            elif a[i] < b[j]:
                i += 1
            else:
                j += 1
        return hits

    def triple_list(hyp, ref):
        h, r = prepare(hyp), prepare(ref)
        hyps, refs, hits = [0] * NC, [0] * NC, [0] * NC
        for k in range(NC):
            hg = [h[i:i + k + 1] for i in range(len(h) - k)]
            rg = [r[i:i + k + 1] for i in range(len(r) - k)]
            refs[k] = len(rg)
            hyps[k] = len(hg) if rg else 0
            hits[k] = merged_matches(hg, rg)
        return [hyps, refs, hits]

    def chrf(t):
        hyps, refs, hits = t
        p = r = 0.0
        used = 0
        for k in range(NC):
            if hyps[k] > 0 and refs[k] > 0:
                p += hits[k] / hyps[k]
                r += hits[k] / refs[k]
                used += 1
        if used == 0:
            return 0.0
        if "requested-order-divisor" in bugs:
            used = NC
        p, r = p / used, r / used
        if p + r == 0:
            return 0.0
        return 100.0 * (1 + BB) * p * r / (BB * p + r)

    def best_triple(hyp, refs):
        if "best-reference-sentinel-zero" in bugs:
            keep, keep_score = [[0] * NC, [0] * NC, [0] * NC], 0.0
        else:
            keep, keep_score = None, -1.0
        for ref in refs:
            t = triple_list(hyp, ref)
            s = chrf(t)
            if s > keep_score:
                keep, keep_score = t, s
        return keep

    def sentence(hypothesis, references):
        return chrf(best_triple(hypothesis, references))

    def corpus(hypotheses, references):
        total = [[0] * NC, [0] * NC, [0] * NC]
        for idx in range(len(hypotheses)):
            t = best_triple(hypotheses[idx], references[idx])
            for row in range(3):
                for k in range(NC):
                    total[row][k] += t[row][k]
        return chrf(total)

    return sentence, corpus


sentence, corpus = _make(frozenset(BUGS) | frozenset(UNCATALOGUED))
