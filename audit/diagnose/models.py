"""Exact bug models: the known ways a chrF implementation departs from its definition.

Each deviation is one small change to the reference computation, named by its family id
(``audit.diagnose.deviations`` holds the catalogue; this module the arithmetic).  The computation is
split in two stages so that explaining a divergence is cheap:

* text deviations (whitespace set, case, code units, format characters, n-gram orders, word
  tokenization, clipping, uncounted hypothesis n-grams) change the integer statistics;
* score deviations (divisor, averaging, pooling, beta, swap, empty input, reference
  selection, corpus aggregation) are functions of those statistics, computed exactly; output
  deviations (rounding, float32) act on the final number.

With no deviation both stages *are* the reference: the statistics come from
``reference_impl.TextProfile``/``match_profiles``, the best reference from
``select_reference``, the score from ``sentence_fscore``/``corpus_fscore`` (a property test
also holds the generic path, with every field set to what the definition says, equal to it).
"""

from __future__ import annotations

import functools
import struct
import unicodedata
from collections import Counter
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Optional, Sequence

from reference_impl import (EPSILON, ChrfParams, SegmentStats, TextProfile, corpus_fscore, match_profiles,
                            select_reference, sentence_fscore)
from reference_impl.text import ASCII_PUNCTUATION, char_sequence, word_tokens

from . import deviations

#: Code points removed by each whitespace family (the claimed definitions' own sets live in
#: reference_impl.text).
_ISSPACE = frozenset(chr(c) for c in range(0x3001) if chr(c).isspace())  # all 29 lie below U+3001
WHITESPACE_SETS = {
    "whitespace-set-ascii-space": frozenset(" "),
    "whitespace-set-ascii": frozenset(" \t\n\r\x0b\x0c"),
    "whitespace-set-white-space": _ISSPACE - frozenset("\x1c\x1d\x1e\x1f"),
    "whitespace-removed": _ISSPACE,
    "whitespace-set-isspace": _ISSPACE,
}
#: Format characters deleted by text normalizers: the byte-order mark alone, or with the
#: zero-width (non-)joiners and the direction marks.
FORMAT_SETS = {"bom": frozenset("\ufeff"), "format": frozenset("\ufeff\u200c\u200d\u200e\u200f")}


@dataclass(frozen=True)
class TextVariant:
    """How an implementation turns text into n-gram statistics (None = as claimed)."""

    ws: Optional[str] = None  # a WHITESPACE_SETS key, "whitespace-kept" or "whitespace-stripped-ends-only"
    case: Optional[str] = None  # "case-folded" | "case-not-folded" | "casefold-instead-of-lower"
    units: Optional[str] = None  # "utf8-bytes" | "utf16-code-units" | "NFC" | "NFD" | "NFKC" | "NFKD"
    format_deleted: Optional[str] = None  # a FORMAT_SETS key
    orders: Optional[str] = None  # "minus-one" | "plus-one" | "from-two"
    words: Optional[str] = None  # "word-punctuation-not-split" | "word-punctuation-split-both"
    clip: bool = True
    hyp_where_no_ref: bool = False
    #: how a segment's references are read: "first-character" / "characters" (a reference
    #: string iterated as a list of references), "joined" (one reference, joined with a
    #: space), "empty-dropped" (empty references removed; a segment left with none is skipped)
    refs_layout: Optional[str] = None
    #: how a corpus's segments are read: "transposed" (``zip(*references)``, sacreBLEU's
    #: reference streams), "first-segment" / "last-segment" (one segment scored)
    corpus_layout: Optional[str] = None

    def families(self) -> list[str]:
        return _families(self, "text")


@dataclass(frozen=True)
class ScoreVariant:
    """How an implementation turns statistics into a score (None/False = as claimed)."""

    divisor: Optional[str] = None  # "requested" | "effective"
    average: Optional[str] = None  # "f" | "pr" | "pooled"
    beta: Optional[Fraction] = None  # a beta other than the claimed one
    beta_not_squared: bool = False
    swapped: bool = False
    empty_perfect: bool = False
    references: Optional[str] = None  # "first" | "mean" | "sentinel-zero"
    macro: bool = False
    #: corpus: a segment matching none of its references adds its hypothesis n-grams but no
    #: reference n-grams (torchmetrics: no best reference is chosen for it).  True: the
    #: hypothesis n-grams of the orders the first reference has (as statistics are kept);
    #: "all": every hypothesis n-gram
    unmatched_dropped: object = False
    # -- output stage
    rounding: Optional[int] = None  # decimals on the implementation's scale; -1: float32 of the result
    float32: bool = False  # float32 arithmetic throughout: within FLOAT32_BOUND of the exact value

    def families(self) -> list[str]:
        out = _families(self, "score")
        if self.rounding is not None:
            out.append("precision-loss")
        if self.float32:
            out.append("float32-arithmetic")
        return out

    def claimed_score(self) -> bool:
        """No score-stage deviation (output deviations aside)."""
        return self == ScoreVariant(rounding=self.rounding, float32=self.float32)


_DEFAULTS = {"text": TextVariant(), "score": ScoreVariant()}


def _families(variant, stage: str) -> list[str]:
    out = []
    for name in variant.__dataclass_fields__:
        value = getattr(variant, name)
        if value != getattr(_DEFAULTS[stage], name):
            fam = deviations.family_of(stage, name, value)
            if fam is not None and fam not in out:
                out.append(fam)
    return out


def score_families(v: ScoreVariant, params: ChrfParams = None) -> list[str]:
    return v.families()


# ----------------------------------------------------------------------------- text stage


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
    if params.whitespace and tv.ws != "whitespace-removed" or tv.ws is None:
        return char_sequence(text, params.whitespace, params.definition)
    if tv.ws == "whitespace-kept":
        return text
    if tv.ws == "whitespace-stripped-ends-only":
        return text.strip()
    removed = WHITESPACE_SETS[tv.ws]
    return "".join(c for c in text if c not in removed)


def _words(text: str, tv: TextVariant) -> list[str]:
    if tv.words is None:
        return word_tokens(text)
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


@functools.lru_cache(maxsize=1 << 16)
def _profile_cached(text, params, ws, case, units, fmt, orders, words):
    tv = TextVariant(ws=ws, case=case, units=units, format_deleted=fmt, orders=orders, words=words)
    lower = {"case-folded": True, "case-not-folded": False}.get(case, params.lowercase)
    if case == "casefold-instead-of-lower":
        text = text.casefold()
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
    """Empty the n-gram profile cache when it holds more than ``limit`` entries (a long
    computation over a real corpus, e.g. the impact study, keeps memory bounded between
    systems this way); True when it was emptied.  Results never depend on the cache."""
    if _profile_cached.cache_info().currsize <= limit:
        return False
    _profile_cached.cache_clear()
    return True


@dataclass(frozen=True, slots=True)
class RawStats(SegmentStats):
    """Statistics plus the hypothesis's own n-gram total, which SegmentStats zeroes where
    the reference has no n-gram ("a" against "" must not count as an empty input)."""

    hyp_total: int = 0
    #: the hypothesis's own n-gram count per order (``hyp`` zeroes orders the reference lacks)
    hyp_orders: tuple = ()


def _match(hyp, ref, tv: TextVariant) -> RawStats:
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
    return RawStats(tuple(hs), rtot, tuple(ms), hall, tuple(htot))


def _reference_stats(hyp: str, refs: Sequence[str], params: ChrfParams) -> list[RawStats]:
    """The reference's own statistics (no text deviation), one per reference."""
    hp = TextProfile(hyp, params)
    total = sum(hp.totals)
    return [RawStats(s.hyp, s.ref, s.match, total, tuple(hp.totals))
            for s in (match_profiles(hp, TextProfile(r, params)) for r in refs)]


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
    return list(refs)


def read_segments(segments, tv: TextVariant) -> list[tuple[str, list[str]]]:
    """The segments an implementation with the layout deviations of ``tv`` actually scores:
    its references read per ``refs_layout``, its segments per ``corpus_layout`` (segments
    left without a reference are skipped)."""
    segs = [(h, list(rs)) for h, rs in segments]
    if tv.corpus_layout == "transposed":
        segs = list(zip([h for h, _ in segs], [list(s) for s in zip(*[rs for _, rs in segs])]))
    elif tv.corpus_layout == "first-segment":
        segs = segs[:1]
    elif tv.corpus_layout == "last-segment":
        segs = segs[-1:]
    if tv.refs_layout:
        segs = [(h, _refs_read(rs, tv.refs_layout)) for h, rs in segs]
    return [(h, rs) for h, rs in segs if rs]


def text_stats(segments, params: ChrfParams, tv: TextVariant) -> list[list[RawStats]]:
    """Per segment, per reference: the statistics under text variant ``tv`` (segments read
    through its layout deviations first; no segment left: an empty list)."""
    if tv == TextVariant():
        return [_reference_stats(hyp, refs, params) for hyp, refs in segments]
    if tv.refs_layout or tv.corpus_layout:
        segments = read_segments(segments, tv)
        tv = replace(tv, refs_layout=None, corpus_layout=None)
        if tv == TextVariant():
            return [_reference_stats(hyp, refs, params) for hyp, refs in segments]
    out = []
    for hyp, refs in segments:
        hp = _profile(hyp, params, tv)
        out.append([_match(hp, _profile(r, params, tv), tv) for r in refs])
    return out


# ---------------------------------------------------------------------------- score stage


def _empty(s: SegmentStats) -> bool:
    return not getattr(s, "hyp_total", sum(s.hyp)) and not any(s.ref)


def generic_score(s: SegmentStats, params: ChrfParams, v: ScoreVariant, level: str) -> Fraction:
    """One segment's (or summed) statistics scored under ``v`` by the models' own arithmetic.

    ``level`` matters for chrF++.py, whose sentence score has no epsilon substitutes and
    whose document score has them.  Integer arithmetic with one Fraction at the end.
    """
    effective = params.definition == "sacrebleu"
    eps = params.definition == "sacrebleu-eps" or (params.definition == "chrfpp" and level == "corpus")
    by_requested = (v.divisor or ("effective" if effective else "requested")) == "requested"
    average = v.average or ("pr" if effective else "f")
    beta = params.beta if v.beta is None else v.beta
    factor = beta if v.beta_not_squared else beta * beta
    fn, fd = factor.numerator, factor.denominator
    if v.empty_perfect and _empty(s):
        return Fraction(100)
    if average == "pooled":
        h, r, m = sum(s.hyp), sum(s.ref), sum(s.match)
        if not (h and r and m):
            return Fraction(0)
        if v.swapped:
            h, r = r, h
        # P = m/h, R = m/r: F = (1 + f) m / (f r + h)
        return Fraction(100 * (fd + fn) * m, fn * r + fd * h)
    k = sum(1 for h, r in zip(s.hyp, s.ref) if h and r)
    d = len(s.hyp) if by_requested else k
    if average == "pr":
        pn, pd, rn, rd = 0, 1, 0, 1
        for h, r, m in zip(s.hyp, s.ref, s.match):
            if h and r:
                pn, pd = pn * h + m * pd, pd * h
                rn, rd = rn * r + m * rd, rd * r
        if not k or not pn:
            return Fraction(0)
        if v.swapped:
            pn, pd, rn, rd = rn, rd, pn, pd
        # F = (1 + f) P R / (f P + R), P = pn / (pd d), R = rn / (rd d)
        return Fraction(100 * (fd + fn) * pn * rn, d * (fn * pn * rd + fd * rn * pd))
    if not d:
        return Fraction(0)
    sn, sd, n_eps = 0, 1, 0
    for h, r, m in zip(s.hyp, s.ref, s.match):
        if m:
            a, b = (h, r) if v.swapped else (r, h)
            tn, td = (fd + fn) * m, fn * a + fd * b  # per-order F = (1 + f) m / (f r + h)
            sn, sd = sn * td + tn * sd, sd * td
        elif (h and r) or (by_requested and not h and not r):
            n_eps += 1
    total = Fraction(sn, sd)
    if eps and n_eps:
        total += n_eps * EPSILON
    return total * 100 / d


def variant_sentence_score(s: SegmentStats, params: ChrfParams, v: ScoreVariant, level: str = "sentence") -> Fraction:
    """Statistics scored under ``v``: the reference's own functions when ``v`` deviates in
    nothing but its output."""
    if v.claimed_score():
        return sentence_fscore(s, params) if level == "sentence" else corpus_fscore(s, params)
    return generic_score(s, params, v, level)


def _add(stats: Sequence[SegmentStats], order: int) -> RawStats:
    hyp, ref, match, own, total = [0] * order, [0] * order, [0] * order, [0] * order, 0
    for s in stats:
        mine = getattr(s, "hyp_orders", ()) or s.hyp
        for i in range(order):
            hyp[i] += s.hyp[i]
            ref[i] += s.ref[i]
            match[i] += s.match[i]
            own[i] += mine[i]
        total += getattr(s, "hyp_total", sum(s.hyp))
    return RawStats(tuple(hyp), tuple(ref), tuple(match), total, tuple(own))


def _choose(cands: list, params: ChrfParams, v: ScoreVariant):
    """The statistics a segment uses (None: the segment contributes nothing)."""
    if v.references == "first" or len(cands) == 1 and v.references != "sentinel-zero":
        return cands[0]
    if v.claimed_score():
        return cands[select_reference(cands, params)]
    scores = [variant_sentence_score(c, params, v) for c in cands]
    best = max(scores)
    if v.references == "sentinel-zero" and best <= 0:
        return None
    return cands[scores.index(best)]


def variant_score(raw: list[list[SegmentStats]], params: ChrfParams, v: ScoreVariant, level: str) -> Fraction:
    """Exact score of the per-segment, per-reference statistics at ``level`` under ``v``
    (before its output deviations, see ``output``).  No segment at all (a layout deviation
    skipped every one) scores 0."""
    if not raw:
        return Fraction(0)
    order = len(raw[0][0].hyp)

    def sentence(cands) -> Fraction:
        if v.references == "mean" and len(cands) > 1:
            return sum(variant_sentence_score(c, params, v) for c in cands) / len(cands)
        chosen = _choose(cands, params, v)
        return variant_sentence_score(chosen if chosen is not None else _add([], order), params, v)

    if level == "sentence":
        return sentence(raw[0])
    if v.macro:
        return sum(sentence(c) for c in raw) / len(raw)
    if v.references == "mean" and min(map(len, raw)) > 1:
        k = min(map(len, raw))
        return sum(variant_sentence_score(_add([seg[j] for seg in raw], order), params, v, level)
                   for j in range(k)) / k
    chosen = [c for c in (_choose(seg, params, v) for seg in raw) if c is not None]
    if v.unmatched_dropped:
        zero = (0,) * order
        chosen = [RawStats(getattr(c, "hyp_orders", ()) or c.hyp if v.unmatched_dropped == "all" else c.hyp,
                           zero, zero, getattr(c, "hyp_total", sum(c.hyp)))
                  if all(not any(x.match) for x in seg) else c for c, seg in zip(chosen, raw)]
    return variant_sentence_score(_add(chosen, order), params, v, level)


# --------------------------------------------------------------------------- output stage

#: How far float32 arithmetic throughout may move a 0..100 score: ~64 roundings of 2**-24.
FLOAT32_BOUND = 100 * 64 * 2.0 ** -24


def float32(x: float) -> float:
    return struct.unpack("f", struct.pack("f", x))[0]


def output(value: Fraction, v: ScoreVariant, scale: int) -> float:
    """The number an implementation with output deviation ``v`` returns for exact ``value``."""
    if v.rounding is None:
        return float(value)
    if v.rounding < 0:
        return float32(float(value))
    return round(float(value) * scale / 100, v.rounding) * 100 / scale


def agrees(value: Fraction, v: ScoreVariant, actual: float, scale: int, tolerance: float) -> bool:
    """Does an implementation with variant ``v`` (exact score ``value``) answer ``actual``?"""
    if v.float32:
        return abs(float(value) - actual) <= max(tolerance, FLOAT32_BOUND * max(1.0, abs(float(value)) / 100))
    return abs(output(value, v, scale) - actual) <= tolerance


def predict(segments, params: ChrfParams, level: str, variant) -> Fraction:
    """Exact score of a variant ``(TextVariant, ScoreVariant)`` on any input (the residual
    of confirmed explanations, and their predictions on held-out inputs)."""
    tv, sv = variant
    return variant_score(text_stats(segments, params, tv), params, sv, level)


def predicted_output(segments, params: ChrfParams, level: str, variant, scale: int = 100) -> float:
    """The number a variant's implementation returns on ``segments`` (output deviations applied)."""
    return output(predict(segments, params, level, variant), variant[1], scale)

