"""An old research script, module globals and all, that normalises whitespace first.

Claims chrF with whitespace kept as characters (char order 6, beta 2, whitespace=True).
Bugs: the text is normalised with ``" ".join(text.split())`` -- runs of whitespace collapsed
to one space, the ends stripped -- although whitespace is claimed to be kept as it is, and
matches are not clipped.
"""

CLAIMS = dict(char_order=6, word_order=0, beta=2, lowercase=False, whitespace=True,
              definition="sacrebleu", scale=100)
FOOLS = ("whitespace-removed and the other whitespace families: a text with single inner spaces and no "
         "whitespace at its ends scores as claimed")

BUGS = {
    "whitespace-collapsed": "normalise() collapses whitespace runs and strips the ends",
    "no-clipping": "matches count every hypothesis n-gram found in the reference",
}
UNCATALOGUED: list = []
ALLOWED: set = set()
PERVASIVE = False
WITNESSES = {
    "whitespace-collapsed": ("sentence", dict(hypothesis="ab  cd", references=["ab cd"])),
    "no-clipping": ("sentence", dict(hypothesis="aaaa", references=["aa"])),
}

NGRAM = 6
BETA = 2.0
BUG_SWITCHES = set()


def normalise(line):
    if "whitespace-collapsed" in BUG_SWITCHES:
        return " ".join(line.split())
    return line


def extract(line, n):
    grams = {}
    for i in range(0, len(line) - n + 1):
        g = line[i:i + n]
        if g in grams:
            grams[g] = grams[g] + 1
        else:
            grams[g] = 1
    return grams


def compare(hyp, ref):
    hyp, ref = normalise(hyp), normalise(ref)
    res = []
    for n in range(1, NGRAM + 1):
        h, r = extract(hyp, n), extract(ref, n)
        tot_r = sum(r.values())
        tot_h = sum(h.values()) if tot_r > 0 else 0
        hits = 0
        for g in h:
            if g in r:
                hits = hits + (h[g] if "no-clipping" in BUG_SWITCHES else min(h[g], r[g]))
        res.append((tot_h, tot_r, hits))
    return res


def fscore(res):
    prec, rec, k = 0.0, 0.0, 0
    for th, tr, hits in res:
        if th > 0 and tr > 0:
            prec, rec, k = prec + hits / th, rec + hits / tr, k + 1
    if k == 0:
        return 0.0
    prec, rec = prec / k, rec / k
    if prec + rec == 0:
        return 0.0
    return 100 * (1 + BETA ** 2) * prec * rec / (BETA ** 2 * prec + rec)


def sentence_level(hypothesis, references):
    return max(fscore(compare(hypothesis, r)) for r in references)


def document_level(hypotheses, references):
    totals = [[0, 0, 0] for _ in range(NGRAM)]
    for hyp, refs in zip(hypotheses, references):
        scored = [(fscore(compare(hyp, r)), compare(hyp, r)) for r in refs]
        best = max(s for s, _ in scored)
        res = [x for s, x in scored if s == best][0]
        for t, row in zip(totals, res):
            for i in range(3):
                t[i] += row[i]
    return fscore(totals)


def _make(bugs=frozenset()):
    def sentence(hypothesis, references):
        BUG_SWITCHES.clear()
        BUG_SWITCHES.update(bugs)
        return sentence_level(hypothesis, references)

    def corpus(hypotheses, references):
        BUG_SWITCHES.clear()
        BUG_SWITCHES.update(bugs)
        return document_level(hypotheses, references)

    return sentence, corpus


sentence, corpus = _make(frozenset(BUGS))
