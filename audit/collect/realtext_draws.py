"""The draws of the real-text input classes (``audit.collect.realtext``): each a Hypothesis
strategy of (hypothesis, reference) -- or, for the classes about reference lists, of whole
segments -- whose *simplest* draw already holds the class's feature on one side and not the
same on the other, so that a search of one example per class tries something.

Which side carries the feature is drawn too (the hypothesis first: special tokens, markup and
entities are what MT and LLM output holds), so that an implementation that cleans only its
hypotheses, or only its references, is met.  The sentences are ``sentences.json`` (written
for chrf-audit, Apache-2.0).
"""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path
from typing import Callable

from hypothesis import strategies as st

_DATA = json.loads((Path(__file__).with_name("sentences.json")).read_text(encoding="utf-8"))
SENTENCES: dict[str, list[str]] = _DATA["sentences"]
LATIN = [s for lang in ("en", "de", "fr", "es") for s in SENTENCES[lang]]
NO_SPACES = SENTENCES["zh"] + SENTENCES["ja"] + SENTENCES["th"]
RTL = SENTENCES["ar"] + SENTENCES["he"]

ENTITIES = ("&amp;", "&lt;", "&gt;", "&quot;", "&#39;", "&nbsp;", "&eacute;", "&#8217;")
TAGS = (("<b>", "</b>"), ("<br/>", ""), ("<i>", "</i>"), ("<br>", ""), ('<a href="https://example.org/x">', "</a>"),
        ("<span class=\"hl\">", "</span>"), ("<p>", "</p>"))
SPECIAL_TOKENS = ("<unk>", "</s>", "<s>", "<skipped>", "[MASK]", "<pad>", "[CLS]", "[SEP]", "<mask>")
NUMBERS = ("1,000", "3.14", "12\u202f500", "1.000.000", "2,5", "10'000", "99.9%", "-4,200.75")
LINKS = ("https://www.example.org/path?q=1&lang=en", "http://example.com/a/b.html", "info@example.com",
         "first.last+tag@mail.example.org")
QUOTES = (("\u201c", "\u201d"), ("\u00ab", "\u00bb"), ("\u2018", "\u2019"), ("\u201e", "\u201c"), ("\u2039", "\u203a"))
DASHES = ("\u2014", "\u2013")
EMOJI = ("\U0001F469\u200d\U0001F4BB", "\U0001F1E9\U0001F1EA", "\U0001F44D\U0001F3FD", "\u2764\ufe0f",
         "\U0001F468\u200d\U0001F469\u200d\U0001F467", "\U0001F3F3\ufe0f\u200d\U0001F308")
COMBINING = ("e\u0301", "a\u0308\u0301", "\u0915\u094d\u0937\u093f", "e\u0323\u0302", "n\u0303", "o\u031b\u0300")
RTL_MARKS = ("\u200f", "\u200e", "\u064e", "\u0650", "\u05b8")
HYPHENATED = ("inter-\nnational", "ex-\nample", "trans-\r\nlation")


def _words_at(text: str, i: int) -> tuple[list[str], int]:
    words = text.split(" ")
    return words, i % len(words)


def _insert_word(text: str, i: int, word: str) -> str:
    words, k = _words_at(text, i)
    return " ".join(words[:k] + [word] + words[k:])


def _other_word(s: str, i: int) -> str:
    """``s`` with one word replaced (a hypothesis that is not a copy)."""
    words, k = _words_at(s, i + 1)
    words[k] = "something" if words[k] != "something" else "else"
    return " ".join(words)


@st.composite
def sentence(draw, pool=None) -> str:
    return draw(st.sampled_from(pool or LATIN))


def _pick(draw, options):
    return draw(st.sampled_from(options))


@st.composite
def _contrast(draw, with_feature: Callable, without: Callable, pool=None):
    """A sentence with the feature (``with_feature``) on one side and the same sentence made
    otherwise (``without``: feature dropped, changed, or kept with a word changed) on the
    other; the hypothesis carries the feature in the simplest draw."""
    s = draw(sentence(pool))
    i = draw(st.integers(0, 40))
    side = draw(st.sampled_from(("hypothesis", "reference")))
    a, b = with_feature(s, i, draw), without(s, i, draw)
    return (a, b) if side == "hypothesis" else (b, a)


def entities(): return _contrast(lambda s, i, d: _insert_word(s, i, _pick(d, ENTITIES)),
                                 lambda s, i, d: _insert_word(s, i, "&"))
def markup(): return _contrast(lambda s, i, d: (lambda t: _insert_word(s, i, t[0] + "x" + t[1]))(_pick(d, TAGS)),
                               lambda s, i, d: _insert_word(s, i, "x"))
def special(): return _contrast(lambda s, i, d: _insert_word(s, i, _pick(d, SPECIAL_TOKENS)),
                                lambda s, i, d: _other_word(s, i))
def hyphen(): return _contrast(lambda s, i, d: _insert_word(s, i, _pick(d, HYPHENATED)),
                               lambda s, i, d: _insert_word(s, i, "international"))
def crlf(): return _contrast(lambda s, i, d: s + "\r\n" + _other_word(s, i), lambda s, i, d: s + "\n" + s)
def tabs(): return _contrast(lambda s, i, d: s.replace(" ", "\t", 1 + i % 3), lambda s, i, d: _other_word(s, i))
def numbers(): return _contrast(lambda s, i, d: _insert_word(s, i, _pick(d, NUMBERS)),
                                lambda s, i, d: _insert_word(s, i, "1000"))
def links(): return _contrast(lambda s, i, d: _insert_word(s, i, _pick(d, LINKS)), lambda s, i, d: _other_word(s, i))
def quotes(): return _contrast(lambda s, i, d: (lambda q: q[0] + s + q[1])(_pick(d, QUOTES)) + " " + _pick(d, DASHES),
                               lambda s, i, d: '"' + s + '" -')
def no_spaces(): return _contrast(lambda s, i, d: s, lambda s, i, d: s[: max(1, len(s) - 2 - i % 4)] + s[-1:],
                                  NO_SPACES)
def rtl(): return _contrast(lambda s, i, d: _pick(d, RTL_MARKS) + s + _pick(d, RTL_MARKS),
                            lambda s, i, d: _other_word(s, i), RTL)
def emoji(): return _contrast(lambda s, i, d: _insert_word(s, i, _pick(d, EMOJI)),
                              lambda s, i, d: _insert_word(s, i, "\U0001F469"))
def combining(): return _contrast(lambda s, i, d: _insert_word(s, i, _pick(d, COMBINING)),
                                  lambda s, i, d: _insert_word(s, i, unicodedata.normalize("NFC", _pick(d, COMBINING))))


#: A short output many systems give, scored again and again against other references: an
#: implementation that remembers a score by its hypothesis answers it from its memory.
COMMON_OUTPUTS = ("Thank you.",)


@st.composite
def repeated(draw):
    """The common short output against a reference that differs from it: every draw of the
    class scores the same hypothesis against another reference."""
    hyp = draw(st.sampled_from(COMMON_OUTPUTS))
    ref = draw(st.sampled_from(("Thank you very much.", "Yes, it is.", "No.", "I do not know.", "Thanks.")
                               + tuple(LATIN[:3])))
    return hyp, ref


@st.composite
def several_lines(draw):
    """Three to six lines joined by LF, one of them changed (or two swapped) on one side."""
    n = draw(st.integers(3, 6))
    start = draw(st.integers(0, len(LATIN) - 1))
    lines = [LATIN[(start + k) % len(LATIN)] for k in range(n)]
    k = draw(st.integers(0, n - 1))
    other = list(lines)
    if draw(st.booleans()):
        other[k], other[(k + 1) % n] = other[(k + 1) % n], other[k]
    else:
        other[k] = _other_word(other[k], k)
    return "\n".join(other), "\n".join(lines)


@st.composite
def long(draw):
    """100 to 1,000 characters: sentences joined, changed after the first hundred too."""
    n = draw(st.integers(3, 14))
    start = draw(st.integers(0, len(LATIN) - 1))
    ref = " ".join(LATIN[(start + k) % len(LATIN)] for k in range(n))
    k = draw(st.integers(1, n))
    parts = ref.split(". ")
    hyp = ". ".join(p if j % max(1, k) else _other_word(p, j) for j, p in enumerate(parts))
    return hyp, ref


@st.composite
def over_thousand(draw):
    """More than 1,000 characters, the same up to past the 1,000th and changed after it (so
    that a text cut at 1,000 or 1,024 characters scores otherwise), sometimes before it too."""
    start = draw(st.integers(0, len(LATIN) - 1))
    extra = draw(st.integers(0, 600))
    parts: list[str] = []
    while len(" ".join(parts)) <= 1024 + extra:
        parts.append(LATIN[(start + len(parts)) % len(LATIN)])
    tail = [LATIN[(start + len(parts) + k) % len(LATIN)] for k in range(2)]
    ref = " ".join(parts + tail)
    hyp = " ".join(parts + [_other_word(t, k) for k, t in enumerate(tail)])
    if draw(st.booleans()):
        hyp = _other_word(parts[0], 0) + hyp[len(parts[0]):]
    return hyp, ref


@st.composite
def real(draw):
    """A real sentence and a mutation of it (words replaced, dropped, swapped)."""
    from .strategies import _edit

    ref = draw(sentence())
    words = ref.split(" ")
    k = draw(st.integers(0, len(words) - 1))
    how = draw(st.sampled_from(("substitute", "drop", "swap", "edit")))
    if how == "substitute":
        words[k] = "house" if words[k] != "house" else "home"
    elif how == "drop" and len(words) > 1:
        del words[k]
    elif how == "swap" and len(words) > 1:
        j = (k + 1) % len(words)
        words[k], words[j] = words[j], words[k]
    else:
        return _edit(draw, ref), ref
    return " ".join(words), ref


# --------------------------------------------------------------- reference lists


@st.composite
def references_for(draw, n: int):
    """(hypothesis, n references) of a real sentence: the reference the hypothesis was made
    from is the last (so that the references after the first matter), the others are other
    sentences."""
    hyp, ref = draw(real())
    start = draw(st.integers(0, len(LATIN) - 1))
    others = [t for t in (LATIN[(start + k) % len(LATIN)] for k in range(n + 1)) if t != ref][: n - 1]
    return hyp, others + [ref]


@st.composite
def ragged_segments(draw, max_refs: int):
    """Two to four segments whose numbers of references differ (each between 1 and
    ``max_refs``): the simplest draw is one reference, then two."""
    counts = draw(st.lists(st.integers(1, max(2, max_refs)), min_size=2, max_size=4))
    if len(set(counts)) < 2:
        counts[1] = 2 if counts[0] != 2 else 1
    return [draw(references_for(min(k, max_refs))) for k in counts]


@st.composite
def empty_beside_others(draw, max_refs: int):
    """A segment whose references hold an empty one beside non-empty ones (first or later)."""
    n = draw(st.integers(2, max(2, min(3, max_refs))))
    hyp, refs = draw(references_for(n - 1))
    at = draw(st.integers(0, n - 1))
    return hyp, refs[:at] + [""] + refs[at:]
