"""A scoring script for web-crawled MT output that "cleans" its input first.

Claims sacreBLEU's chrF (char order 6, beta 2).  Bugs, none of them a catalogued family:
HTML entities are unescaped, markup tags are deleted, and a hyphen followed by a line break is
removed (the word joined) -- on the hypothesis and the references alike -- before counting.
"""

import html
import re

CLAIMS = dict(char_order=6, word_order=0, beta=2, lowercase=False, whitespace=False,
              definition="sacrebleu", scale=100)
FOOLS = "a fit that reads as complete: the generic strategies never produce an entity, a tag or a hyphen + line break"

_ENT = "HTML entities are unescaped (html.unescape) before counting"
_TAG = "markup tags (<...>) are deleted before counting"
_HYPH = "a hyphen followed by a line break is removed, joining the word, before counting"
BUGS: dict = {}
UNCATALOGUED = [_ENT, _TAG, _HYPH]
ALLOWED: set = set()
PERVASIVE = False
WITNESSES = {
    _ENT: ("sentence", dict(hypothesis="Tom &amp; Jerry", references=["Tom & Jerry"])),
    _TAG: ("sentence", dict(hypothesis="a <b>bold</b> move", references=["a bold move"])),
    _HYPH: ("sentence", dict(hypothesis="inter-\nnational", references=["international"])),
}
TAG = re.compile(r"<[^<>]*>")


def clean(text, bugs):
    if _ENT in bugs:
        text = html.unescape(text)
    if _TAG in bugs:
        text = TAG.sub("", text)
    if _HYPH in bugs:
        text = text.replace("-\r\n", "").replace("-\n", "")
    return "".join(text.split())


def grams(s, n):
    d = {}
    for i in range(len(s) - n + 1):
        d[s[i:i + n]] = d.get(s[i:i + n], 0) + 1
    return d


def stats(hyp, ref, bugs):
    h, r = clean(hyp, bugs), clean(ref, bugs)
    res = []
    for n in range(1, 7):
        gh, gr = grams(h, n), grams(r, n)
        tr = sum(gr.values())
        res.append((sum(gh.values()) if tr else 0, tr, sum(min(c, gr.get(g, 0)) for g, c in gh.items())))
    return res


def chrf(res):
    eff = [(h, r, m) for h, r, m in res if h and r]
    if not eff:
        return 0.0
    p = sum(m / h for h, r, m in eff) / len(eff)
    rc = sum(m / r for h, r, m in eff) / len(eff)
    return 0.0 if p + rc == 0 else 100 * 5 * p * rc / (4 * p + rc)


def _make(bugs=frozenset()):
    bugs = frozenset(bugs)

    def best(hyp, refs):
        all_stats = [stats(hyp, r, bugs) for r in refs]
        scores = [chrf(s) for s in all_stats]
        return all_stats[scores.index(max(scores))], max(scores)

    def sentence(hypothesis, references):
        return best(hypothesis, references)[1]

    def corpus(hypotheses, references):
        tot = [[0, 0, 0] for _ in range(6)]
        for h, rs in zip(hypotheses, references):
            for t, row in zip(tot, best(h, rs)[0]):
                for i in range(3):
                    t[i] += row[i]
        return chrf(tot)

    return sentence, corpus


sentence, corpus = _make(frozenset(UNCATALOGUED))
