"""chrF with per-order statistics in numpy arrays, reporting on the 0..1 scale.

Claims sacreBLEU's chrF (char order 6, beta 2), scale 1.  Bugs: F is the weighted arithmetic
mean of precision and recall instead of their weighted harmonic mean (out of the catalogue,
pervasive), n-grams are over UTF-16 code units, and the best-reference search starts from 0
(a segment that scores 0 against every reference adds nothing to the corpus).
"""

from collections import Counter

import numpy as np

CLAIMS = dict(char_order=6, word_order=0, beta=2, lowercase=False, whitespace=False,
              definition="sacrebleu", scale=1)

_ARITH = "F is the weighted arithmetic mean (P + beta^2 R) / (1 + beta^2), not the weighted harmonic mean"
BUGS = {
    "utf16-code-units": "n-grams are taken over the UTF-16-LE code units of the text (a non-BMP character is two)",
    "best-reference-sentinel-zero": "the best-reference search starts at F = 0 with a strict >, so an all-zero "
                                    "segment contributes no statistics to the corpus",
}
UNCATALOGUED = [_ARITH]
ALLOWED: set = set()
PERVASIVE = True
#: No catalogued bug is hidden since issue 41: the weighted arithmetic F is the harmonic one
#: where P = R (as many hypothesis as reference n-grams in every order), and the audit judges
#: the catalogued families there (audit.diagnose.inert): utf16-code-units is named.
WITNESSES = {
    _ARITH: ("sentence", dict(hypothesis="abcd", references=["abd"])),
    "utf16-code-units": ("sentence", dict(hypothesis="\U0001f600a", references=["\U0001f600b"])),
    "best-reference-sentinel-zero": ("corpus", dict(hypotheses=["abc", "xyz"], references=[["abc"], ["pq"]])),
}

N = 6
B2 = 4.0


def _make(bugs=frozenset()):
    bugs = frozenset(bugs)

    def units(text):
        text = "".join(text.split())
        if "utf16-code-units" in bugs:
            raw = np.frombuffer(text.encode("utf-16-le", "surrogatepass"), dtype="<u2")
            return tuple(int(u) for u in raw)
        return tuple(text)

    def stats(hyp, ref):
        hu, ru = units(hyp), units(ref)
        out = np.zeros((N, 3), dtype=np.int64)  # columns: hyp, ref, match
        for n in range(1, N + 1):
            hc = Counter(hu[i:i + n] for i in range(len(hu) - n + 1))
            rc = Counter(ru[i:i + n] for i in range(len(ru) - n + 1))
            ref_total = sum(rc.values())
            out[n - 1] = (sum(hc.values()) if ref_total else 0, ref_total, sum((hc & rc).values()))
        return out

    def fscore(s):
        mask = (s[:, 0] > 0) & (s[:, 1] > 0)
        if not mask.any():
            return 0.0
        eff = s[mask].astype(np.float64)
        p = float(np.mean(eff[:, 2] / eff[:, 0]))
        r = float(np.mean(eff[:, 2] / eff[:, 1]))
        if _ARITH in bugs:
            return (p + B2 * r) / (1 + B2)
        if p + r == 0:
            return 0.0
        return (1 + B2) * p * r / (B2 * p + r)

    def pick(hyp, refs):
        if "best-reference-sentinel-zero" in bugs:
            best, best_f = np.zeros((N, 3), dtype=np.int64), 0.0
        else:
            best, best_f = None, -np.inf
        for ref in refs:
            s = stats(hyp, ref)
            f = fscore(s)
            if f > best_f:
                best, best_f = s, f
        return best

    def sentence(hypothesis, references):
        return fscore(pick(hypothesis, references))

    def corpus(hypotheses, references):
        return fscore(np.sum([pick(h, rs) for h, rs in zip(hypotheses, references)], axis=0))

    return sentence, corpus


sentence, corpus = _make(frozenset(BUGS) | frozenset(UNCATALOGUED))
