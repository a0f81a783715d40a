"""A chrF transliterated from a Java implementation (class ChrF with camelCase methods, a
StringBuilder for the characters, HashMap counts keyed on String.substring of UTF-16 chars).

Claims sacreBLEU's chrF with lowercasing (char order 6, beta 2, lowercase=True).  Bugs, all
Java's defaults: whitespace is what Character.isWhitespace says (the no-break spaces U+00A0,
U+2007, U+202F and U+0085 stay, U+001C..U+001F go); lowercasing is
Character.toLowerCase(int) code point by code point (U+0130 gives "i", no final sigma); the
n-grams are over the UTF-16 chars of the String (a character outside the BMP is two).
"""

import unicodedata

CLAIMS = dict(char_order=6, word_order=0, beta=2, lowercase=True, whitespace=False,
              definition="sacrebleu", scale=100)
FOOLS = ("whitespace-set-white-space and whitespace-set-ascii on U+001C and U+00A0; casefold-instead-of-lower on "
         "U+0130; utf8-bytes on accented letters")

BUGS = {
    "whitespace-set-java": "if (!Character.isWhitespace(c)) sb.append(c)",
    "lowercase-mapping-not-python": "s.codePoints().map(Character::toLowerCase): U+0130 -> i, no final sigma",
    "utf16-code-units": "s.substring(i, i + n) over String.length(), the UTF-16 chars",
}
UNCATALOGUED: list = []
ALLOWED: set = set()
PERVASIVE = False
WITNESSES = {
    "whitespace-set-java": ("sentence", dict(hypothesis="ab\xa0cd", references=["abcd"])),
    "lowercase-mapping-not-python": ("sentence", dict(hypothesis="\u0130stanbul", references=["istanbul"])),
    "utf16-code-units": ("sentence", dict(hypothesis="a\U0001F600b", references=["a\U0001F600c"])),
}


def _is_whitespace(c):  # java.lang.Character.isWhitespace(int)
    if c in "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f":
        return True
    return unicodedata.category(c) in ("Zs", "Zl", "Zp") and c not in "\xa0\u2007\u202f"


class ChrF:
    def __init__(self, bugs):
        self.bugs = bugs
        self.nOrder = 6
        self.betaSq = 4.0

    def prepare(self, s):
        if "lowercase-mapping-not-python" in self.bugs:
            s = "".join("i" if c == "\u0130" else c.lower() for c in s)  # Character.toLowerCase(int)
        else:
            s = s.lower()
        sb = []
        for c in s:
            keep = not _is_whitespace(c) if "whitespace-set-java" in self.bugs else not c.isspace()
            if keep:
                sb.append(c)
        out = "".join(sb)
        if "utf16-code-units" in self.bugs:
            raw = out.encode("utf-16-le", "surrogatepass")
            return [raw[i:i + 2] for i in range(0, len(raw), 2)]
        return list(out)

    def countNgrams(self, chars, n):
        counts = {}
        for i in range(len(chars) - n + 1):
            key = tuple(chars[i:i + n])
            counts[key] = counts.get(key, 0) + 1
        return counts

    def statistics(self, hyp, ref):
        h, r = self.prepare(hyp), self.prepare(ref)
        stats = []
        for n in range(1, self.nOrder + 1):
            hc, rc = self.countNgrams(h, n), self.countNgrams(r, n)
            refTotal = sum(rc.values())
            match = sum(min(v, rc.get(k, 0)) for k, v in hc.items())
            stats.append([sum(hc.values()) if refTotal > 0 else 0, refTotal, match])
        return stats

    def fScore(self, stats):
        p = r = 0.0
        k = 0
        for hypTotal, refTotal, match in stats:
            if hypTotal > 0 and refTotal > 0:
                p += match / hypTotal
                r += match / refTotal
                k += 1
        if k == 0:
            return 0.0
        p, r = p / k, r / k
        return 0.0 if p + r == 0 else 100.0 * (1 + self.betaSq) * p * r / (self.betaSq * p + r)

    def bestStatistics(self, hyp, refs):
        best, bestScore = None, -1.0
        for ref in refs:
            stats = self.statistics(hyp, ref)
            score = self.fScore(stats)
            if score > bestScore:
                best, bestScore = stats, score
        return best, bestScore


def _make(bugs=frozenset()):
    chrf = ChrF(frozenset(bugs))

    def sentence(hypothesis, references):
        return chrf.bestStatistics(hypothesis, references)[1]

    def corpus(hypotheses, references):
        total = [[0, 0, 0] for _ in range(chrf.nOrder)]
        for hyp, refs in zip(hypotheses, references):
            stats, _ = chrf.bestStatistics(hyp, refs)
            for row, add in zip(total, stats):
                for j in range(3):
                    row[j] += add[j]
        return chrf.fScore(total)

    return sentence, corpus


sentence, corpus = _make(frozenset(BUGS))
