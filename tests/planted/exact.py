"""Correct chrF and chrF++ (sacrebleu definition) in exact arithmetic: integer counts and
``fractions.Fraction`` throughout, written independently of ``reference_impl`` and
``base.py``.  Returns the exact score rounded once to a float.  Must produce no finding.

``sentence`` / ``corpus``: chrF (char_order 6, word_order 0, beta 2); ``sentence_pp`` /
``corpus_pp``: chrF++ (word_order 2).  Rows ``correct_exact`` and ``correct_exact_chrfpp``
of ``catalogue.py`` (which holds their claims).
"""

from collections import Counter
from fractions import Fraction

_PUNCT = set("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")


def _ngrams(seq, n):
    return Counter(tuple(seq[i : i + n]) for i in range(len(seq) - n + 1))


def _tokens(text):
    toks = []
    for w in text.split():
        if len(w) > 1 and w[-1] in _PUNCT:
            toks += [w[:-1], w[-1]]
        elif len(w) > 1 and w[0] in _PUNCT:
            toks += [w[0], w[1:]]
        else:
            toks.append(w)
    return toks


def _counts(text, nc, nw):
    chars = list("".join(text.split()))
    words = _tokens(text)
    return [_ngrams(chars, n) for n in range(1, nc + 1)] + [_ngrams(words, n) for n in range(1, nw + 1)]


def _stats(hc, rc):
    """Per order [H, R, M]; H (and M) are 0 where the reference has no n-gram of the order."""
    out = []
    for h, r in zip(hc, rc):
        R = sum(r.values())
        H = sum(h.values()) if R else 0
        M = sum(min(c, r[g]) for g, c in h.items() if g in r) if R else 0
        out.append([H, R, M])
    return out


def _fscore(stats, beta=Fraction(2)):
    eff = [(H, R, M) for H, R, M in stats if H and R]
    if not eff:
        return Fraction(0)
    P = sum(Fraction(M, H) for H, R, M in eff) / len(eff)
    Rc = sum(Fraction(M, R) for H, R, M in eff) / len(eff)
    if P + Rc == 0:
        return Fraction(0)
    b2 = beta * beta
    return 100 * (1 + b2) * P * Rc / (b2 * P + Rc)


def _segment(hyp, refs, nc, nw):
    hc = _counts(hyp, nc, nw)
    best, best_f = None, None
    for ref in refs:
        s = _stats(hc, _counts(ref, nc, nw))
        f = _fscore(s)
        if best is None or f > best_f:
            best, best_f = s, f
    return best, best_f


def _sentence(hypothesis, references, nw):
    return float(_segment(hypothesis, references, 6, nw)[1])


def _corpus(hypotheses, references, nw):
    total = None
    for h, refs in zip(hypotheses, references):
        s, _ = _segment(h, refs, 6, nw)
        total = s if total is None else [[a + b for a, b in zip(x, y)] for x, y in zip(total, s)]
    return float(_fscore(total))


def sentence(hypothesis: str, references: list[str]) -> float:
    return _sentence(hypothesis, references, 0)


def corpus(hypotheses: list[str], references: list[list[str]]) -> float:
    return _corpus(hypotheses, references, 0)


def sentence_pp(hypothesis: str, references: list[str]) -> float:
    return _sentence(hypothesis, references, 2)


def corpus_pp(hypotheses: list[str], references: list[list[str]]) -> float:
    return _corpus(hypotheses, references, 2)
