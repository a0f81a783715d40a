"""A line-by-line transliteration of a Java chrF++ (char arrays, int counters, explicit loops).

Claims sacreBLEU's chrF++ (char order 6, word order 2, beta 2).  Bugs, all from the Java
original: characters are Java ``char``s, i.e. UTF-16 code units; word tokens are the
whitespace-separated words with their punctuation attached; the score is the mean of a
character F and a word F; and an order without n-grams scores 1 (precision 1 when the
hypothesis has none, recall 1 when the reference has none), every requested order counting.
"""

CLAIMS = dict(char_order=6, word_order=2, beta=2, lowercase=False, whitespace=False,
              definition="sacrebleu", scale=100)
FOOLS = ("utf8-bytes on an accented pair: its word tokens, (charF + wordF) / 2 and 'an empty order "
         "scores 1' give the score without any byte handling")

BUGS = {
    "utf16-code-units": "text.toCharArray(): n-grams over UTF-16 code units",
    "word-punctuation-not-split": "words are text.split(\"\\\\s+\") with their punctuation attached",
    "char-word-f-averaged": "score = (charF + wordF) / 2",
    "empty-order-scores-one": "precision = hypCount == 0 ? 1 : match / hypCount (recall likewise), over every order",
}
UNCATALOGUED: list = []
ALLOWED: set = set()
PERVASIVE = True
WITNESSES = {
    "utf16-code-units": ("sentence", dict(hypothesis="ab \U0001f600x", references=["ab \U0001f601x"])),
    "word-punctuation-not-split": ("sentence", dict(hypothesis="abcdefg hi.", references=["abcdefg hi ."])),
    "char-word-f-averaged": ("sentence", dict(hypothesis="abcdefgh xy", references=["abcdefgh zw"])),
    "empty-order-scores-one": ("sentence", dict(hypothesis="abc x", references=["abc y"])),
}
PUNCT = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"
NC, NW = 6, 2
BETA2 = 4.0


def _make(bugs=frozenset()):
    bugs = frozenset(bugs)

    def chars(s):
        s = "".join(s.split())
        if "utf16-code-units" in bugs:
            raw = s.encode("utf-16-le", "surrogatepass")
            return [raw[i] | raw[i + 1] << 8 for i in range(0, len(raw), 2)]
        return list(s)

    def words(s):
        out = []
        for w in s.split():
            if "word-punctuation-not-split" in bugs or len(w) == 1:
                out.append(w)
            elif w[-1] in PUNCT:
                out.append(w[:-1])
                out.append(w[-1])
            elif w[0] in PUNCT:
                out.append(w[0])
                out.append(w[1:])
            else:
                out.append(w)
        return out

    def count(seq, n):
        table = {}
        i = 0
        while i + n <= len(seq):
            key = tuple(seq[i:i + n])
            table[key] = table.get(key, 0) + 1
            i += 1
        return table

    def stats(hyp, ref):
        out = []  # rows: [hyp count (0 where the reference has none), ref count, matches, hyp count]
        for seq_h, seq_r, top in ((chars(hyp), chars(ref), NC), (words(hyp), words(ref), NW)):
            for n in range(1, top + 1):
                th, tr = count(seq_h, n), count(seq_r, n)
                m = 0
                for k in th:
                    if k in tr:
                        m += min(th[k], tr[k])
                hc, rc = sum(th.values()), sum(tr.values())
                out.append([hc if rc else 0, rc, m, hc])
        return out

    def f(p, r):
        return 0.0 if p + r == 0 else (1 + BETA2) * p * r / (BETA2 * p + r)

    def part(rows):
        one = "empty-order-scores-one" in bugs
        ps, rs = [], []
        for h, r, m, own in rows:
            if one:
                ps.append(1.0 if own == 0 else m / own)
                rs.append(1.0 if r == 0 else m / r)
            elif h and r:
                ps.append(m / h)
                rs.append(m / r)
        if not ps:
            return None
        return sum(ps) / len(ps), sum(rs) / len(rs)

    def score(rows):
        if "char-word-f-averaged" in bugs:
            sides = [part(rows[:NC]), part(rows[NC:])]
            return 50.0 * sum(f(*pr) if pr else 0.0 for pr in sides)
        pr = part(rows)
        return 0.0 if pr is None else 100.0 * f(*pr)

    def best(hyp, refs):
        top, keep = -1.0, None
        for ref in refs:
            rows = stats(hyp, ref)
            value = score(rows)
            if value > top:
                top, keep = value, rows
        return keep, top

    def sentence(hypothesis, references):
        return best(hypothesis, references)[1]

    def corpus(hypotheses, references):
        total = [[0, 0, 0, 0] for _ in range(NC + NW)]
        for i in range(len(hypotheses)):
            rows = best(hypotheses[i], references[i])[0]
            for j in range(NC + NW):
                for k in range(4):
                    total[j][k] += rows[j][k]
        return score(total)

    return sentence, corpus


sentence, corpus = _make(frozenset(BUGS))
