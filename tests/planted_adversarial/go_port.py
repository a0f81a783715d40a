"""A C-style transliteration of a Go chrF: strings are byte slices, words come from
strings.Fields, and lowercasing is strings.ToLower.

Claims sacreBLEU's chrF with lowercasing (char order 6, beta 2, lowercase=True).  Bugs, all
Go's defaults: n-grams over the UTF-8 bytes of the text; whitespace is what unicode.IsSpace
says (Unicode White_Space: U+001C..U+001F stay); lowercase is one rune to one (U+0130 gives
"i", a word-final capital sigma the medial form).
"""

CLAIMS = dict(char_order=6, word_order=0, beta=2, lowercase=True, whitespace=False,
              definition="sacrebleu", scale=100)
FOOLS = ("casefold-instead-of-lower and unicode-normalization on U+0130 and sigma; utf16-code-units on "
         "text outside the BMP")

BUGS = {
    "utf8-bytes": "for i := 0; i+n <= len(b); i++ over []byte(s)",
    "lowercase-mapping-not-python": "strings.ToLower maps rune by rune (U+0130 -> i, no final sigma)",
    "whitespace-set-white-space": "strings.Fields splits on unicode.IsSpace (U+001C..U+001F are not space)",
}
UNCATALOGUED: list = []
ALLOWED: set = set()
PERVASIVE = False
WITNESSES = {
    "utf8-bytes": ("sentence", dict(hypothesis="\xe9a", references=["\xe8a"])),
    "lowercase-mapping-not-python": ("sentence", dict(hypothesis="\u0130stanbul", references=["istanbul"])),
    "whitespace-set-white-space": ("sentence", dict(hypothesis="ab\x1ccd", references=["abcd"])),
}
WHITE_SPACE = set("\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
                  "\u200a\u2028\u2029\u202f\u205f\u3000")


def _make(bugs=frozenset()):
    bugs = frozenset(bugs)

    def to_lower(s):
        if "lowercase-mapping-not-python" not in bugs:
            return s.lower()
        out = []
        for r in s:
            out.append("i" if r == "\u0130" else r.lower())
        return "".join(out)

    def fields(s):
        if "whitespace-set-white-space" in bugs:
            return "".join(r for r in s if r not in WHITE_SPACE)
        return "".join(s.split())

    def units(s):
        s = fields(to_lower(s))
        if "utf8-bytes" in bugs:
            return list(s.encode("utf-8", "surrogatepass"))
        return list(s)

    def ngrams(b, n):
        m = {}
        i = 0
        while i + n <= len(b):
            k = tuple(b[i:i + n])
            m[k] = m.get(k, 0) + 1
            i += 1
        return m

    def stats(hyp, ref):
        hb, rb = units(hyp), units(ref)
        rows = []
        for n in range(1, 7):
            hm, rm = ngrams(hb, n), ngrams(rb, n)
            rt = 0
            for v in rm.values():
                rt += v
            ht, mt = 0, 0
            for k, v in hm.items():
                ht += v
                if k in rm:
                    mt += min(v, rm[k])
            rows.append((ht if rt > 0 else 0, rt, mt))
        return rows

    def score(rows):
        p, r, k = 0.0, 0.0, 0
        for h, rt, m in rows:
            if h > 0 and rt > 0:
                p += m / h
                r += m / rt
                k += 1
        if k == 0:
            return 0.0
        p, r = p / k, r / k
        if p + r == 0:
            return 0.0
        return 100 * 5 * p * r / (4 * p + r)

    def best(hyp, refs):
        top, keep = -1.0, None
        for ref in refs:
            rows = stats(hyp, ref)
            s = score(rows)
            if s > top:
                top, keep = s, rows
        return keep, top

    def sentence(hypothesis, references):
        return best(hypothesis, references)[1]

    def corpus(hypotheses, references):
        total = [[0, 0, 0] for _ in range(6)]
        for i in range(len(hypotheses)):
            rows, _ = best(hypotheses[i], references[i])
            for n in range(6):
                for j in range(3):
                    total[n][j] += rows[n][j]
        return score(total)

    return sentence, corpus


sentence, corpus = _make(frozenset(BUGS))
