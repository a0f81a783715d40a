"""A chrF wrapped by an MT evaluation script that cleans the system output: the special tokens
a decoder emits (<unk>, </s>, <pad>) are deleted from the *hypotheses* only, and HTML entities
are unescaped in them, before scoring.

Claims sacreBLEU's chrF (char order 6, beta 2).  Bugs (no family describes either): special
tokens deleted from hypotheses; &amp; &lt; &gt; &quot; unescaped in hypotheses.  Also the
corpus score is computed from the first segment only.
"""

import html
import re

CLAIMS = dict(char_order=6, word_order=0, beta=2, lowercase=False, whitespace=False,
              definition="sacrebleu", scale=100)
FOOLS = ("a class counted as tried while its characteristic input (a special token in the hypothesis) "
         "was never sent; 'it needs the mark <' where the token, not the mark, matters")

_TOKENS = "the special tokens <unk>, <s>, </s>, <pad> are deleted from the hypothesis"
_ENTITIES = "HTML entities are unescaped in the hypothesis"
BUGS = {"corpus-single-segment": "corpus() scores hypotheses[0] against references[0] only"}
UNCATALOGUED = [_TOKENS, _ENTITIES]
ALLOWED: set = set()
PERVASIVE = False
WITNESSES = {
    _TOKENS: ("sentence", dict(hypothesis="the <unk> cat", references=["the <unk> cat"])),
    _ENTITIES: ("sentence", dict(hypothesis="fish &amp; chips", references=["fish &amp; chips"])),
    "corpus-single-segment": ("corpus", dict(hypotheses=["abc", "xyz"], references=[["abc"], ["abc"]])),
}
_SPECIAL = re.compile(r"<unk>|</?s>|<pad>")


def _make(bugs=frozenset()):
    bugs = frozenset(bugs)

    def clean(hyp):
        if _TOKENS in bugs:
            hyp = _SPECIAL.sub("", hyp)
        if _ENTITIES in bugs:
            hyp = re.sub(r"&(amp|lt|gt|quot);", lambda m: html.unescape(m.group(0)), hyp)
        return hyp

    def rows(hyp, ref):
        h, out = clean(hyp), []
        for n in range(1, 7):
            ca, hb = _occurrences(h, n), _occurrences(ref, n)
            rt = sum(hb.values())
            out.append((sum(ca.values()) if rt else 0, rt, sum(min(c, hb.get(g, 0)) for g, c in ca.items())))
        return out

    def f(table):
        live = [x for x in table if x[0] and x[1]]
        if not live:
            return 0.0
        p = sum(m / h for h, _, m in live) / len(live)
        r = sum(m / t for _, t, m in live) / len(live)
        return 0.0 if p + r == 0 else 500 * p * r / (4 * p + r)

    def best(hyp, refs):
        return max(((f(rows(hyp, r)), -k, rows(hyp, r)) for k, r in enumerate(refs)))

    def sentence(hypothesis, references):
        return best(hypothesis, references)[0]

    def corpus(hypotheses, references):
        pairs = list(zip(hypotheses, references))
        if "corpus-single-segment" in bugs:
            pairs = pairs[:1]
        table = [best(h, rs)[2] for h, rs in pairs]
        return f([tuple(sum(t[n][j] for t in table) for j in range(3)) for n in range(6)])

    return sentence, corpus


def _occurrences(text, n):
    t = "".join(text.split())
    out = {}
    for i in range(len(t) - n + 1):
        out[t[i:i + n]] = out.get(t[i:i + n], 0) + 1
    return out


sentence, corpus = _make(frozenset(BUGS) | frozenset(UNCATALOGUED))
