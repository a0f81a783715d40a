"""Trigger generators of the families seen in real code (issue 30): each draws the inputs on
which its family differs from the definition *and* from its declared rivals (a lowercase
mapping other than Python's needs U+0130 and a word-final capital sigma; orders capped by
the reference's length need hypotheses shorter than their reference; a truncation needs
texts longer than where it cuts, changed after that point; ...).  Same conventions as
``triggers``: ``(params, level, nrefs, rng) -> list of segment lists``."""

from __future__ import annotations

import functools

from .textgen import edit_words, mutate, one, pair, sentence, text

#: Capitals whose lowercase differs between mappings: U+0130 (two code points for
#: str.lower()), sigma (final form at the end of a word), non-ASCII and ASCII capitals.
_GREEK = ["\u039f\u0394\u039f\u03a3", "\u039b\u039f\u0393\u039f\u03a3", "\u039a\u0391\u039b\u039f\u03a3"]
_CAPITALS = ["\u0130stanbul", "\u0130zmir", "\xc9t\xe9", "\u0416\u0443\u043a", "ABC", "Der", "\xc5sa"]


def case_mappings(params, level, nrefs, rng):
    """Words with U+0130, a word-final capital sigma, non-ASCII and ASCII capitals, in the
    hypothesis or the reference or both, beside lowercase letters."""
    out = []
    for i in range(32):
        hyp, ref = pair(rng, params)
        word = rng.choice(_GREEK if i % 2 else _CAPITALS)
        lower = word.lower()
        where = i % 3
        h = f"{hyp} {word}" if where != 1 else f"{hyp} {lower}"
        r = f"{ref} {word}" if where == 1 else f"{ref} {lower}" if where == 0 else f"{word} {ref}"
        out.append(one(h, r))
    return out


def short_hypotheses(params, level, nrefs, rng):
    """Hypotheses shorter than the order and than their reference, whose reference is
    shorter than the order, as long, or longer."""
    out = []
    n = params.char_order
    for i in range(30):
        h = text(rng, [rng.randint(1, max(1, n - 1))])
        extra = rng.randint(1, max(1, n - len(h) - 1)) if i % 3 == 0 else rng.randint(n - len(h), n + 4) \
            if n > len(h) else rng.randint(1, 4)
        r = mutate(rng, h, rate=0.2) + text(rng, [extra])
        out.append(one(h, r))
    return out


def char_word(params, level, nrefs, rng):
    """Sentences of plain words and an edited copy: the character and word statistics of
    chrF++ give different F scores."""
    out = []
    for _ in range(24):
        ref = sentence(rng, rng.randint(3, 9))
        out.append(one(edit_words(rng, ref, rate=rng.choice([0.2, 0.4])), ref))
    return out


def long(params, level, nrefs, rng):
    """Texts of 60 to 1,400 characters changed after the first 64, 100, 128, ... characters
    too (where a truncation cuts), beside short ones."""
    out = []
    for i in range(36):
        ref = sentence(rng, rng.randint(12, 40) if i % 3 == 0 else rng.randint(40, 150) if i % 3 == 1
                       else rng.randint(150, 300))
        hyp = edit_words(rng, ref, rate=0.2)
        if i % 5 == 4:
            hyp, ref = ref, hyp
        out.append(one(hyp, ref))
    return out


def many_references(params, level, nrefs, rng):
    """Three to five references, the closest one at any position (second, third, last)."""
    out = []
    for i in range(36):
        k = 3 + i % 3
        hyp, good = pair(rng, params)
        refs = [mutate(rng, hyp, rate=rng.choice([0.6, 0.9])) for _ in range(k - 1)]
        refs.insert(k - 1 if i % 2 else (i // 3) % k, mutate(rng, hyp, rate=0.1))
        out.append([(hyp, refs)])
    return out


def segment_lengths(params, level, nrefs, rng):
    """Corpora of two to five segments of very different lengths and scores."""
    out = []
    for _ in range(24):
        segs = []
        for _ in range(rng.randint(2, 5)):
            n = rng.choice([params.char_order + 1, 2 * params.char_order + 3, 5 * params.char_order + 7])
            h, r = pair(rng, params, n)
            segs.append((h, [mutate(rng, r, rate=rng.choice([0.05, 0.3, 0.6]))]))
        out.append(segs)
    return out


def rounding(params, level, nrefs, rng):
    """Plain inputs, then inputs whose exact score is a tie at some decimal (x.5, x.25, 62.5,
    ...: halves on the implementation's scale; rounding half to even, half up and toward zero
    part there), the smallest first."""
    return [one(*pair(rng, params)) for _ in range(16)] + _ties(params)


@functools.lru_cache(maxsize=64)
def _ties(params) -> list:
    """Inputs over "ab" of up to 5 characters a side whose score under ``params`` is a tie at
    some decimal from 0 to 6 on the 0..100 scale or at some decimal from 2 to 8 on 0..1, one
    per (decimal, scale)."""
    from itertools import product

    from reference_impl import sentence_score

    texts = ["".join(t) for n in range(1, 6) for t in product("ab", repeat=n)]
    seen, out = set(), []
    for h, r in product(texts, texts):
        value = sentence_score(h, [r], **params.kwargs()).score
        for k in range(0, 9):
            for scale in (100, 1):
                key = (k, scale)
                if key not in seen and (value * scale / 100 * 10 ** k).denominator == 2 and 0 < value < 100:
                    seen.add(key)
                    if one(h, r) not in out:
                        out.append(one(h, r))
    return out


GENERATORS = {
    "case-mappings": case_mappings, "short-hypotheses": short_hypotheses, "char-word": char_word, "long": long,
    "many-references": many_references, "segment-lengths": segment_lengths, "rounding": rounding,
}
