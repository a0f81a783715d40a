"""A chrF transliterated from a JavaScript package: arrow functions over arrays, a Map of
counts keyed on String.prototype.substring (UTF-16 code units), whitespace dropped with
``text.replace(/\\s+/g, "")``.

Claims sacreBLEU's chrF (char order 6, beta 2).  Bugs, both JavaScript's defaults: ``\\s`` is
ECMA-262's WhiteSpace and LineTerminator (U+001C..U+001F and U+0085 stay, U+FEFF goes); the
n-grams are over UTF-16 code units (a character outside the BMP is two).
"""

import re

CLAIMS = dict(char_order=6, word_order=0, beta=2, lowercase=False, whitespace=False,
              definition="sacrebleu", scale=100)
FOOLS = ("format-characters-deleted on U+FEFF; whitespace-set-white-space on U+001C; utf8-bytes and "
         "unicode-normalization on text outside the BMP")

BUGS = {
    "whitespace-set-javascript": "text.replace(/\\s+/g, '') with ECMA-262's \\s",
    "utf16-code-units": "for (let i = 0; i + n <= s.length; i++) s.substring(i, i + n)",
}
UNCATALOGUED: list = []
ALLOWED: set = set()
PERVASIVE = False
WITNESSES = {
    "whitespace-set-javascript": ("sentence", dict(hypothesis="ab\x1ccd", references=["abcd"])),
    "utf16-code-units": ("sentence", dict(hypothesis="a\U0001F600b", references=["a\U0001F600c"])),
}
#: ECMA-262 WhiteSpace (TAB, VT, FF, ZWNBSP, USP = Zs) and LineTerminator (LF, CR, LS, PS)
_JS_SPACE = re.compile("[\t\x0b\x0c\ufeff \xa0\u1680\u2000-\u200a\u202f\u205f\u3000\n\r\u2028\u2029]+")


def _make(bugs=frozenset()):
    bugs = frozenset(bugs)
    strip = (lambda t: _JS_SPACE.sub("", t)) if "whitespace-set-javascript" in bugs else (lambda t: "".join(t.split()))

    def units(t):  # a JavaScript string is its UTF-16 code units
        if "utf16-code-units" not in bugs:
            return list(t)
        raw = t.encode("utf-16-le", "surrogatepass")
        return [raw[i:i + 2] for i in range(0, len(raw), 2)]

    const = dict(order=6, beta=2)
    grams = lambda s, n: [tuple(s[i:i + n]) for i in range(0, len(s) - n + 1)]  # noqa: E731

    def counts(list_):
        m = {}
        for g in list_:
            m[g] = m.get(g, 0) + 1
        return m

    def stats(hyp, ref):
        h, r = units(strip(hyp)), units(strip(ref))
        out = []
        for n in range(1, const["order"] + 1):
            hm, rm = counts(grams(h, n)), counts(grams(r, n))
            rt = sum(rm.values())
            out.append([sum(hm.values()) if rt else 0, rt, sum(min(v, rm.get(k, 0)) for k, v in hm.items())])
        return out

    def f(rows):
        live = [x for x in rows if x[0] > 0 and x[1] > 0]
        if not live:
            return 0
        p = sum(m / h for h, _, m in live) / len(live)
        r = sum(m / t for _, t, m in live) / len(live)
        b2 = const["beta"] ** 2
        return 0 if p + r == 0 else 100 * (1 + b2) * p * r / (b2 * p + r)

    def best(hyp, refs):
        scored = [(f(s), s) for s in (stats(hyp, r) for r in refs)]
        top = max(v for v, _ in scored)
        return next(s for v, s in scored if v == top), top

    def sentence(hypothesis, references):
        return float(best(hypothesis, references)[1])

    def corpus(hypotheses, references):
        rows = [best(h, rs)[0] for h, rs in zip(hypotheses, references)]
        return float(f([[sum(r[n][j] for r in rows) for j in range(3)] for n in range(const["order"])]))

    return sentence, corpus


sentence, corpus = _make(frozenset(BUGS))
