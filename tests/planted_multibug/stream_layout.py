"""A wrapper that feeds segment-major references to a loop written for sacreBLEU's streams.

Claims sacreBLEU's chrF (char order 6, beta 2) and accepts ``whitespace``.  Bugs: the corpus
loop reads the references as ``zip(*references)`` (sacreBLEU's stream layout), whitespace
removal spares U+001C..U+001F, and the ``whitespace`` argument is ignored (always removed).
"""

CLAIMS = dict(char_order=6, word_order=0, beta=2, lowercase=False, whitespace=False,
              definition="sacrebleu", scale=100)
ACCEPTS = ("whitespace",)

BUGS = {
    "reference-streams-transposed": "corpus pairs hypothesis i with zip(*references)[i], the i-th reference "
                                    "of every segment (sacreBLEU's stream layout); extra hypotheses are dropped",
    "whitespace-set-white-space": "the whitespace table is Unicode White_Space, without U+001C..U+001F",
    "parameter-ignored-whitespace": "whitespace=True is accepted but whitespace is removed anyway",
}
UNCATALOGUED: list = []
ALLOWED = {"first-reference-only"}  # one segment, several references: zip(*) keeps the first
PERVASIVE = False
WITNESSES = {
    "reference-streams-transposed": ("corpus", dict(hypotheses=["ab", "cd"], references=[["ab"], ["ce"]])),
    "whitespace-set-white-space": ("sentence", dict(hypothesis="a\x1fb", references=["ab"])),
    "parameter-ignored-whitespace": ("sentence", dict(hypothesis="a b", references=["ab"], whitespace=True)),
}

_ISSPACE = frozenset(chr(c) for c in range(0x110000) if chr(c).isspace())
_WHITE_SPACE = _ISSPACE - frozenset("\x1c\x1d\x1e\x1f")


def _make(bugs=frozenset()):
    bugs = frozenset(bugs)
    table = _WHITE_SPACE if "whitespace-set-white-space" in bugs else _ISSPACE

    def chars(text, whitespace):
        if whitespace and "parameter-ignored-whitespace" not in bugs:
            return text
        return "".join(ch for ch in text if ch not in table)

    def counts(hyp, ref, whitespace):
        h, r = chars(hyp, whitespace), chars(ref, whitespace)
        rows = []
        for n in range(1, 7):
            hyp_grams = [h[i:i + n] for i in range(len(h) - n + 1)]
            pool = {}
            for g in (r[i:i + n] for i in range(len(r) - n + 1)):
                pool[g] = pool.get(g, 0) + 1
            ref_total = sum(pool.values())
            match = 0
            for g in hyp_grams:
                if pool.get(g, 0) > 0:
                    pool[g] -= 1
                    match += 1
            rows.append((len(hyp_grams) if ref_total else 0, ref_total, match))
        return rows

    def chrf(rows):
        used = [(h, r, m) for h, r, m in rows if h and r]
        if not used:
            return 0.0
        p = sum(m / h for h, _, m in used) / len(used)
        rc = sum(m / r for _, r, m in used) / len(used)
        return 0.0 if p + rc == 0 else 500.0 * p * rc / (4 * p + rc)

    def best(hyp, refs, whitespace):
        top_rows, top = None, -1.0
        for ref in refs:
            rows = counts(hyp, ref, whitespace)
            if chrf(rows) > top:
                top_rows, top = rows, chrf(rows)
        return top_rows

    def sentence(hypothesis, references, whitespace=False):
        return chrf(best(hypothesis, references, whitespace))

    def corpus(hypotheses, references, whitespace=False):
        per_segment = zip(*references) if "reference-streams-transposed" in bugs else references
        total = [[0, 0, 0] for _ in range(6)]
        for hyp, refs in zip(hypotheses, per_segment):
            for acc, row in zip(total, best(hyp, refs, whitespace)):
                acc[0] += row[0]
                acc[1] += row[1]
                acc[2] += row[2]
        return chrf(total)

    return sentence, corpus


sentence, corpus = _make(frozenset(BUGS) | frozenset(UNCATALOGUED))
