"""Exact bug models: the known ways a chrF implementation departs from its definition.

Each deviation is one small change to the reference computation, named by its family id
(``audit.families``).  A divergence is *explained* by the smallest set of deviations whose
exact score reproduces the implementation's output on that input (within the tolerance).

The computation is split in two stages so that explaining a divergence is cheap:

* text deviations (whitespace set, case, code units, n-gram orders, word tokenization,
  clipping, uncounted hypothesis n-grams) change the integer statistics, so each
  combination of them re-counts the input once, and only deviations that change the
  statistics *on this input* are considered;
* score deviations (divisor, averaging, beta, swap, empty input, reference selection,
  corpus aggregation, rounding) are functions of those statistics, computed with Fractions.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import unicodedata
from collections import Counter
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Optional, Sequence

from reference_impl import ChrfParams, SegmentStats
from reference_impl.text import ASCII_PUNCTUATION

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


@dataclass(frozen=True)
class TextVariant:
    """How an implementation turns text into n-gram statistics (None = as claimed)."""

    ws: Optional[str] = None  # a WHITESPACE_SETS key, or "whitespace-kept"
    case: Optional[str] = None  # "case-folded" | "case-not-folded" | "casefold-instead-of-lower"
    units: Optional[str] = None  # "utf8-bytes" | "utf16-code-units" | "NFC" | "NFD" | "NFKC" | "NFKD"
    orders: Optional[str] = None  # "minus-one" | "plus-one" | "from-two"
    words: Optional[str] = None  # "word-punctuation-not-split" | "word-punctuation-split-both"
    clip: bool = True
    hyp_where_no_ref: bool = False

    def families(self) -> list[str]:
        out = []
        if self.ws:
            out.append(self.ws)
        if self.case:
            out.append(self.case)
        if self.units:
            out.append(self.units if self.units in ("utf8-bytes", "utf16-code-units") else "unicode-normalization")
        if self.orders:
            out.append("wrong-ngram-orders")
        if self.words:
            out.append(self.words)
        if not self.clip:
            out.append("no-clipping")
        if self.hyp_where_no_ref:
            out.append("hypothesis-ngrams-where-reference-has-none")
        return out


@dataclass(frozen=True)
class ScoreVariant:
    """How an implementation turns statistics into a score (None/False = as claimed)."""

    divisor: Optional[str] = None  # "requested" | "effective"
    average: Optional[str] = None  # "f" | "pr"
    beta_not_squared: bool = False
    swapped: bool = False
    empty_perfect: bool = False
    references: Optional[str] = None  # "first" | "mean"
    macro: bool = False


def _text_alternatives(params: ChrfParams) -> list[tuple[str, object]]:
    """(field, value) pairs: each one deviation of the text stage, applicable to params."""
    alts: list[tuple[str, object]] = []
    if params.whitespace:
        alts.append(("ws", "whitespace-removed"))
    else:
        alts += [("ws", k) for k in WHITESPACE_SETS if k not in ("whitespace-removed", "whitespace-set-isspace")]
        if params.definition == "chrfpp":  # chrF++.py removes only U+0020 (and strips)
            alts.append(("ws", "whitespace-set-isspace"))
        alts.append(("ws", "whitespace-kept"))
    if params.lowercase:
        alts += [("case", "case-not-folded"), ("case", "casefold-instead-of-lower")]
    else:
        alts.append(("case", "case-folded"))
    alts += [("units", u) for u in ("utf8-bytes", "utf16-code-units", "NFC", "NFD", "NFKC", "NFKD")]
    alts += [("orders", o) for o in ("minus-one", "plus-one", "from-two") if not (o == "minus-one" and params.char_order == 1)]
    if params.word_order:
        alts += [("words", "word-punctuation-not-split"), ("words", "word-punctuation-split-both")]
    alts += [("clip", False), ("hyp_where_no_ref", True)]
    return alts


def _score_alternatives(params: ChrfParams, level: str, nrefs: int, nsegs: int) -> list[tuple[str, object]]:
    effective = params.definition == "sacrebleu"
    alts: list[tuple[str, object]] = [
        ("divisor", "requested" if effective else "effective"),
        ("average", "f" if effective else "pr"),
        ("swapped", True),
        ("empty_perfect", True),
    ]
    if params.beta != 1:
        alts.append(("beta_not_squared", True))
    if nrefs > 1:
        alts += [("references", "first"), ("references", "mean")]
    if level == "corpus" and nsegs > 1:
        alts.append(("macro", True))
    return alts


def score_families(v: ScoreVariant, params: ChrfParams) -> list[str]:
    out = []
    if v.divisor:
        out.append("requested-order-divisor" if v.divisor == "requested" else "effective-order-divisor")
    if v.average:
        out.append("f-score-averaged" if v.average == "f" else "precision-recall-averaged")
    if v.beta_not_squared:
        out.append("beta-not-squared")
    if v.swapped:
        out.append("precision-recall-swapped")
    if v.empty_perfect:
        out.append("empty-input-perfect")
    if v.references:
        out.append("first-reference-only" if v.references == "first" else "references-averaged")
    if v.macro:
        out.append("corpus-macro-average")
    return out


# ----------------------------------------------------------------------------- text stage


def _units(text: str, tv: TextVariant):
    if tv.units == "utf8-bytes":
        return text.encode("utf-8", "surrogatepass")  # lone surrogates: 3 bytes each
    if tv.units == "utf16-code-units":
        raw = text.encode("utf-16-le", "surrogatepass")
        return tuple(int.from_bytes(raw[i : i + 2], "little") for i in range(0, len(raw), 2))
    return text


def _chars(text: str, params: ChrfParams, tv: TextVariant) -> str:
    if tv.ws == "whitespace-kept":
        return text
    if tv.ws:
        removed = WHITESPACE_SETS[tv.ws]
        return "".join(c for c in text if c not in removed)
    if params.whitespace:
        return text
    if params.definition == "chrfpp":
        return text.strip().replace(" ", "")
    return "".join(text.split())


def _words(text: str, tv: TextVariant) -> list[str]:
    out: list[str] = []
    for w in text.split():
        if tv.words == "word-punctuation-not-split" or len(w) == 1:
            out.append(w)
        elif tv.words == "word-punctuation-split-both":
            head = [w[0]] if w[0] in ASCII_PUNCTUATION else []
            core = w[len(head):]
            tail = [core[-1]] if len(core) > 1 and core[-1] in ASCII_PUNCTUATION else []
            core = core[: len(core) - len(tail)]
            out += head + ([core] if core else []) + tail
        elif w[-1] in ASCII_PUNCTUATION:
            out += [w[:-1], w[-1]]
        elif w[0] in ASCII_PUNCTUATION:
            out += [w[0], w[1:]]
        else:
            out.append(w)
    return out


def _char_orders(params: ChrfParams, tv: TextVariant) -> range:
    nc = params.char_order
    if tv.orders == "minus-one":
        return range(1, nc)
    if tv.orders == "plus-one":
        return range(1, nc + 2)
    if tv.orders == "from-two":
        return range(2, nc + 2)
    return range(1, nc + 1)


def _profile(text: str, params: ChrfParams, tv: TextVariant):
    """Per-order n-gram counters and totals of one text (cached: the same texts are counted
    under many variants, and clipping/counting variants share the text's counters)."""
    return _profile_cached(text, params, tv.ws, tv.case, tv.units, tv.orders, tv.words)


@functools.lru_cache(maxsize=1 << 16)
def _profile_cached(text, params, ws, case, units, orders, words):
    tv = TextVariant(ws=ws, case=case, units=units, orders=orders, words=words)
    lower = params.lowercase
    if case == "case-folded":
        lower = True
    elif case == "case-not-folded":
        lower = False
    if case == "casefold-instead-of-lower":
        text = text.casefold()
    elif lower:
        text = text.lower()
    if units in ("NFC", "NFD", "NFKC", "NFKD"):
        text = unicodedata.normalize(units, text)
    seq = _units(_chars(text, params, tv), tv)
    counters = [Counter([seq[i : i + n] for i in range(len(seq) - n + 1)]) for n in _char_orders(params, tv)]
    if params.word_order:
        toks = _words(text, tv)
        counters += [
            Counter([" ".join(toks[i : i + n]) for i in range(len(toks) - n + 1)])
            for n in range(1, params.word_order + 1)
        ]
    totals = tuple(sum(c.values()) for c in counters)
    return tuple(counters), totals, sum(totals)


@dataclass(frozen=True, slots=True)
class RawStats(SegmentStats):
    """Statistics plus the hypothesis's own n-gram total, which SegmentStats zeroes where
    the reference has no n-gram ("a" against "" must not count as an empty input)."""

    hyp_total: int = 0


def _match(hyp, ref, tv: TextVariant) -> SegmentStats:
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
    return RawStats(tuple(hs), rtot, tuple(ms), hall)


def text_stats(segments, params: ChrfParams, tv: TextVariant) -> list[list[SegmentStats]]:
    """Per segment, per reference: the statistics under text variant ``tv``."""
    out = []
    for hyp, refs in segments:
        hp = _profile(hyp, params, tv)
        out.append([_match(hp, _profile(r, params, tv), tv) for r in refs])
    return out


# ---------------------------------------------------------------------------- score stage


def variant_sentence_score(s: SegmentStats, params: ChrfParams, v: ScoreVariant) -> Fraction:
    """One segment's (or summed) statistics scored under the score variant, on 0..100.

    Integer arithmetic with one Fraction at the end, as in reference_impl.scoring: this is
    evaluated hundreds of times per explained divergence.
    """
    effective = params.definition == "sacrebleu"
    by_requested = (v.divisor or ("effective" if effective else "requested")) == "requested"
    average = v.average or ("pr" if effective else "f")
    factor = params.beta if v.beta_not_squared else params.beta * params.beta
    fn, fd = factor.numerator, factor.denominator
    if v.empty_perfect and not getattr(s, "hyp_total", sum(s.hyp)) and not any(s.ref):
        return Fraction(100)
    k = 0
    if average == "pr":
        pn, pd, rn, rd = 0, 1, 0, 1
        for h, r, m in zip(s.hyp, s.ref, s.match):
            if h and r:
                k += 1
                pn, pd = pn * h + m * pd, pd * h
                rn, rd = rn * r + m * rd, rd * r
        d = len(s.hyp) if by_requested else k
        if not k or not pn:
            return Fraction(0)
        if v.swapped:
            pn, pd, rn, rd = rn, rd, pn, pd
        # F = (1 + f) P R / (f P + R), P = pn / (pd d), R = rn / (rd d), f = fn / fd
        return Fraction(100 * (fd + fn) * pn * rn, d * (fn * pn * rd + fd * rn * pd))
    sn, sd = 0, 1
    for h, r, m in zip(s.hyp, s.ref, s.match):
        if h and r:
            k += 1
            if m:
                # per-order F = (1 + f) m / (f r + h); swapped: (1 + f) m / (f h + r)
                a, b = (h, r) if v.swapped else (r, h)
                tn, td = (fd + fn) * m, fn * a + fd * b
                sn, sd = sn * td + tn * sd, sd * td
    d = len(s.hyp) if by_requested else k
    if not k:
        return Fraction(0)
    return Fraction(100 * sn, sd * d)


def _relevant_score_alternatives(raw: list[list[SegmentStats]], alts, params: ChrfParams):
    """Score deviations that can change a score computed from these statistics.

    Each test is structural (it holds in any combination): the divisor matters only where
    some order is not effective, the averaging only where some P_n != R_n, beta and the swap
    only where beta != 1 and P_n != R_n, the empty-input rule only for an empty segment,
    reference selection only where references give different statistics.
    """
    flat = [c for seg in raw for c in seg]
    pool = list(flat)
    if len(flat) > 1:
        pool.append(SegmentStats(tuple(map(sum, zip(*(x.hyp for x in flat)))),
                                 tuple(map(sum, zip(*(x.ref for x in flat)))),
                                 tuple(map(sum, zip(*(x.match for x in flat))))))
    partial = any(any(h and r for h, r in zip(x.hyp, x.ref)) and not all(h and r for h, r in zip(x.hyp, x.ref)) for x in pool)
    unequal = any(h and r and m * r != m * h for x in pool for h, r, m in zip(x.hyp, x.ref, x.match))
    empty = any(not getattr(x, "hyp_total", sum(x.hyp)) and not any(x.ref) for x in flat)
    refs_differ = any(len(set(seg)) > 1 for seg in raw)
    keep = []
    for f, val in alts:
        if f == "divisor" and not partial:
            continue
        if f == "average" and not unequal:
            continue
        if f in ("swapped", "beta_not_squared") and (params.beta == 1 or not unequal):
            continue
        if f == "empty_perfect" and not empty:
            continue
        if f == "references" and not refs_differ:
            continue
        keep.append((f, val))
    return keep


def _add(stats: Sequence[SegmentStats]) -> SegmentStats:
    it = iter(stats)
    acc = next(it)
    total = getattr(acc, "hyp_total", sum(acc.hyp))
    for s in it:
        acc = acc + s
        total += getattr(s, "hyp_total", sum(s.hyp))
    return RawStats(acc.hyp, acc.ref, acc.match, total)


def variant_score(raw: list[list[SegmentStats]], params: ChrfParams, v: ScoreVariant, level: str) -> Fraction:
    """Score of the per-segment, per-reference statistics at ``level`` under ``v``."""

    def choose(cands: list[SegmentStats]) -> SegmentStats:
        if v.references == "first" or len(cands) == 1:
            return cands[0]
        scores = [variant_sentence_score(c, params, v) for c in cands]
        if params.definition == "chrfpp" and max(scores) <= 0:
            return cands[0]
        return cands[scores.index(max(scores))]

    def sentence(cands: list[SegmentStats]) -> Fraction:
        if v.references == "mean" and len(cands) > 1:
            return sum(variant_sentence_score(c, params, v) for c in cands) / len(cands)
        return variant_sentence_score(choose(cands), params, v)

    if level == "sentence":
        return sentence(raw[0])
    if v.macro:
        return sum(sentence(c) for c in raw) / len(raw)
    if v.references == "mean" and len(raw[0]) > 1:
        k = len(raw[0])
        return sum(variant_sentence_score(_add([seg[j] for seg in raw]), params, v) for j in range(k)) / k
    return variant_sentence_score(_add([choose(c) for c in raw]), params, v)


# ------------------------------------------------------------------------------- explain


def rounded_matches(value: Fraction, actual: float, scale: int, tol: float) -> Optional[int]:
    """Decimals k at which ``value`` rounded on the implementation's scale gives ``actual``
    (-1: float32), or None.  Float arithmetic is enough: k <= 8 decimals on 0..100."""
    exact = float(value)
    if abs(exact - actual) > 50.0 * 100 / scale:  # more than any rounding can move it
        return None
    own = exact * scale / 100
    # Coarser than whole points on 0..100 is not "precision loss" but a different score.
    for k in range(0 if scale == 100 else 2, 9):
        if abs(round(own, k) * 100 / scale - actual) <= tol:
            return k
    if abs(_float32(exact) - actual) <= tol:
        return -1
    return None


def _float32(x: float) -> float:
    import struct

    return struct.unpack("f", struct.pack("f", x))[0]


@dataclass
class Explanation:
    families: list[str]
    value: Fraction
    detail: str = ""
    variant: tuple = ()  # (TextVariant, ScoreVariant), to predict other inputs


def explain(
    segments: list[tuple[str, list[str]]],
    params: ChrfParams,
    level: str,
    actual: float,
    tolerance: float,
    scale: int = 100,
    max_size: int = 4,
    hints=(),
):
    """Yield, by increasing size, the lists of deviation sets whose exact score is within
    ``tolerance`` of ``actual`` on this input.

    The caller takes the first list whose members survive confirmation (a coincidence on
    one input does not survive a perturbed input, see ``Checker``), and disambiguates
    between survivors of one size (an input whose only whitespace is U+001C cannot tell "only
    U+0020 removed" from "White_Space removed").  The order within a list is fixed (text
    deviations before score deviations), so classification is deterministic.  A rounding
    explanation counts as one more deviation.

    ``hints`` are explanations already confirmed for this implementation, tried first: when
    one of size s reproduces ``actual``, only the sizes below s need an exhaustive search
    (which keeps the answer minimal) before it is offered.
    """
    base_tv = TextVariant()
    stats_cache: dict[TextVariant, list[list[SegmentStats]]] = {}

    def stats(tv: TextVariant):
        if tv not in stats_cache:
            stats_cache[tv] = text_stats(segments, params, tv)
        return stats_cache[tv]

    base = stats(base_tv)
    # Only text deviations that change the statistics of this very input can matter.
    text_alts = [(f, val) for f, val in _text_alternatives(params) if stats(replace(base_tv, **{f: val})) != base]
    nrefs = len(segments[0][1])
    score_alts = _score_alternatives(params, level, nrefs, len(segments))
    relevant_cache: dict[TextVariant, list] = {}

    def relevant(tv: TextVariant):
        if tv not in relevant_cache:
            relevant_cache[tv] = _relevant_score_alternatives(stats(tv), score_alts, params)
        return relevant_cache[tv]

    hinted = _hinted(hints, stats, params, level, actual, tolerance, segments)
    pending_rounded: list[Explanation] = []
    for size in range(0, max_size + 1):
        offered = [e for e in hinted if len(e.families) == size]
        if offered:
            yield _unique(pending_rounded + offered)
        exact: list[Explanation] = []
        rounded: list[Explanation] = []
        for n_text in range(size, -1, -1):
            for tcombo in itertools.combinations(text_alts, n_text):
                fields = [f for f, _ in tcombo]
                if len(set(fields)) != len(fields):
                    continue  # two values for one field are mutually exclusive
                tv = replace(base_tv, **dict(tcombo))
                for scombo in itertools.combinations(relevant(tv), size - n_text):
                    sfields = [f for f, _ in scombo]
                    if len(set(sfields)) != len(sfields):
                        continue
                    sv = ScoreVariant(**dict(scombo))
                    value = variant_score(stats(tv), params, sv, level)
                    fams = tv.families() + score_families(sv, params)
                    if abs(float(value) - actual) <= tolerance:
                        exact.append(Explanation(fams, value, variant=(tv, sv)))
                    elif size < max_size:
                        k = rounded_matches(value, actual, scale, tolerance)
                        if k is not None:
                            detail = "float32" if k < 0 else f"rounded to {k} decimals on its 0..{scale} scale"
                            rounded.append(Explanation(fams + ["precision-loss"], value, detail, variant=(tv, sv)))
        found = _unique(pending_rounded + exact)
        if found:
            yield found
        pending_rounded = rounded


def _hinted(hints, stats, params: ChrfParams, level: str, actual: float, tolerance: float, segments) -> list[Explanation]:
    """The hints that apply to this input's parameters and level and reproduce ``actual``."""
    if not hints:
        return []
    text_ok = set(_text_alternatives(params))
    score_ok = set(_score_alternatives(params, level, len(segments[0][1]), len(segments)))
    out = []
    for tv, sv in hints:
        t_changes = [(f.name, getattr(tv, f.name)) for f in dataclasses.fields(TextVariant)
                     if getattr(tv, f.name) != f.default]
        s_changes = [(f.name, getattr(sv, f.name)) for f in dataclasses.fields(ScoreVariant)
                     if getattr(sv, f.name) != f.default]
        if not all(c in text_ok for c in t_changes) or not all(c in score_ok for c in s_changes):
            continue
        value = variant_score(stats(tv), params, sv, level)
        if abs(float(value) - actual) <= tolerance:
            out.append(Explanation(tv.families() + score_families(sv, params), value, variant=(tv, sv)))
    return out


def _unique(exps: list[Explanation]) -> list[Explanation]:
    seen, out = set(), []
    for e in exps:
        k = tuple(e.families)
        if k not in seen:
            seen.add(k)
            out.append(e)
    return out


def predict(segments, params: ChrfParams, level: str, variant) -> Fraction:
    """Score of an explanation's variant on other inputs (for probing)."""
    tv, sv = variant
    return variant_score(text_stats(segments, params, tv), params, sv, level)


def extends(explanation: Explanation, segments, params: ChrfParams, level: str, actual: float, scale: int,
            tolerance: float, extra: int = 2) -> bool:
    """Does the explanation plus at most ``extra`` further deviations give ``actual`` here?

    Used to confirm an explanation on a perturbed copy of its input: the copy may need
    deviations the original did not (a copy where P != R shows F-averaging too).
    """
    tv0, sv0 = explanation.variant
    rounding = "precision-loss" in explanation.families
    nrefs = len(segments[0][1])
    alts = [("t", f, v) for f, v in _text_alternatives(params) if getattr(tv0, f) == getattr(TextVariant(), f)]
    alts += [("s", f, v) for f, v in _score_alternatives(params, level, nrefs, len(segments))
             if getattr(sv0, f) == getattr(ScoreVariant(), f)]
    stats_cache: dict = {}
    for size in range(0, extra + 1):
        for combo in itertools.combinations(alts, size):
            fields = [c[1] for c in combo]
            if len(set(fields)) != len(fields):
                continue
            tv = replace(tv0, **{f: v for k, f, v in combo if k == "t"})
            sv = replace(sv0, **{f: v for k, f, v in combo if k == "s"})
            if tv not in stats_cache:
                stats_cache[tv] = text_stats(segments, params, tv)
            value = variant_score(stats_cache[tv], params, sv, level)
            if abs(float(value) - actual) <= tolerance:
                return True
            if (rounding or size < extra) and rounded_matches(value, actual, scale, tolerance) is not None:
                return True
    return False


def reproduces(explanation: Explanation, segments, params: ChrfParams, level: str, actual: float,
               scale: int, tolerance: float) -> bool:
    """Does the explanation's model give ``actual`` on these (other) inputs?"""
    value = predict(segments, params, level, explanation.variant)
    if "precision-loss" in explanation.families:
        return rounded_matches(value, actual, scale, tolerance) is not None or abs(float(value) - actual) <= tolerance
    return abs(float(value) - actual) <= tolerance
