"""The text stage of the exact bug models: text -> integer n-gram statistics under a
``TextVariant`` (whitespace set, case, code units, format characters, n-gram orders, word
tokenization, clipping, uncounted hypothesis n-grams, reference layout).  With the default
variant the statistics are ``reference_impl``'s own (``TextProfile``/``match_profiles``)."""

from __future__ import annotations

import functools
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass, replace
from typing import Optional, Sequence

from reference_impl import ChrfParams, SegmentStats, TextProfile, match_profiles
from reference_impl.text import ASCII_PUNCTUATION, char_sequence, word_tokens

from .variants import FORMAT_SETS, WHITESPACE_SETS, TextVariant

def _units(text: str, tv: TextVariant):
    if tv.units == "utf8-bytes":
        return text.encode("utf-8", "surrogatepass")  # lone surrogates: 3 bytes each
    if tv.units == "utf16-code-units":
        raw = text.encode("utf-16-le", "surrogatepass")
        return tuple(int.from_bytes(raw[i : i + 2], "little") for i in range(0, len(raw), 2))
    return text


def _chars(text: str, params: ChrfParams, tv: TextVariant) -> str:
    # A whitespace deviation changes what removing whitespace does; with whitespace kept by
    # the parameters only "whitespace-removed" applies (parameters that are ignored are the
    # claims probe's business).
    if tv.ws is None or params.whitespace and tv.ws not in ("whitespace-removed", "whitespace-collapsed"):
        return char_sequence(text, params.whitespace, params.definition)
    if tv.ws == "whitespace-kept":
        return text
    if tv.ws == "whitespace-collapsed":
        return " ".join(text.split())
    if tv.ws == "whitespace-stripped-ends-only":
        return text.strip()
    removed = WHITESPACE_SETS[tv.ws]
    return "".join(c for c in text if c not in removed)


_WORD_RUNS = re.compile(r"\w+|[^\w\s]")


def _words(text: str, tv: TextVariant) -> list[str]:
    if tv.words is None:
        return word_tokens(text)
    if tv.words == "regex-word-runs":
        return _WORD_RUNS.findall(text)
    out: list[str] = []
    for w in text.split():
        if tv.words == "word-punctuation-not-split" or len(w) == 1:
            out.append(w)
        else:  # split-both
            head = [w[0]] if w[0] in ASCII_PUNCTUATION else []
            core = w[len(head):]
            tail = [core[-1]] if len(core) > 1 and core[-1] in ASCII_PUNCTUATION else []
            core = core[: len(core) - len(tail)]
            out += head + ([core] if core else []) + tail
    return out


def _char_orders(params: ChrfParams, tv: TextVariant) -> range:
    nc = params.char_order
    return {"minus-one": range(1, nc), "plus-one": range(1, nc + 2), "from-two": range(2, nc + 2)}.get(
        tv.orders, range(1, nc + 1))


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
#: Lowercase mappings other than ``str.lower()`` (which maps U+0130 to two code points and a
#: word-final capital sigma to the final form): one code point to one (Go's
#: ``unicode.ToLower``), each code point lowered alone, ASCII letters only.
_LOWER_MAPPINGS = {
    "lower-simple": lambda t: "".join("i" if c == "\u0130" else c.lower() for c in t),
    "lower-per-character": lambda t: "".join(c.lower() for c in t),
    "lower-ascii": lambda t: t.translate(_ASCII_LOWER),
}


@functools.lru_cache(maxsize=1 << 10)
def _profile_cached(text, params, ws, case, units, fmt, orders, words):
    tv = TextVariant(ws=ws, case=case, units=units, format_deleted=fmt, orders=orders, words=words)
    lower = {"case-folded": True, "case-not-folded": False}.get(case, params.lowercase)
    if case == "casefold-instead-of-lower":
        text = text.casefold()
    elif case in _LOWER_MAPPINGS and params.lowercase:
        text = _LOWER_MAPPINGS[case](text)
    elif lower:
        text = text.lower()
    if units in ("NFC", "NFD", "NFKC", "NFKD"):
        text = unicodedata.normalize(units, text)
    if fmt:
        text = "".join(c for c in text if c not in FORMAT_SETS[fmt])
    seq = _units(_chars(text, params, tv), tv)
    counters = [Counter([seq[i : i + n] for i in range(len(seq) - n + 1)]) for n in _char_orders(params, tv)]
    if params.word_order:
        toks = _words(text, tv)
        counters += [Counter([" ".join(toks[i : i + n]) for i in range(len(toks) - n + 1)])
                     for n in range(1, params.word_order + 1)]
    totals = tuple(sum(c.values()) for c in counters)
    return tuple(counters), totals, sum(totals)


def _profile(text: str, params: ChrfParams, tv: TextVariant):
    return _profile_cached(text, params, tv.ws, tv.case, tv.units, tv.format_deleted, tv.orders, tv.words)


def bound_profile_cache(limit: int) -> bool:
    """Empty the n-gram profile caches when they hold more than ``limit`` entries (a long
    computation over a real corpus, e.g. the impact study, keeps memory bounded between
    systems this way); True when they were emptied.  Results never depend on the caches."""
    if _profile_cached.cache_info().currsize + _reference_profile.cache_info().currsize <= limit:
        return False
    _profile_cached.cache_clear()
    _reference_profile.cache_clear()
    _match_cached.cache_clear()
    return True


@dataclass(frozen=True, slots=True)
class RawStats(SegmentStats):
    """Statistics plus the hypothesis's own n-gram total, which SegmentStats zeroes where
    the reference has no n-gram ("a" against "" must not count as an empty input)."""

    hyp_total: int = 0
    #: the hypothesis's own n-gram count per order (``hyp`` zeroes orders the reference lacks)
    hyp_orders: tuple = ()
    #: the lengths in code points of the hypothesis and of the reference as read (a corpus
    #: mean weighted by length reads them)
    hyp_len: int = 0
    ref_len: int = 0


def _match(hyp, ref, tv: TextVariant, lengths: tuple = (0, 0)) -> RawStats:
    (hcs, htot, hall), (rcs, rtot, _) = hyp, ref
    hs, ms = [], []
    for hc, rc, h, r in zip(hcs, rcs, htot, rtot):
        common = hc.keys() & rc.keys()
        if not common:
            m = 0
        elif tv.clip:
            m = sum(map(min, map(hc.__getitem__, common), map(rc.__getitem__, common)))
        else:
            m = sum(map(hc.__getitem__, common))
        hs.append(h if (r or tv.hyp_where_no_ref) else 0)
        ms.append(m)
    return RawStats(tuple(hs), rtot, tuple(ms), hall, tuple(htot), *lengths)


@functools.lru_cache(maxsize=1 << 10)
def _reference_profile(text: str, params: ChrfParams) -> TextProfile:
    return TextProfile(text, params)


def _reference_stats(hyp: str, refs: Sequence[str], params: ChrfParams) -> list[RawStats]:
    """The reference's own statistics (no text deviation), one per reference."""
    hp = _reference_profile(hyp, params)
    total = sum(hp.totals)
    return [RawStats(s.hyp, s.ref, s.match, total, tuple(hp.totals), len(hyp), len(r))
            for s, r in ((match_profiles(hp, _reference_profile(r, params)), r) for r in refs)]


def _refs_read(refs: Sequence[str], layout: Optional[str]) -> list[str]:
    """A segment's references as an implementation with reference layout ``layout`` reads them."""
    if layout == "first-character":
        return [refs[0][:1]]
    if layout == "characters":
        return list(refs[0]) or [""]
    if layout == "joined":
        return [" ".join(refs)]
    if layout == "empty-dropped":
        return [r for r in refs if r]
    if layout and layout.startswith("first-"):
        return list(refs[: int(layout[len("first-"):])])
    return list(refs)


def read_segments(segments, tv: TextVariant) -> list[tuple[str, list[str]]]:
    """The segments an implementation with the layout deviations of ``tv`` actually scores:
    its references read per ``refs_layout``, its segments per ``corpus_layout`` (segments
    left without a reference are skipped)."""
    segs = [(h, list(rs)) for h, rs in segments]
    if tv.truncate:
        side, n = tv.truncate
        segs = [(h[:n], [r[:n] for r in rs] if side == "both" else rs) for h, rs in segs]
    if tv.corpus_layout == "transposed":
        segs = list(zip([h for h, _ in segs], [list(s) for s in zip(*[rs for _, rs in segs])]))
    elif tv.corpus_layout == "first-segment":
        segs = segs[:1]
    elif tv.corpus_layout == "last-segment":
        segs = segs[-1:]
    elif tv.corpus_layout and tv.corpus_layout.startswith("batches-"):
        k = int(tv.corpus_layout[len("batches-"):])
        segs = segs[: len(segs) // k * k]
    if tv.refs_layout:
        segs = [(h, _refs_read(rs, tv.refs_layout)) for h, rs in segs]
    return [(h, rs) for h, rs in segs if rs]


def text_stats(segments, params: ChrfParams, tv: TextVariant) -> list[list[RawStats]]:
    """Per segment, per reference: the statistics under text variant ``tv`` (segments read
    through its layout deviations first; no segment left: an empty list)."""
    if tv == TextVariant():
        return [_reference_stats(hyp, refs, params) for hyp, refs in segments]
    if tv.refs_layout or tv.corpus_layout or tv.truncate:
        segments = read_segments(segments, tv)
        tv = replace(tv, refs_layout=None, corpus_layout=None, truncate=None)
        if tv == TextVariant():
            return [_reference_stats(hyp, refs, params) for hyp, refs in segments]
    key = (params, tv.ws, tv.case, tv.units, tv.format_deleted, tv.orders, tv.words, tv.clip, tv.hyp_where_no_ref)
    return [[_match_cached(hyp, r, *key) for r in refs] for hyp, refs in segments]


@functools.lru_cache(maxsize=1 << 12)
def _match_cached(hyp: str, ref: str, params, ws, case, units, fmt, orders, words, clip, hyp_where_no_ref) -> RawStats:
    """One (hypothesis, reference) pair's statistics under a text variant without layout
    deviations (remembered: the search over deviation sets reads the same pair under the same
    variant once per combination with the other stages)."""
    tv = TextVariant(ws=ws, case=case, units=units, format_deleted=fmt, orders=orders, words=words, clip=clip,
                     hyp_where_no_ref=hyp_where_no_ref)
    return _match(_profile(hyp, params, tv), _profile(ref, params, tv), tv, (len(hyp), len(ref)))
