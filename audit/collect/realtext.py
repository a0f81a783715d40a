"""Inputs like real text (issue 30): what MT output, LLM answers and web text hold and the
generic strategies (``audit.collect.strategies``) never produce -- HTML entities, markup,
special tokens, hyphen + line break, CRLF, tabs inside text, numbers with separators, URLs
and e-mail addresses, typographic quotes, CJK and Thai without spaces, right-to-left text
with marks, emoji sequences, combining sequences, long texts, several references and real
sentences (``sentences.json``, written for chrf-audit, Apache-2.0) mutated.

``CLASSES`` is the one list: each class has a strategy of (hypothesis, references) whose
*simplest* draw already holds the class's feature on one side and not the same on the other
(a search of one example per class tries something), and a detector that says whether an
input holds it -- the fit's scope is what the detectors saw on the inputs scored, so "never
tried" is a fact about the audit, not about the budget plan.  ``budget_split`` gives each
class its share of the search budget by counting, never by the clock.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Callable

from hypothesis import strategies as st

_DATA = json.loads((Path(__file__).with_name("sentences.json")).read_text(encoding="utf-8"))
SENTENCES: dict[str, list[str]] = _DATA["sentences"]
LATIN = [s for lang in ("en", "de", "fr", "es") for s in SENTENCES[lang]]
NO_SPACES = SENTENCES["zh"] + SENTENCES["ja"] + SENTENCES["th"]
RTL = SENTENCES["ar"] + SENTENCES["he"]

ENTITIES = ("&amp;", "&lt;", "&gt;", "&quot;", "&#39;", "&nbsp;", "&eacute;", "&#8217;")
TAGS = (("<b>", "</b>"), ("<i>", "</i>"), ('<a href="https://example.org/x">', "</a>"), ("<span class=\"hl\">", "</span>"))
SPECIAL_TOKENS = ("<unk>", "<skipped>", "[MASK]", "<s>", "</s>", "<pad>", "[CLS]", "[SEP]", "<mask>")
NUMBERS = ("1,000", "3.14", "12\u202f500", "1.000.000", "2,5", "10'000", "99.9%", "-4,200.75")
LINKS = ("https://www.example.org/path?q=1&lang=en", "http://example.com/a/b.html", "info@example.com",
         "first.last+tag@mail.example.org")
QUOTES = (("\u201c", "\u201d"), ("\u00ab", "\u00bb"), ("\u2018", "\u2019"), ("\u201e", "\u201c"), ("\u2039", "\u203a"))
DASHES = ("\u2014", "\u2013")
EMOJI = ("\U0001F469\u200d\U0001F4BB", "\U0001F1E9\U0001F1EA", "\U0001F44D\U0001F3FD", "\u2764\ufe0f",
         "\U0001F468\u200d\U0001F469\u200d\U0001F467", "\U0001F3F3\ufe0f\u200d\U0001F308")
COMBINING = ("e\u0301", "a\u0308\u0301", "\u0915\u094d\u0937\u093f", "e\u0323\u0302", "n\u0303", "o\u031b\u0300")
RTL_MARKS = ("\u200f", "\u200e", "\u064e", "\u0650", "\u05b8")


def _words_at(text: str, i: int) -> tuple[list[str], int]:
    words = text.split(" ")
    return words, i % len(words)


def _insert_word(text: str, i: int, word: str) -> str:
    words, k = _words_at(text, i)
    return " ".join(words[:k] + [word] + words[k:])


@st.composite
def _sentence(draw, pool=None) -> str:
    return draw(st.sampled_from(pool or LATIN))


@st.composite
def _contrast(draw, make_ref: Callable, make_hyp: Callable, pool=None):
    """A sentence with the feature in the reference (``make_ref``) and the hypothesis made
    from the same sentence otherwise (``make_hyp``): feature dropped, changed, or kept with a
    word changed."""
    s = draw(_sentence(pool))
    i = draw(st.integers(0, 40))
    return make_hyp(s, i, draw), make_ref(s, i, draw)


def _other_word(s: str, i: int) -> str:
    """``s`` with one word replaced (a hypothesis that is not a copy)."""
    words, k = _words_at(s, i + 1)
    words[k] = "something" if words[k] != "something" else "else"
    return " ".join(words)


def _pick(draw, options):
    return draw(st.sampled_from(options))


def _entities(): return _contrast(lambda s, i, d: _insert_word(s, i, _pick(d, ENTITIES)),
                                  lambda s, i, d: _insert_word(s, i, "&"))
def _markup(): return _contrast(lambda s, i, d: (lambda t: _insert_word(s, i, t[0] + "x" + t[1]))(_pick(d, TAGS)),
                                lambda s, i, d: _insert_word(s, i, "x"))
def _special(): return _contrast(lambda s, i, d: _insert_word(s, i, _pick(d, SPECIAL_TOKENS)),
                                 lambda s, i, d: _other_word(s, i))
def _hyphen(): return _contrast(lambda s, i, d: _insert_word(s, i, "inter-\nnational"),
                                lambda s, i, d: _insert_word(s, i, "international"))
def _crlf(): return _contrast(lambda s, i, d: s + "\r\n" + _other_word(s, i), lambda s, i, d: s + "\n" + s)
def _tabs(): return _contrast(lambda s, i, d: s.replace(" ", "\t", 1 + i % 3), lambda s, i, d: _other_word(s, i))
def _numbers(): return _contrast(lambda s, i, d: _insert_word(s, i, _pick(d, NUMBERS)),
                                 lambda s, i, d: _insert_word(s, i, "1000"))
def _links(): return _contrast(lambda s, i, d: _insert_word(s, i, _pick(d, LINKS)), lambda s, i, d: _other_word(s, i))
def _quotes(): return _contrast(lambda s, i, d: (lambda q: q[0] + s + q[1])(_pick(d, QUOTES)) + " " + _pick(d, DASHES),
                                lambda s, i, d: '"' + s + '" -')
def _no_spaces(): return _contrast(lambda s, i, d: s, lambda s, i, d: s[: max(1, len(s) - 1 - i % 4)] + s[-1:],
                                   NO_SPACES)
def _rtl(): return _contrast(lambda s, i, d: _pick(d, RTL_MARKS) + s + _pick(d, RTL_MARKS),
                             lambda s, i, d: _other_word(s, i), RTL)
def _emoji(): return _contrast(lambda s, i, d: _insert_word(s, i, _pick(d, EMOJI)),
                               lambda s, i, d: _insert_word(s, i, "\U0001F469"))
def _combining(): return _contrast(lambda s, i, d: _insert_word(s, i, _pick(d, COMBINING)),
                                   lambda s, i, d: _insert_word(s, i, unicodedata.normalize("NFC", _pick(d, COMBINING))))


@st.composite
def _long(draw):
    """100 to 2,000 characters: sentences joined, changed after the first hundred too."""
    n = draw(st.integers(3, 30))
    start = draw(st.integers(0, len(LATIN) - 1))
    ref = " ".join(LATIN[(start + k) % len(LATIN)] for k in range(n))
    k = draw(st.integers(1, n))
    parts = ref.split(". ")
    hyp = ". ".join(p if j % max(1, k) else _other_word(p, j) for j, p in enumerate(parts))
    return hyp, ref


@st.composite
def _real(draw):
    """A real sentence and a mutation of it (words replaced, dropped, swapped)."""
    from .strategies import _edit

    ref = draw(_sentence())
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


@dataclass(frozen=True)
class InputClass:
    id: str
    title: str
    strategy: Callable  # () -> strategy of (hypothesis, reference)
    detect: Callable  # text -> bool (on any text of an input)
    #: several references per segment (the class is about that), at least
    references: int = 1


_ENTITY_RE = re.compile(r"&(#\d+|#x[0-9a-fA-F]+|[a-zA-Z]+);")
_TAG_RE = re.compile(r"</?(b|i|u|p|a|br|em|strong|span|div|sup|sub|li|ul)\b[^<>]*>")
_SPECIAL_RE = re.compile("|".join(re.escape(t) for t in SPECIAL_TOKENS))
_HYPHEN_RE = re.compile(r"\w-\r?\n\w")
_NUMBER_RE = re.compile(r"\d[,.'\u202f\u00a0 ]\d")
_LINK_RE = re.compile(r"https?://\S+|[\w.+-]+@[\w-]+\.[\w.]+")
_QUOTE_CHARS = set("\u201c\u201d\u2018\u2019\u00ab\u00bb\u201e\u201a\u2039\u203a")
_NO_SPACE_RE = re.compile("[\u3040-\u30ff\u4e00-\u9fff\u0e00-\u0e7f\uac00-\ud7af]{3}")
_RTL_RE = re.compile("[\u0590-\u05ff\u0600-\u06ff]")
_EMOJI_RE = re.compile("[\U0001F000-\U0001FAFF\u2600-\u27bf][\u200d\ufe0f\U0001F3FB-\U0001F3FF\U0001F1E6-\U0001F1FF]")


def _combining_sequence(t: str) -> bool:
    return any(unicodedata.combining(c) for c in t[1:])


def _real_sentence(t: str) -> bool:
    return any(len(w) >= 3 and w in _real_trigrams() for w in _trigrams(t))


def _trigrams(t: str):
    words = t.split()
    return (" ".join(words[i:i + 3]) for i in range(len(words) - 2))


@lru_cache(maxsize=1)
def _real_trigrams() -> frozenset:
    return frozenset(g for s in LATIN for g in _trigrams(s))


#: The classes, in the order the budget is shared out.
CLASSES = (
    InputClass("real-sentences", "real sentences, mutated", _real, _real_sentence),
    InputClass("html-entities", "HTML entities", _entities, _ENTITY_RE.search),
    InputClass("markup", "markup tags", _markup, _TAG_RE.search),
    InputClass("special-tokens", "special tokens (<unk>, [MASK], ...)", _special, _SPECIAL_RE.search),
    InputClass("long-texts", "texts of 100 to 2,000 characters", _long, lambda t: len(t) >= 100),
    InputClass("several-references", "3 to 5 references", _real, lambda t: False, references=3),
    InputClass("hyphen-line-breaks", "a hyphen followed by a line break", _hyphen, _HYPHEN_RE.search),
    InputClass("crlf", "CRLF line breaks", _crlf, lambda t: "\r\n" in t),
    InputClass("tabs", "tabs inside text", _tabs, lambda t: "\t" in t.strip()),
    InputClass("numbers", "numbers with separators", _numbers, _NUMBER_RE.search),
    InputClass("urls-emails", "URLs and e-mail addresses", _links, _LINK_RE.search),
    InputClass("typographic-quotes", "typographic quotes and dashes", _quotes,
               lambda t: any(c in _QUOTE_CHARS for c in t)),
    InputClass("cjk-thai", "CJK and Thai without spaces", _no_spaces, _NO_SPACE_RE.search),
    InputClass("right-to-left", "right-to-left text with marks", _rtl, _RTL_RE.search),
    InputClass("emoji-sequences", "emoji ZWJ sequences, flags, modifiers", _emoji, _EMOJI_RE.search),
    InputClass("combining-sequences", "combining sequences", _combining, _combining_sequence),
)
BY_ID = {c.id: c for c in CLASSES}


def classes_of(texts, references_per_segment: int = 1) -> set[str]:
    """The classes an input holds (its texts, and its largest number of references)."""
    out = {c.id for c in CLASSES if any(c.detect(t) for t in texts if t)}
    if references_per_segment >= 3:
        out.add("several-references")
    return out


def budget_split(budget: int) -> list[tuple[InputClass, int]]:
    """Each class's share of ``budget`` examples, in ``CLASSES`` order: equal shares, the
    remainder one each to the first classes; a class whose share is 0 is not drawn (and the
    scope says so)."""
    n = len(CLASSES)
    return [(c, budget // n + (1 if i < budget % n else 0)) for i, c in enumerate(CLASSES)]


def segment_strategy(cls: InputClass, max_refs: int):
    """One segment of the class: (hypothesis, references)."""
    nrefs = min(max(cls.references, 1), max(1, max_refs)) if cls.references > 1 else 1
    if cls.references > 1 and max_refs >= 3:
        return st.tuples(cls.strategy(), st.integers(nrefs, min(5, max_refs))).flatmap(
            lambda hr: st.tuples(st.just(hr[0][0]), st.lists(_sentence(), min_size=hr[1] - 1, max_size=hr[1] - 1).map(
                lambda extra, r=hr[0][1]: [r] + extra)))
    return cls.strategy().map(lambda hr: (hr[0], [hr[1]]))


def sentence_inputs(cls: InputClass, max_refs: int):
    return segment_strategy(cls, max_refs).map(lambda hr: {"hypothesis": hr[0], "references": list(hr[1])})


def corpus_inputs(cls: InputClass, max_refs: int):
    """One to three segments of the class, all with as many references as the first."""
    seg = segment_strategy(cls, max_refs)
    return st.lists(seg, min_size=1, max_size=3).map(_rectangular).map(
        lambda segs: {"hypotheses": [h for h, _ in segs], "references": [list(r) for _, r in segs]})


def _rectangular(segs):
    k = len(segs[0][1])
    return [(h, (list(rs) + [rs[-1]] * k)[:k]) for h, rs in segs]
