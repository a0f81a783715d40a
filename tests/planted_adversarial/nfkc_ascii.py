"""A chrF behind a text normalizer: every text goes through NFKC first (the usual "clean the
Unicode" step, which makes U+00A0, U+2003, U+3000 plain spaces), then only the ASCII whitespace
of string.whitespace is deleted.

Claims sacreBLEU's chrF (char order 6, beta 2).  Bugs: NFKC normalization; ASCII whitespace
only.  Together they delete every Unicode space and keep U+001C..U+001F, U+0085 -- which is
what deleting Unicode White_Space alone does on most inputs with whitespace.
"""

import string
import unicodedata

CLAIMS = dict(char_order=6, word_order=0, beta=2, lowercase=False, whitespace=False,
              definition="sacrebleu", scale=100)
FOOLS = "whitespace-set-white-space, which the two together reproduce on most whitespace (a combination named as a third family)"

BUGS = {
    "unicode-normalization": "text = unicodedata.normalize('NFKC', text)",
    "whitespace-set-ascii": "''.join(c for c in text if c not in string.whitespace)",
}
UNCATALOGUED: list = []
ALLOWED: set = set()
PERVASIVE = False
WITNESSES = {
    "unicode-normalization": ("sentence", dict(hypothesis="\ufb01ne", references=["fine"])),
    "whitespace-set-ascii": ("sentence", dict(hypothesis="ab\x1ccd", references=["abcd"])),
}


def _make(bugs=frozenset()):
    bugs = frozenset(bugs)

    def clean(text):
        if "unicode-normalization" in bugs:
            text = unicodedata.normalize("NFKC", text)
        if "whitespace-set-ascii" in bugs:
            return "".join(c for c in text if c not in string.whitespace)
        return "".join(text.split())

    def stats(hyp, ref):
        h, r = clean(hyp), clean(ref)
        rows = []
        for n in range(1, 7):
            hc, rc = {}, {}
            for i in range(len(h) - n + 1):
                hc[h[i:i + n]] = hc.get(h[i:i + n], 0) + 1
            for i in range(len(r) - n + 1):
                rc[r[i:i + n]] = rc.get(r[i:i + n], 0) + 1
            rt = sum(rc.values())
            rows.append((sum(hc.values()) if rt else 0, rt, sum(min(v, rc.get(k, 0)) for k, v in hc.items())))
        return rows

    def f(rows):
        live = [x for x in rows if x[0] and x[1]]
        if not live:
            return 0.0
        p = sum(m / h for h, _, m in live) / len(live)
        r = sum(m / t for _, t, m in live) / len(live)
        return 0.0 if p + r == 0 else 500 * p * r / (4 * p + r)

    def best(hyp, refs):
        top, keep = -1.0, None
        for ref in refs:
            if f(stats(hyp, ref)) > top:
                top, keep = f(stats(hyp, ref)), stats(hyp, ref)
        return keep, top

    def sentence(hypothesis, references):
        return best(hypothesis, references)[1]

    def corpus(hypotheses, references):
        rows = [best(h, rs)[0] for h, rs in zip(hypotheses, references)]
        return f([tuple(sum(r[n][j] for r in rows) for j in range(3)) for n in range(6)])

    return sentence, corpus


sentence, corpus = _make(frozenset(BUGS))
