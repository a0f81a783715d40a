"""A chrF transliterated from a Rust crate: iterators over ``chars()``, a HashMap<&[char],
usize> of counts, ``flat_map(char::to_lowercase)``, ``filter(|c| !c.is_whitespace())``.

Claims sacreBLEU's chrF with lowercasing (char order 6, beta 2, lowercase=True).  Bugs, both
Rust's char methods: whitespace is Unicode White_Space (``char::is_whitespace``: U+001C..U+001F
stay); lowercasing maps each char alone (``char::to_lowercase``: U+0130 gives "i" and a
combining dot, a word-final capital sigma the medial form).  Code points are right (chars).
"""

CLAIMS = dict(char_order=6, word_order=0, beta=2, lowercase=True, whitespace=False,
              definition="sacrebleu", scale=100)
FOOLS = ("whitespace-set-java and whitespace-set-javascript on U+001C (both differ elsewhere); "
         "casefold-instead-of-lower on sigma")

BUGS = {
    "whitespace-set-white-space": "text.chars().filter(|c| !c.is_whitespace())",
    "lowercase-mapping-not-python": "text.chars().flat_map(char::to_lowercase): no final sigma",
}
UNCATALOGUED: list = []
ALLOWED: set = set()
PERVASIVE = False
WITNESSES = {
    "whitespace-set-white-space": ("sentence", dict(hypothesis="ab\x1fcd", references=["abcd"])),
    "lowercase-mapping-not-python": ("sentence", dict(hypothesis="\u039f\u0394\u039f\u03a3", references=["\u03bf\u03b4\u03bf\u03c2"])),
}
#: char::is_whitespace: the White_Space property
WHITE_SPACE = frozenset("\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
                        "\u2009\u200a\u2028\u2029\u202f\u205f\u3000")


def _make(bugs=frozenset()):
    bugs = frozenset(bugs)

    def chars(text):
        lowered = "".join(c.lower() for c in text) if "lowercase-mapping-not-python" in bugs else text.lower()
        if "whitespace-set-white-space" in bugs:
            return [c for c in lowered if c not in WHITE_SPACE]
        return [c for c in lowered if not c.isspace()]

    def ngram_counts(cs, n):
        counts = {}
        for window in (tuple(cs[i:i + n]) for i in range(len(cs) + 1 - n)):
            counts[window] = counts.get(window, 0) + 1
        return counts

    def stats(hyp, ref):
        h, r = chars(hyp), chars(ref)
        out = []
        for n in range(1, 7):
            hc, rc = ngram_counts(h, n), ngram_counts(r, n)
            r_total = sum(rc.values())
            matched = sum(min(k, rc.get(g, 0)) for g, k in hc.items())
            out.append((sum(hc.values()) if r_total else 0, r_total, matched))
        return out

    def f_score(rows):
        effective = [(h, r, m) for (h, r, m) in rows if h and r]
        if not effective:
            return 0.0
        p = sum(m / h for h, _, m in effective) / len(effective)
        rec = sum(m / r for _, r, m in effective) / len(effective)
        return 0.0 if p + rec == 0.0 else 100.0 * 5.0 * p * rec / (4.0 * p + rec)

    def best(hyp, refs):
        return max(((f_score(s), i, s) for i, s in enumerate(stats(hyp, r) for r in refs)),
                   key=lambda t: (t[0], -t[1]))

    def sentence(hypothesis, references):
        return best(hypothesis, references)[0]

    def corpus(hypotheses, references):
        total = [(0, 0, 0)] * 6
        for h, rs in zip(hypotheses, references):
            total = [tuple(a + b for a, b in zip(x, y)) for x, y in zip(total, best(h, rs)[2])]
        return f_score(total)

    return sentence, corpus


sentence, corpus = _make(frozenset(BUGS))
