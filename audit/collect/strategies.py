r"""Hypothesis strategies built for chrF: the inputs where implementations actually differ.

Generic ``st.text()`` almost never produces what breaks a chrF implementation: text shorter
than the n-gram order, repeated n-grams (clipping), the 29 code points ``str.isspace()``
accepts (four of them, U+001C..U+001F, are *not* Unicode White_Space), combining marks and
their precomposed twins (normalization), non-BMP characters (UTF-16), special case mappings
(``lower`` vs ``casefold``), punctuation at word edges (chrF++ tokens), hypotheses that are
near-copies of a reference.  These strategies put those first.

Shrinking: every text is a list of *pieces* joined together, and each choice lists its
simplest option first, so Hypothesis shrinks a failing text towards ``""`` and then ``"a"``
(a list shrinks to empty, ``one_of`` to its first branch, ``sampled_from`` to its first
element).  Inputs derived from a reference shrink towards an identical copy of a short one.

Control characters (C0, DEL and C1: NUL, ESC, U+0080..U+009F, ...) are drawn as often as
any other class: an implementation that chokes on NUL must be found.  Lone surrogates
(U+D800..U+DFFF, legal in a Python ``str``, what ``surrogateescape`` decoding makes of bad
bytes) are drawn only with ``surrogates=True``: the runner asks for them for Python
callables and for external programs whose hello says they take them (JSON carries them as
``\udXXX`` escapes).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Iterable

from hypothesis import strategies as st

__all__ = [
    "WHITESPACE", "NOT_WHITESPACE", "COMBINING", "NON_BMP", "CJK", "CASE_SPECIALS",
    "PUNCT_WORDS", "ASCII_WORDS", "CONTROLS", "SURROGATES", "characters", "texts", "sentence_inputs", "corpus_inputs",
    "claim_swarm", "CLAIM_VALUES",
]

#: Every code point for which ``str.isspace()`` is true (29).  sacreBLEU removes all of them;
#: nltk >= 3.10.4 keeps U+001C..U+001F (not Unicode White_Space); chrF++.py removes only
#: U+0020; ASCII-minded code removes only " \t\n\r\x0b\x0c".
WHITESPACE = (
    " \t\n\r\x0b\x0c"  # ASCII
    "\x1c\x1d\x1e\x1f"  # information separators: isspace() but not White_Space
    "\x85\xa0\u1680"
    "\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000"
)
#: Look-alikes that are *not* whitespace for any definition (zero-width space, BOM / ZWNBSP,
#: Mongolian vowel separator, no longer White_Space since Unicode 6.3): they must be scored.
NOT_WHITESPACE = "\u200b\ufeff\u180e"
#: Combining marks (acute, grave, diaeresis, cedilla, dot below, tilde, ring above).
COMBINING = "\u0301\u0300\u0308\u0327\u0323\u0303\u030a"
#: Precomposed letters and their canonical (NFD) or compatibility twins.
NORMALIZATION_PAIRS = (
    "\u00e9", "e\u0301", "\u00f1", "n\u0303", "\u00c5", "A\u030a", "\u212b",  # Angstrom sign
    "\u00fc", "u\u0308", "\u1e0d", "d\u0323", "\uff41",  # fullwidth a (NFKC -> a)
    "\u00bd",  # vulgar fraction one half (NFKC -> 1/2)
)
#: Outside the BMP: two UTF-16 code units, four UTF-8 bytes.
NON_BMP = "\U0001F600\U00010400\U00020000\U0001D400\U0001F44D"
#: CJK and Hangul: no spaces between words, multi-byte in UTF-8.
CJK = "\u4e2d\u6587\u5b57\u6f22\u65e5\u672c\u8a9e\ud55c\uad6d\uc5b4"
#: Letters whose lower(), casefold() and upper() disagree or change length:
#: I with dot (lower() gives two code points), sharp s (casefold -> ss), capital sharp s,
#: sigma / final sigma, titlecase dz, fi ligature (casefold -> fi), Kelvin sign (lower -> k),
#: dotless i, micro sign (casefold -> Greek mu).
CASE_SPECIALS = "\u0130\u00df\u1e9e\u03a3\u03c3\u03c2\u01c5\u01c4\u01c6\ufb01\u212a\u0131\u00b5IiKkSs"
#: ASCII punctuation at word edges: chrF++ splits one mark off the end, else off the start.
PUNCT_WORDS = (
    "end.", "(hi)", "...", "'quote'", "a,", ",b", "-", "!!", "(a", "\"x\"", "e.g.", "?", "a-b",
)
#: Plain ASCII words, one-character words first (they are never split by chrF++).
ASCII_WORDS = (
    "a", "b", "I", "x", "the", "cat", "sat", "on", "mat", "A", "The", "abc", "dog", "is",
    "house", "ab", "ba", "aa", "de", "1", "42",
)
_ASCII_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
#: C0 controls (NUL and ESC first), DEL and the C1 controls.  Ten of them are whitespace for
#: ``str.isspace()`` (U+0009..U+000D, U+001C..U+001F, U+0085; sacreBLEU removes them), the
#: other 55 are ordinary characters for every definition (docs/definitions.md).
CONTROLS = "\x00\x1b\x7f" + "".join(chr(c) for c in [*range(0x01, 0x20), *range(0x80, 0xA0)] if c != 0x1B)
#: Lone surrogates: the first and last high and low ones, and surrogateescape's U+DC80..U+DCFF.
SURROGATES = "\ud800\udbff\udc00\udfff\udc80\udcff\udce9"


def _no_surrogates(s: str) -> bool:
    return not any("\ud800" <= c <= "\udfff" for c in s)


@lru_cache(maxsize=None)
def characters(surrogates: bool = False) -> st.SearchStrategy[str]:
    """One code point (or a base letter plus combining mark), from the chrF edge classes,
    ``"a"`` first.  Used for character edits of a reference."""
    extra = [st.sampled_from(SURROGATES)] if surrogates else []
    return st.one_of(
        st.sampled_from("abcab"),  # common letters first: shrink target "a"
        st.sampled_from(_ASCII_LETTERS),
        st.sampled_from(WHITESPACE),
        st.sampled_from(NOT_WHITESPACE + COMBINING),
        st.sampled_from(NORMALIZATION_PAIRS),
        st.sampled_from(NON_BMP + CJK),
        st.sampled_from(CASE_SPECIALS),
        st.sampled_from(".,!?()'\"-:;"),
        st.sampled_from(CONTROLS),
        *extra,
        # rarely, anything that is a valid scalar value (no surrogates: category Cs excluded)
        st.characters(exclude_categories=("Cs",)),
    )


@lru_cache(maxsize=None)
def _repeated() -> st.SearchStrategy[str]:
    """'aaaa' and 'abab': repeated n-grams, where clipping matters."""
    unit = st.one_of(st.sampled_from("ab"), st.sampled_from(("ab", "ba", "abc", "a ", "\u00e9")))
    return st.builds(lambda u, k: u * k, unit, st.integers(1, 8))


@lru_cache(maxsize=None)
def _piece(surrogates: bool = False) -> st.SearchStrategy[str]:
    """One piece of a text.  Weighting by repetition of the common branches."""
    words = st.sampled_from(ASCII_WORDS)
    space = st.just(" ")
    ws = st.sampled_from(WHITESPACE)
    return st.one_of(
        words,
        space,
        words,
        space,
        ws,
        _repeated(),
        st.sampled_from(PUNCT_WORDS),
        st.sampled_from(NORMALIZATION_PAIRS),
        st.sampled_from(CASE_SPECIALS),
        st.sampled_from(NON_BMP + CJK),
        st.sampled_from(NOT_WHITESPACE + COMBINING),
        st.sampled_from(CONTROLS),
        *([st.sampled_from(SURROGATES)] if surrogates else []),
        characters(surrogates),
    )


@lru_cache(maxsize=None)
def texts(min_size: int = 0, max_size: int = 80, surrogates: bool = False) -> st.SearchStrategy[str]:
    """Texts biased to chrF's edges (see the module docstring), ``""`` and ``"a"`` first.

    Two regimes: *short* texts of 0..8 code points (a few pieces, mostly single characters:
    shorter than the default order 6, so orders stop being effective) and *sentence-length*
    texts of words, spaces and special pieces.  ``min_size``/``max_size`` bound the length in
    code points (longer texts are truncated, shorter ones padded with "a").
    """
    if min_size < 0 or max_size < min_size:
        raise ValueError(f"need 0 <= min_size <= max_size, got {min_size}, {max_size}")
    short = st.lists(st.one_of(characters(surrogates), _piece(surrogates)), max_size=4).map("".join).map(lambda s: s[:8])
    sentence = st.lists(_piece(surrogates), min_size=1, max_size=30).map("".join)

    def fit(s: str) -> str:
        s = s[:max_size]
        return s + "a" * (min_size - len(s)) if len(s) < min_size else s

    return st.one_of(short, sentence).map(fit)


# --------------------------------------------------------------------------- edits
# Strategies are built once and reused: Hypothesis validates every new strategy object, and
# building them inside a draw made generation ~5x slower than the checks themselves.
_ints = lru_cache(maxsize=None)(st.integers)
_sampled = lru_cache(maxsize=None)(st.sampled_from)
_BOOLEANS = st.booleans()


@lru_cache(maxsize=None)
def _word_substitutes(surrogates: bool = False) -> st.SearchStrategy[str]:
    return st.one_of(st.sampled_from(ASCII_WORDS), st.sampled_from(PUNCT_WORDS), _piece(surrogates))


@lru_cache(maxsize=None)
def _word_inserts(surrogates: bool = False) -> st.SearchStrategy[str]:
    return st.one_of(st.sampled_from(ASCII_WORDS), _piece(surrogates))


_EDITS = (
    "copy",  # identical: must score 100 if non-empty
    "independent",
    "char-substitute",
    "char-insert",
    "char-delete",
    "word-delete",
    "word-insert",
    "word-substitute",
    "word-swap",
    "duplicate",
    "truncate",
    "case",
    "whitespace",
    "punctuation",
    "normalize",
)


def _edit(draw, ref: str, surrogates: bool = False) -> str:
    """A hypothesis derived from ``ref`` by one kind of edit (several applications)."""
    kind = draw(_sampled(_EDITS))
    if kind == "copy":
        return ref
    if kind == "independent":
        return draw(texts(surrogates=surrogates))
    times = draw(_ints(1, 3))
    s = ref
    for _ in range(times):
        if kind.startswith("char-"):
            i = draw(_ints(0, len(s)))
            if kind == "char-substitute" and s:
                i = min(i, len(s) - 1)
                s = s[:i] + draw(characters(surrogates)) + s[i + 1 :]
            elif kind == "char-delete" and s:
                i = min(i, len(s) - 1)
                s = s[:i] + s[i + 1 :]
            else:
                s = s[:i] + draw(characters(surrogates)) + s[i:]
        elif kind.startswith("word-"):
            w = s.split(" ")
            i = draw(_ints(0, max(len(w) - 1, 0)))
            if kind == "word-delete" and len(w) > 1:
                del w[i]
            elif kind == "word-substitute":
                w[i] = draw(_word_substitutes(surrogates))
            elif kind == "word-swap" and len(w) > 1:
                j = draw(_ints(0, len(w) - 1))
                w[i], w[j] = w[j], w[i]
            else:
                w.insert(i, draw(_word_inserts(surrogates)))
            s = " ".join(w)
        elif kind == "duplicate":
            how = draw(_sampled(("whole", "char", "word")))
            if how == "whole":
                s = s + draw(_sampled(("", " ", "\n", "\x1c"))) + s
            elif s:
                i = draw(_ints(0, len(s) - 1))
                j = draw(_ints(i + 1, min(len(s), i + 4))) if how == "char" else i + 1
                s = s[:j] + s[i:j] * draw(_ints(1, 4)) + s[j:]
        elif kind == "truncate" and s:
            i = draw(_ints(0, len(s)))
            s = s[:i] if draw(_BOOLEANS) else s[i:]
        elif kind == "case":
            f = draw(_sampled((str.upper, str.lower, str.swapcase, str.title, str.casefold, str.capitalize)))
            s = f(s)
        elif kind == "whitespace":
            how = draw(_sampled(("replace", "insert", "strip", "double", "remove")))
            if how == "replace":
                s = s.replace(" ", draw(_sampled(WHITESPACE)))
            elif how == "insert":
                i = draw(_ints(0, len(s)))
                s = s[:i] + draw(_sampled(WHITESPACE)) + s[i:]
            elif how == "strip":
                s = s.strip()
            elif how == "double":
                s = s.replace(" ", "  ")
            else:
                s = "".join(s.split())
        elif kind == "punctuation":
            w = s.split(" ")
            i = draw(_ints(0, max(len(w) - 1, 0)))
            mark = draw(_sampled(".,!?()'\"-"))
            where = draw(_sampled(("end", "start", "both", "detach")))
            if where == "end":
                w[i] = w[i] + mark
            elif where == "start":
                w[i] = mark + w[i]
            elif where == "both":
                w[i] = mark + w[i] + draw(_sampled(".,!?()'\"-"))
            else:
                w.insert(i + 1, mark)
            s = " ".join(w)
        elif kind == "normalize":
            import unicodedata

            s = unicodedata.normalize(draw(_sampled(("NFD", "NFC", "NFKC", "NFKD"))), s)
            break
    return s


@st.composite
def _segment(draw, nrefs: int, surrogates: bool = False) -> tuple[str, list[str]]:
    refs = [draw(texts(surrogates=surrogates))]
    # further references: mostly independent, sometimes a variant of the first (ties, best-of)
    for _ in range(nrefs - 1):
        refs.append(_edit(draw, refs[0], surrogates) if draw(_BOOLEANS) else draw(texts(surrogates=surrogates)))
    source = refs[draw(_ints(0, nrefs - 1))]
    hyp = _edit(draw, source, surrogates)
    assert surrogates or (_no_surrogates(hyp) and all(map(_no_surrogates, refs)))
    if surrogates:
        hyp, refs = unpaired(hyp), [unpaired(r) for r in refs]
    return hyp, refs


_PAIR = re.compile("([\ud800-\udbff])(?=[\udc00-\udfff])")


def unpaired(text: str) -> str:
    """``text`` with an "a" between a high and a directly following low surrogate.

    Two such code points are two lone surrogates in a Python ``str`` but one astral character
    to every JSON (and UTF-16) reader: the worker and external protocols would deliver a
    different text from the one the reference scored.  A *lone* surrogate stays lone."""
    return _PAIR.sub("\\1a", text)


_segments = lru_cache(maxsize=None)(_segment)


@st.composite
def sentence_inputs(draw, max_refs: int = 3, surrogates: bool = False) -> tuple[str, list[str]]:
    """``(hypothesis, [references])`` with 1..max_refs references.

    The hypothesis is usually derived from one of the references by a kind of edit (an
    identical copy first, then an independent text, character and word insertions, deletions,
    substitutions and swaps, duplication, truncation, case change, whitespace change,
    punctuation at word edges, Unicode normalization): near-copies are where per-order
    statistics are partly effective and where most deviations show.  Further references are
    independent texts or edits of the first one (best-reference ties).
    """
    if max_refs < 1:
        raise ValueError("max_refs must be >= 1")
    nrefs = draw(_ints(1, max_refs))
    return draw(_segments(nrefs, surrogates))


@st.composite
def corpus_inputs(draw, max_segments: int = 6, max_refs: int = 3,
                  surrogates: bool = False) -> tuple[list[str], list[list[str]]]:
    """``(hypotheses, references)`` with 1..max_segments segments, ``references[i]`` the
    references of segment i; every segment has the same number of references (sacreBLEU's
    corpus API needs a rectangular reference set).  Segments include empty and very short
    texts (from ``texts()``), and short references next to long hypotheses, where the
    corpus sums differ from sentence statistics (orders a reference lacks)."""
    if max_segments < 1 or max_refs < 1:
        raise ValueError("max_segments and max_refs must be >= 1")
    nrefs = draw(_ints(1, max_refs))
    nseg = draw(_ints(1, max_segments))
    hyps, refs = [], []
    for _ in range(nseg):
        h, r = draw(_segments(nrefs, surrogates))
        hyps.append(h)
        refs.append(r)
    return hyps, refs


# --------------------------------------------------------------------------- claims
#: The values each claim field is swarmed over.
CLAIM_VALUES: dict[str, tuple] = {
    "char_order": (1, 2, 3, 4, 5, 6, 7, 8),
    "word_order": (0, 1, 2),
    "beta": (1, 2, 3, 0.5),
    "lowercase": (False, True),
    "whitespace": (False, True),
}


def claim_swarm(accepts: Iterable[str], base: dict) -> st.SearchStrategy[dict]:
    """Claim dicts that vary only the fields in ``accepts`` (of char_order, word_order, beta,
    lowercase, whitespace), each over ``CLAIM_VALUES``, and keep every other key of ``base``.

    Each field lists its ``base`` value first, so a failure shrinks to ``base`` in every
    field that does not matter: the minimal claims differ from the default in as few fields
    as possible.  Fields in ``accepts`` that are not swarmable are ignored.
    """
    accepts = frozenset(accepts)
    fields = {}
    for name, values in CLAIM_VALUES.items():
        if name not in accepts:
            continue
        first = base.get(name, values[0])
        ordered = [first] + [v for v in values if v != first]
        fields[name] = st.sampled_from(ordered)
    return st.fixed_dictionaries(fields).map(lambda d: {**base, **d})
