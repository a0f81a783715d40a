"""Inputs like real text (issues 30, 41): what MT output, LLM answers, web text and real
callers send that the generic strategies (``audit.collect.strategies``) never produce --
HTML entities, markup, special tokens, hyphen + line break, several lines, CRLF, tabs inside
text, numbers with separators, URLs and e-mail addresses, typographic quotes, CJK and Thai
without spaces, right-to-left text with marks, emoji sequences, combining sequences, texts of
100 to 1,000 and of more than 1,000 characters, several references, reference lists of
different lengths, an empty reference beside others, and real sentences mutated.

``CLASSES`` is the one list.  Each class has a draw (``audit.collect.realtext_draws``) and a
*witness*: a predicate over an input that was scored (its segments, ``[(hypothesis,
references)]``) saying whether the input is characteristic of the class -- the feature is
there *and* the sides of a segment differ in it (a special token in the hypothesis that the
reference lacks, not a token copied on both sides; a reference list shorter than another).
The fit's scope is what the witnesses saw on the inputs the implementation answered
(``Checker.check``), so "never tried" is a fact about the audit, not about the budget plan.
A class that cannot apply to a unit (reference lists at the sentence level, several
references for a one-reference implementation) is not drawn and not counted either way.
``budget_split`` gives each class its share of the search budget by counting, never by the
clock.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable, Optional

from hypothesis import strategies as st

from . import realtext_draws as D
from .realtext_draws import LATIN, SPECIAL_TOKENS

Segments = list  # [(hypothesis, [references])]


def _contrast(find: Callable[[str], list]) -> Callable[[Segments], bool]:
    """The witness of a text feature: some segment has it (``find`` lists its occurrences in
    a text) and its hypothesis and one of its references differ in it."""

    def witness(segments) -> bool:
        for hyp, refs in segments:
            mine = Counter(find(hyp))
            if any(Counter(find(r)) != mine for r in refs) and (mine or any(find(r) for r in refs)):
                return True
        return False

    return witness


def _regex(pattern: str) -> Callable[[Segments], bool]:
    return _contrast(re.compile(pattern).findall)


def _differing(test: Callable[[str], bool]) -> Callable[[Segments], bool]:
    """Some segment has a text passing ``test`` and sides that differ."""
    return lambda segments: any(any(test(t) for t in (h, *rs)) and any(r != h for r in rs) for h, rs in segments)


_TAG = r"</?(?:b|i|u|p|a|br|em|strong|span|div|sup|sub|li|ul)\b[^<>]*>"
_ENTITY = r"&(?:#\d+|#x[0-9a-fA-F]+|[a-zA-Z]+);"
_SPECIAL = "|".join(re.escape(t) for t in SPECIAL_TOKENS)
_QUOTES = "[\u201c\u201d\u2018\u2019\u00ab\u00bb\u201e\u201a\u2039\u203a\u2013\u2014]"
_EMOJI = "[\U0001F000-\U0001FAFF\u2600-\u27bf][\u200d\ufe0f\U0001F3FB-\U0001F3FF\U0001F1E6-\U0001F1FF]"


def _combining_sequences(t: str) -> list:
    return [t[i - 1:i + 1] for i in range(1, len(t)) if unicodedata.combining(t[i])]


def _real_sentence(t: str) -> bool:
    return any(g in _real_trigrams() for g in _trigrams(t))


def _trigrams(t: str):
    words = t.split()
    return (" ".join(words[i:i + 3]) for i in range(len(words) - 2))


@lru_cache(maxsize=1)
def _real_trigrams() -> frozenset:
    return frozenset(g for s in LATIN for g in _trigrams(s))


def _ragged(segments) -> bool:
    return len(segments) > 1 and len({len(rs) for _, rs in segments}) > 1


def _empty_beside_others(segments) -> bool:
    return any("" in rs and any(rs) for _, rs in segments)


def _several_references(segments) -> bool:
    return any(len(rs) >= 3 and len(set(rs)) > 1 for _, rs in segments)


def _over_thousand(segments) -> bool:
    return any(len(t) > 1000 and any(r[1000:] != h[1000:] for r in rs) for h, rs in segments for t in (h, *rs))


@dataclass(frozen=True)
class InputClass:
    id: str
    title: str
    #: (max references the unit may send) -> strategy of one segment (hypothesis, references)
    segment: Callable
    #: the witness: is a scored input (its segments) characteristic of the class?
    witness: Callable[[Segments], bool]
    #: the fewest references per segment the class needs sent (1: any implementation)
    min_refs: int = 1
    #: the levels it applies to
    levels: tuple = ("sentence", "corpus")
    #: (max references) -> strategy of a corpus's segments, when the class is about them
    corpus: Optional[Callable] = None

    def applies(self, level: str, max_refs: int) -> bool:
        return level in self.levels and max_refs >= self.min_refs


def _one(pair_strategy: Callable) -> Callable:
    """A class of (hypothesis, reference) texts: one reference per segment."""
    return lambda max_refs: pair_strategy().map(lambda hr: (hr[0], [hr[1]]))


def _several(max_refs: int):
    return st.integers(3, max(3, min(5, max_refs))).flatmap(D.references_for)


#: The classes, in the order the budget is shared out.
CLASSES = (
    InputClass("real-sentences", "real sentences, mutated", _one(D.real),
               _differing(_real_sentence)),
    InputClass("html-entities", "HTML entities", _one(D.entities), _regex(_ENTITY)),
    InputClass("markup", "markup tags (<b>, <br/>, ...)", _one(D.markup), _regex(_TAG)),
    InputClass("special-tokens", "special tokens (<unk>, </s>, [MASK], ...)", _one(D.special), _regex(_SPECIAL)),
    InputClass("long-texts", "texts of 100 to 1,000 characters", _one(D.long),
               _differing(lambda t: len(t) >= 100)),
    InputClass("texts-over-1000", "texts of more than 1,000 characters, differing after the 1,000th",
               _one(D.over_thousand), _over_thousand),
    InputClass("repeated-hypotheses", "a short output many systems give, against other references each time",
               _one(D.repeated), lambda segs: any(h in D.COMMON_OUTPUTS and any(r != h for r in rs) for h, rs in segs)),
    InputClass("several-lines", "texts of several lines (LF)", _one(D.several_lines),
               _differing(lambda t: "\n" in t.strip().replace("\r\n", ""))),
    InputClass("several-references", "3 to 5 references", _several, _several_references, min_refs=3),
    InputClass("ragged-references", "reference lists of different lengths (sacreBLEU: None in a stream)",
               lambda max_refs: _several(max_refs), _ragged, min_refs=2, levels=("corpus",),
               corpus=D.ragged_segments),
    InputClass("empty-reference-beside-others", "an empty reference beside non-empty ones", D.empty_beside_others,
               _empty_beside_others, min_refs=2),
    InputClass("hyphen-line-breaks", "a hyphen followed by a line break", _one(D.hyphen), _regex(r"\w-\r?\n\w")),
    InputClass("crlf", "CRLF line breaks", _one(D.crlf), _regex("\r\n")),
    InputClass("tabs", "tabs inside text", _one(D.tabs), _contrast(lambda t: re.findall("\t", t.strip()))),
    InputClass("numbers", "numbers with separators", _one(D.numbers), _regex(r"\d[,.'\u202f\u00a0 ]\d")),
    InputClass("urls-emails", "URLs and e-mail addresses", _one(D.links),
               _regex(r"https?://\S+|[\w.+-]+@[\w-]+\.[\w.]+")),
    InputClass("typographic-quotes", "typographic quotes and dashes", _one(D.quotes), _regex(_QUOTES)),
    InputClass("cjk-thai", "CJK and Thai without spaces", _one(D.no_spaces),
               _regex("[\u3040-\u30ff\u4e00-\u9fff\u0e00-\u0e7f\uac00-\ud7af]{3,}")),
    InputClass("right-to-left", "right-to-left text with marks", _one(D.rtl),
               _regex("[\u0590-\u05ff\u0600-\u06ff\u200e\u200f]+")),
    InputClass("emoji-sequences", "emoji ZWJ sequences, flags, modifiers", _one(D.emoji), _regex(_EMOJI)),
    InputClass("combining-sequences", "combining sequences", _one(D.combining), _contrast(_combining_sequences)),
)
BY_ID = {c.id: c for c in CLASSES}


def classes_of(segments) -> set[str]:
    """The classes a scored input (``[(hypothesis, references)]``) is characteristic of."""
    segments = [(h, list(rs)) for h, rs in segments]
    return {c.id for c in CLASSES if c.witness(segments)}


def applicable(level: str, max_refs: int) -> list[InputClass]:
    """The classes a unit at ``level`` that may send ``max_refs`` references can try."""
    return [c for c in CLASSES if c.applies(level, max_refs)]


def budget_split(budget: int, classes=CLASSES) -> list[tuple[InputClass, int]]:
    """Each class's share of ``budget`` examples, in ``CLASSES`` order: equal shares, the
    remainder one each to the first classes; a class whose share is 0 is not drawn (and the
    scope says so)."""
    n = len(classes)
    return [(c, budget // n + (1 if i < budget % n else 0)) for i, c in enumerate(classes)]


def sentence_inputs(cls: InputClass, max_refs: int):
    return cls.segment(max_refs).map(lambda hr: {"hypothesis": hr[0], "references": list(hr[1])})


def corpus_inputs(cls: InputClass, max_refs: int):
    """One to three segments of the class, all with as many references as the first (the
    classes about reference lists draw their own segments)."""
    segs = cls.corpus(max_refs) if cls.corpus is not None else \
        st.lists(cls.segment(max_refs), min_size=1, max_size=3).map(_rectangular)
    return segs.map(lambda segs: {"hypotheses": [h for h, _ in segs], "references": [list(r) for _, r in segs]})


def _rectangular(segs):
    k = len(segs[0][1])
    return [(h, (list(rs) + [rs[-1]] * k)[:k]) for h, rs in segs]
