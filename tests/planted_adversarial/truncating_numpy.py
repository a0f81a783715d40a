"""chrF on numpy arrays of code points, with a fixed-size input buffer.

Claims sacreBLEU's chrF (char order 6, beta 2).  Bugs: the hypothesis is copied into a buffer
of 64 code points, so everything after its 64th character is lost, and only the first
reference is used.
"""

import numpy as np

CLAIMS = dict(char_order=6, word_order=0, beta=2, lowercase=False, whitespace=False,
              definition="sacrebleu", scale=100)
FOOLS = "a fit that reads as complete: 3 to 6 in 1,000 generic draws have a hypothesis of 65 characters"

BUGS = {
    "text-truncated": "hyp = np.array(codepoints)[:64]: the hypothesis is cut to 64 characters",
    "first-reference-only": "only references[0] is scored",
}
UNCATALOGUED: list = []
ALLOWED: set = set()
PERVASIVE = False
WITNESSES = {
    "text-truncated": ("sentence", dict(hypothesis="the cat sat on the mat " * 3 + "and more", references=[
        "the cat sat on the mat " * 3 + "and more"])),
    "first-reference-only": ("sentence", dict(hypothesis="abc", references=["xyz", "abc"])),
}
BUFFER = 64


def _make(bugs=frozenset()):
    bugs = frozenset(bugs)

    def codes(text, cut):
        arr = np.array([ord(c) for c in text], dtype=np.int64)
        if cut and "text-truncated" in bugs:
            arr = arr[:BUFFER]
        return arr[~np.isin(arr, _SPACE)]

    def grams(arr, n):
        if len(arr) < n:
            return {}
        windows = np.lib.stride_tricks.sliding_window_view(arr, n)
        keys, counts = np.unique(windows, axis=0, return_counts=True)
        return {tuple(k): int(c) for k, c in zip(keys, counts)}

    def table(hyp, ref):
        h, r = codes(hyp, True), codes(ref, False)
        out = np.zeros((6, 3), dtype=np.int64)
        for n in range(1, 7):
            a, b = grams(h, n), grams(r, n)
            rt = sum(b.values())
            out[n - 1] = (sum(a.values()) if rt else 0, rt, sum(min(c, b.get(g, 0)) for g, c in a.items()))
        return out

    def score(t):
        live = t[(t[:, 0] > 0) & (t[:, 1] > 0)].astype(np.float64)
        if not len(live):
            return 0.0
        p, r = float(np.mean(live[:, 2] / live[:, 0])), float(np.mean(live[:, 2] / live[:, 1]))
        return 0.0 if p + r == 0 else 500 * p * r / (4 * p + r)

    def best(hyp, refs):
        if "first-reference-only" in bugs:
            refs = refs[:1]
        tables = [table(hyp, r) for r in refs]
        values = [score(t) for t in tables]
        return tables[int(np.argmax(values))], max(values)

    def sentence(hypothesis, references):
        return best(hypothesis, references)[1]

    def corpus(hypotheses, references):
        return score(sum(best(h, rs)[0] for h, rs in zip(hypotheses, references)))

    return sentence, corpus


_SPACE = np.array([c for c in range(0x3001) if chr(c).isspace()], dtype=np.int64)
sentence, corpus = _make(frozenset(BUGS))
