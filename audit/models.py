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
_ISSPACE = frozenset(chr(c) for c in range(0x110000) if chr(c).isspace())
WHITESPACE_SETS = {
    "whitespace-set-ascii-space": frozenset(" "),
    "whitespace-set-ascii": frozenset(" \t\n\r\x0b\x0c"),
    "whitespace-set-white-space": _ISSPACE - frozenset("\x1c\x1d\x1e\x1f"),
    "whitespace-removed": _ISSPACE,
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
        alts += [("ws", k) for k in WHITESPACE_SETS if k != "whitespace-removed"]
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
        return text.encode("utf-8")
    if tv.units == "utf16-code-units":
        raw = text.encode("utf-16-le")
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


def _profile(text: str, params: ChrfParams, tv: TextVariant) -> list[Counter]:
    lower = params.lowercase
    if tv.case == "case-folded":
        lower = True
    elif tv.case == "case-not-folded":
        lower = False
    if tv.case == "casefold-instead-of-lower":
        text = text.casefold()
    elif lower:
        text = text.lower()
    if tv.units in ("NFC", "NFD", "NFKC", "NFKD"):
        text = unicodedata.normalize(tv.units, text)
    seq = _units(_chars(text, params, tv), tv)
    counters = [Counter(seq[i : i + n] for i in range(len(seq) - n + 1)) for n in _char_orders(params, tv)]
    if params.word_order:
        toks = _words(text, tv)
        counters += [
            Counter(" ".join(toks[i : i + n]) for i in range(len(toks) - n + 1))
            for n in range(1, params.word_order + 1)
        ]
    return counters


@dataclass(frozen=True, slots=True)
class RawStats(SegmentStats):
    """Statistics plus the hypothesis's own n-gram total, which SegmentStats zeroes where
    the reference has no n-gram ("a" against "" must not count as an empty input)."""

    hyp_total: int = 0


def _match(hyp: list[Counter], ref: list[Counter], tv: TextVariant) -> SegmentStats:
    hs, rs, ms = [], [], []
    for hc, rc in zip(hyp, ref):
        h, r = sum(hc.values()), sum(rc.values())
        common = hc.keys() & rc.keys()
        if tv.clip:
            m = sum(min(hc[g], rc[g]) for g in common)
        else:
            m = sum(hc[g] for g in common)
        hs.append(h if (r or tv.hyp_where_no_ref) else 0)
        rs.append(r)
        ms.append(m)
    return RawStats(tuple(hs), tuple(rs), tuple(ms), sum(sum(c.values()) for c in hyp))


def text_stats(segments, params: ChrfParams, tv: TextVariant) -> list[list[SegmentStats]]:
    """Per segment, per reference: the statistics under text variant ``tv``."""
    out = []
    for hyp, refs in segments:
        hp = _profile(hyp, params, tv)
        out.append([_match(hp, _profile(r, params, tv), tv) for r in refs])
    return out


# ---------------------------------------------------------------------------- score stage


def variant_sentence_score(s: SegmentStats, params: ChrfParams, v: ScoreVariant) -> Fraction:
    """One segment's (or summed) statistics scored under the score variant, on 0..100."""
    effective = params.definition == "sacrebleu"
    divisor = v.divisor or ("effective" if effective else "requested")
    average = v.average or ("pr" if effective else "f")
    factor = params.beta if v.beta_not_squared else params.beta * params.beta
    rows = list(zip(s.hyp, s.ref, s.match))
    if v.empty_perfect and not getattr(s, "hyp_total", sum(s.hyp)) and not any(s.ref):
        return Fraction(100)
    eff = [(h, r, m) for h, r, m in rows if h and r]
    d = len(eff) if divisor == "effective" else len(rows)
    if not eff or d == 0:
        return Fraction(0)
    pairs = [(Fraction(m, h), Fraction(m, r)) for h, r, m in eff]
    if v.swapped:
        pairs = [(r, p) for p, r in pairs]
    if average == "pr":
        p = sum(pp for pp, _ in pairs) / d
        r = sum(rr for _, rr in pairs) / d
        if p + r == 0:
            return Fraction(0)
        return 100 * (1 + factor) * p * r / (factor * p + r)
    total = Fraction(0)
    for p, r in pairs:
        if p + r:
            total += (1 + factor) * p * r / (factor * p + r)
    return 100 * total / d


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
):
    """Yield, by increasing size, the lists of deviation sets whose exact score is within
    ``tolerance`` of ``actual`` on this input.

    The caller takes the first list whose members survive confirmation (a coincidence on
    one input does not survive a perturbed input, see ``Checker``), and disambiguates
    between survivors of one size (an input whose only whitespace is U+001C cannot tell "only
    U+0020 removed" from "White_Space removed").  The order within a list is fixed (text
    deviations before score deviations), so classification is deterministic.  A rounding
    explanation counts as one more deviation.
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
    alts = [("t", f, val) for f, val in text_alts] + [("s", f, val) for f, val in score_alts]

    pending_rounded: list[Explanation] = []
    for size in range(0, max_size + 1):
        exact: list[Explanation] = []
        rounded: list[Explanation] = []
        for combo in itertools.combinations(alts, size):
            fields = [c[1] for c in combo]
            if len(set(fields)) != len(fields):
                continue  # two values for one field are mutually exclusive
            tv = replace(base_tv, **{f: val for kind, f, val in combo if kind == "t"})
            sv = ScoreVariant(**{f: val for kind, f, val in combo if kind == "s"})
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


def reproduces(explanation: Explanation, segments, params: ChrfParams, level: str, actual: float,
               scale: int, tolerance: float) -> bool:
    """Does the explanation's model give ``actual`` on these (other) inputs?"""
    value = predict(segments, params, level, explanation.variant)
    if "precision-loss" in explanation.families:
        return rounded_matches(value, actual, scale, tolerance) is not None or abs(float(value) - actual) <= tolerance
    return abs(float(value) - actual) <= tolerance
