"""Held-out trigger inputs: for each family, inputs drawn to exercise what it changes.

An explanation is accepted only when it predicts the implementation on such inputs
(``audit.diagnose.classify``).  The inputs keep everything else neutral where they can: plain
lowercase letters, hypothesis and reference of equal length (so that every order has as
many hypothesis as reference n-grams and P = R per order: the averaging, beta and swap
families cannot show), at least ``char_order + 2`` characters (every order effective: the
divisor families cannot show), one reference and one segment -- except where the family is
about exactly that.  A family's characters go into both sides, at different places.

Each generator is ``(params, level, nrefs, rng) -> list of segment lists`` and is drawn from a
``random.Random`` seeded by the family id, so the inputs are the same on every run.
"""

from __future__ import annotations

import functools
import random
import zlib

from .textgen import ISSPACE as _ISSPACE
from .textgen import LETTERS as _LETTERS
from .textgen import insert as _insert
from .textgen import mutate as _mutate
from .textgen import one as _one
from .textgen import pair as _pair
from .textgen import text as _text
from .textgen import word_lengths as _word_lengths

_WS_MARKERS = ["\x1c", "\x1d", "\x1e", "\x1f", "\t", "\n", "\xa0", "\u2003", "\u3000", "\x85", " "]
_FORMAT = ["\ufeff", "\u200c", "\u200d", "\u200e", "\u200f"]


def plain(params, level, nrefs, rng):
    return [_one(*_pair(rng, params)) for _ in range(24)]


def short(params, level, nrefs, rng):
    """Texts shorter than the order (identical, mutated, or a hypothesis shorter than its
    reference): orders without n-grams, on one side or both."""
    out = []
    for i in range(30):
        n = rng.randint(1, max(1, params.char_order - 1))
        t = _text(rng, [n])
        if i % 3 == 2:
            out.append(_one(t, t + _text(rng, [rng.randint(1, params.char_order + 1)])))
        else:
            out.append(_one(t, t) if i % 3 == 0 else _one(t, _mutate(rng, t)))
    return out


def unequal_pr(params, level, nrefs, rng):
    out = []
    for _ in range(24):
        ref = _text(rng, _word_lengths(rng, params, rng.randint(params.char_order + 4, params.char_order + 9)))
        cut = rng.randint(params.char_order + 1, len(ref) - 1)
        hyp = ref[:cut].strip() if rng.random() < 0.5 else ref + _text(rng, [rng.randint(1, 4)])
        out.append(_one(_mutate(rng, hyp, rate=0.15), ref))
    return out


def empty(params, level, nrefs, rng):
    """Inputs without any n-gram, then short ones where only some orders have none (an
    empty order scoring 1 gives them high scores too, an empty input scoring 100 does not)."""
    blanks = [""] if params.whitespace else ["", " ", "\t", "\n", "\u3000", "  "]
    out = []
    for _ in range(24):
        k = rng.randint(1, 3) if level == "corpus" else 1
        out.append([(rng.choice(blanks), [rng.choice(blanks) for _ in range(nrefs)]) for _ in range(k)])
    for _ in range(8):
        t = _text(rng, [rng.randint(1, max(1, params.char_order - 1))])
        out.append(_one(t, _mutate(rng, t, rate=0.5)))
    return out


def repeats(params, level, nrefs, rng):
    return [_one(*(_text(rng, [n], "ab"), _text(rng, [n], "ab")))
            for n in (rng.randint(params.char_order + 2, params.char_order + 8) for _ in range(24))]


def short_references(params, level, nrefs, rng):
    out = []
    for _ in range(24):
        segs = [_pair(rng, params)]
        for _ in range(rng.randint(1, 2)):
            r = _text(rng, [rng.randint(1, max(1, params.char_order - 1))])
            segs.append((_text(rng, [rng.randint(len(r) + 1, params.char_order + 3)]), r))
        rng.shuffle(segs)
        out.append([(h, [r]) for h, r in segs])
    return out


def _both(rng, params, pool, k=(1, 3), ends=False):
    hyp, ref = _pair(rng, params)
    chars = [rng.choice(pool) for _ in range(rng.randint(*k))]
    return _one(_insert(rng, hyp, chars, ends), _insert(rng, ref, chars, ends))


def whitespace(params, level, nrefs, rng):
    """Whitespace characters in both texts: single ones (at the ends too), runs of two or
    three, and an ASCII space beside another kind (collapsing, stripping and the sets
    differ there)."""
    pool = _WS_MARKERS + _ISSPACE
    out = []
    for i in range(30):
        if i % 3 == 0:
            out.append(_both(rng, params, pool, ends=True))
            continue
        hyp, ref = _pair(rng, params)
        ch = rng.choice(pool)
        chars = [ch * rng.randint(2, 3)] if i % 3 == 1 else [" ", ch]
        out.append(_one(_insert(rng, hyp, chars, ends=True), _insert(rng, ref, chars, ends=i % 2 == 0)))
    for ch in ("\x85", "\ufeff", "\xa0", "\u202f", "\x1c", "\x85"):  # where the runtimes' sets part
        out.append(_both(rng, params, [ch], k=(1, 2)))
    return out


def format_chars(params, level, nrefs, rng):
    """Format characters in both texts; then U+FEFF beside U+0085 or U+001C, which
    JavaScript's whitespace set (it removes U+FEFF) keeps."""
    return [_both(rng, params, _FORMAT) for _ in range(24)] + \
        [_both(rng, params, ["\ufeff", rng.choice(["\x85", "\x1c", "\x1f"])], k=(2, 3)) for _ in range(8)]


def case(params, level, nrefs, rng):
    out = []
    for _ in range(24):
        hyp, ref = _pair(rng, params)
        up = lambda t: "".join(c.upper() if rng.random() < 0.4 else c for c in t)  # noqa: E731
        out.append(_one(up(hyp), ref if rng.random() < 0.5 else up(ref)))
    return out


def casefold(params, level, nrefs, rng):
    return [_both(rng, params, ["\xdf", "\ufb01", "\u0130", "\u1e9e"]) for _ in range(24)]


def _alone(rng, params, alphabet, specials):
    """A text of the alphabet, and one where a special character stands alone between spaces."""
    hyp, ref = _pair(rng, params, alphabet=alphabet)
    ch = rng.choice(specials)
    return _one(hyp + " " + ch, ref + " " + ch) if rng.random() < 0.5 else _one(ch + " " + hyp, ref)


def non_ascii(params, level, nrefs, rng):
    """Two-, three- and four-byte characters inside words and alone (bytes, code units and
    normalization split them differently)."""
    specials = "\xe9\xfc\u0436\u20ac\u4e2d\U0001F600"
    return [_one(*_pair(rng, params, alphabet="ab\xe9\xe8\xfc\u0436")) for _ in range(16)] + \
        [_one(*_pair(rng, params, alphabet="ab\u20ac\u4e2d\xe9")) for _ in range(8)] + \
        [_alone(rng, params, "abc\xe9", specials) for _ in range(8)]


def non_bmp(params, level, nrefs, rng):
    """Characters outside the BMP inside words and alone."""
    return [_one(*_pair(rng, params, alphabet="ab\U0001F600\U0001F601\U0001F642")) for _ in range(20)] + \
        [_alone(rng, params, "abc", "\U0001F600\U00010400\U0001D400") for _ in range(10)]


def normalization(params, level, nrefs, rng):
    pairs = [("\xe9", "e\u0301"), ("\ufb01", "fi"), ("\xc5", "A\u030a"), ("\u2460", "1"), ("\xf1", "n\u0303")]
    out = []
    for _ in range(24):
        hyp, ref = _pair(rng, params)
        a, b = rng.choice(pairs)
        out.append(_one(_insert(rng, _insert(rng, hyp, [a]), [b]), _insert(rng, _insert(rng, ref, [b]), [a])))
    return out


#: Words the chrF++ tokenizers disagree on: several marks, marks inside, digits, non-ASCII
#: symbols, an underscore (a regular-expression word character).
_TRICKY_WORDS = ["e.g.", "a-b", "!!", "...", "3.5", "1,000", "\u00aba\u00bb", "\u2014", "\u00bfqu\u00e9?", "it's",
                 "x_y", "(a)", "--", "U.S.", "7%"]


def punctuation(params, level, nrefs, rng):
    """Words with an ASCII mark at one end, both ends or none, then with the words the
    tokenizers disagree on (``e.g.``, ``a-b``, ``!!``, digits, non-ASCII symbols)."""
    marks = [".", ",", "(", ")", "!", "?", "'", '"', ":"]
    out = []
    for i in range(32):
        words = _text(rng, [rng.randint(2, 4) for _ in range(rng.randint(2, 4))]).split()
        if i >= 16:
            words.insert(rng.randint(0, len(words)), rng.choice(_TRICKY_WORDS))

        def dress(ws):
            res = []
            for w in ws:
                r = rng.random()
                res.append(w + rng.choice(marks) if r < 0.3 else rng.choice(marks) + w if r < 0.5
                           else rng.choice(marks) + w + rng.choice(marks) if r < 0.7 else w)
            return " ".join(res)
        out.append(_one(dress(words), dress(words)))
    return out


def references(params, level, nrefs, rng):
    k = max(2, nrefs)
    out = []
    for _ in range(24):
        hyp, good = _pair(rng, params)
        refs = [_mutate(rng, hyp, rate=rng.choice([0.6, 0.9])) for _ in range(k - 1)]
        refs.insert(rng.randint(0, k - 1), _mutate(rng, hyp, rate=0.1))
        out.append([(hyp, refs)])
    return out


def segments(params, level, nrefs, rng):
    """Corpora of two to seven segments of several lengths; in the last ones the first two
    segments' references are swapped (a first hypothesis scored against every reference of
    the corpus finds its own, against its segment's does not)."""
    out = [[(h, [r]) for h, r in (_pair(rng, params, rng.randint(params.char_order + 2, 4 * params.char_order + 8))
                                  for _ in range(rng.randint(2, 4) if i < 16 else rng.randint(5, 7)))]
           for i in range(34)]
    for corpus in out[30:]:
        (h0, r0), (h1, r1) = corpus[0], corpus[1]
        corpus[0], corpus[1] = (h0, r1), (h1, r0)
    if nrefs > 1:  # two references per segment, the closer one second: streams read two segments
        for _ in range(8):
            pairs = [_pair(rng, params, rng.randint(params.char_order + 2, 3 * params.char_order)) for _ in range(
                rng.randint(2, 3))]
            out.append([(h, [_mutate(rng, h, rate=0.6), _mutate(rng, r, rate=0.1)]) for h, r in pairs])
    return out


def zero_segments(params, level, nrefs, rng):
    out = []
    for _ in range(24):
        segs = [(h, [r]) for h, r in (_pair(rng, params) for _ in range(rng.randint(1, 2)))]
        for _ in range(rng.randint(1, 2)):
            n = rng.randint(1, params.char_order + 4)
            segs.append((_text(rng, [n], "abcd"), [_text(rng, [rng.randint(1, n + 2)], "wxyz")]))
        rng.shuffle(segs)
        out.append(segs)
    return out


def empty_references(params, level, nrefs, rng):
    """Segments with empty references beside non-empty ones, and (corpus) segments whose only
    reference is empty."""
    out = []
    for _ in range(24):
        segs = []
        for _ in range(rng.randint(1, 3) if level == "corpus" else 1):
            hyp, ref = _pair(rng, params)
            if rng.random() < 0.5:  # a reference the hypothesis shares nothing with: a tie at 0
                ref = _text(rng, [len(ref)], "stuvwxyz")
            refs = ["", ref] if nrefs > 1 and rng.random() < 0.7 else [""]
            if len(refs) == 2 and rng.random() < 0.4:  # the tie the other way round, or between two texts
                refs = [ref, ""] if rng.random() < 0.5 else [ref, _text(rng, [len(ref) + 2], "stuvwxyz")]
            segs.append((hyp, refs))
        if level == "corpus":
            segs.append(_pair(rng, params))
            segs[-1] = (segs[-1][0], [segs[-1][1]])
            rng.shuffle(segs)
        out.append(segs)
    return out


from . import distinguishing as _d  # noqa: E402

GENERATORS = {
    "plain": plain, "short": short, "unequal-pr": unequal_pr, "empty": empty, "repeats": repeats,
    "short-references": short_references, "whitespace": whitespace, "format": format_chars, "case": case,
    "casefold": casefold, "non-ascii": non_ascii, "non-bmp": non_bmp, "normalization": normalization,
    "punctuation": punctuation, "references": references, "segments": segments, "zero-segments": zero_segments,
    "empty-references": empty_references, **_d.GENERATORS,
}
#: Generators whose inputs have several segments (the rest give one-segment inputs).
MULTI_SEGMENT = {"short-references", "segments", "zero-segments", "empty-references", "segment-lengths"}


def draw(family: str, generator: str, params, level: str, nrefs: int) -> list:
    """The family's pool of trigger inputs (segment lists), the same on every run."""
    rng = random.Random(zlib.crc32(f"{family}|{level}".encode()))
    return GENERATORS[generator](params, level, nrefs, rng)


#: Generators that draw several references per segment (the others draw one).
MULTI_REFERENCE = {"references", "empty-references", "many-references", "segments"}


@functools.lru_cache(maxsize=4096)
def pool(family: str, params, level: str, nrefs: int) -> list:
    """A family's trigger inputs at ``level`` for an implementation that takes up to
    ``nrefs`` references per segment: its generator's pool (``"plain"`` for a family that
    names none), one segment each at sentence level.  Drawn once per process (callers read
    it, never change it)."""
    from . import get

    dev = get(family)
    gen = dev.trigger if dev is not None and dev.trigger else "plain"
    out = draw(family, gen, params, level, nrefs if gen in MULTI_REFERENCE else 1)
    if level == "sentence" and gen in MULTI_SEGMENT:
        out = [p[:1] for p in out]
    return out


def one_segment(family: str) -> bool:
    """Whether ``family``'s trigger inputs are one-segment inputs drawn the same way at both
    levels (so its sentence pool is a pool of corpus inputs too)."""
    from . import get

    dev = get(family)
    gen = dev.trigger if dev is not None and dev.trigger else "plain"
    return gen not in MULTI_SEGMENT and gen != "empty"

