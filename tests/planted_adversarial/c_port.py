"""A chrF transliterated from C: the text is a NUL-free ``unsigned char`` buffer (its UTF-8
bytes), ``isspace`` and ``tolower`` of <ctype.h> in the "C" locale, counts in a hash table of
(offset, length) keys compared with memcmp.

Claims sacreBLEU's chrF with lowercasing (char order 6, beta 2, lowercase=True).  Bugs, all
C's defaults: whitespace is the six ASCII spaces of isspace() (U+00A0, U+3000, U+001C stay);
tolower() maps A-Z only; the n-grams are over the UTF-8 bytes.
"""

CLAIMS = dict(char_order=6, word_order=0, beta=2, lowercase=True, whitespace=False,
              definition="sacrebleu", scale=100)
FOOLS = ("whitespace-set-ascii-space on tabs; case-not-folded on ASCII; utf16-code-units on text outside the "
         "BMP")

BUGS = {
    "whitespace-set-ascii": "if (!isspace(buf[i])) out[k++] = buf[i]; in the C locale",
    "lowercase-mapping-not-python": "out[k] = tolower(buf[i]): A-Z only",
    "utf8-bytes": "the n-grams are byte ranges of the UTF-8 buffer",
}
UNCATALOGUED: list = []
ALLOWED: set = set()
PERVASIVE = False
WITNESSES = {
    "whitespace-set-ascii": ("sentence", dict(hypothesis="ab\u3000cd", references=["abcd"])),
    "lowercase-mapping-not-python": ("sentence", dict(hypothesis="\xc9t\xc9", references=["\xe9t\xe9"])),
    "utf8-bytes": ("sentence", dict(hypothesis="\xe9a", references=["\xe8a"])),
}
C_SPACE_SET = frozenset(bytes([b]) for b in b" \t\n\x0b\x0c\r")


def _make(bugs=frozenset()):
    bugs = frozenset(bugs)

    def buffer(text):
        # tolower() and isspace() of the C locale touch ASCII bytes only, which never occur
        # inside a multi-byte UTF-8 sequence: applied to the characters, they act as on bytes
        if "lowercase-mapping-not-python" not in bugs:  # (a build with ICU's u_strToLower)
            text = text.lower()
        n, out = len(text), []
        for i in range(n):
            c = text[i]
            if "lowercase-mapping-not-python" in bugs:
                c = chr(ord(c) + 32) if "A" <= c <= "Z" else c
            if c.isspace() if "whitespace-set-ascii" not in bugs else c.encode("utf-8", "surrogatepass") in C_SPACE_SET:
                continue
            out.append(c)
        text = "".join(out)
        return list(text.encode("utf-8", "surrogatepass")) if "utf8-bytes" in bugs else list(text)

    def table(buf, n):
        t = {}
        for i in range(0, len(buf) - n + 1):
            key = tuple(buf[i:i + n])  # memcmp of n units at offset i
            t[key] = t.get(key, 0) + 1
        return t

    def stats(hyp, ref):
        h, r = buffer(hyp), buffer(ref)
        rows = []
        for n in range(1, 7):
            th, tr = table(h, n), table(r, n)
            nr = sum(tr.values())
            m = 0
            for key, c in th.items():
                if key in tr:
                    m += c if c < tr[key] else tr[key]
            rows.append((sum(th.values()) if nr else 0, nr, m))
        return rows

    def fscore(rows):
        p = r = 0.0
        k = 0
        for nh, nr, m in rows:
            if nh and nr:
                p, r, k = p + m / nh, r + m / nr, k + 1
        if not k or p + r == 0:
            return 0.0
        p, r = p / k, r / k
        return 100.0 * 5.0 * p * r / (4.0 * p + r)

    def best(hyp, refs):
        keep, top = None, -1.0
        for ref in refs:
            rows = stats(hyp, ref)
            if fscore(rows) > top:
                keep, top = rows, fscore(rows)
        return keep, top

    def sentence(hypothesis, references):
        return best(hypothesis, references)[1]

    def corpus(hypotheses, references):
        acc = [[0, 0, 0] for _ in range(6)]
        for h, rs in zip(hypotheses, references):
            for a, row in zip(acc, best(h, rs)[0]):
                for j in range(3):
                    a[j] += row[j]
        return fscore(acc)

    return sentence, corpus


sentence, corpus = _make(frozenset(BUGS))
