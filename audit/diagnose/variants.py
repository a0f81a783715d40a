"""The stage variants of an implementation: ``TextVariant`` (how text becomes integer
statistics) and ``ScoreVariant`` (how statistics become the number), each field one stage's
choice; the defaults are the reference itself.  A catalogued family is one (field, value) of
one of them (``audit.diagnose.deviations``); ``families()`` names a variant's deviations."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Optional

from . import deviations

#: Code points removed by each whitespace family (the claimed definitions' own sets live in
#: reference_impl.text).
_ISSPACE = frozenset(chr(c) for c in range(0x3001) if chr(c).isspace())  # all 29 lie below U+3001
#: Runtimes' documented whitespace predicates (issue 41): Java's ``Character.isWhitespace``
#: (SPACE_SEPARATOR, LINE_SEPARATOR, PARAGRAPH_SEPARATOR but not the no-break spaces U+00A0,
#: U+2007, U+202F; and U+0009-U+000D, U+001C-U+001F); JavaScript's ``\s`` (ECMA-262
#: WhiteSpace and LineTerminator: U+0009, U+000B, U+000C, U+0020, U+00A0, U+FEFF, every Zs,
#: U+000A, U+000D, U+2028, U+2029), which ``trim()`` and ``split(/\s+/)`` use.
_ZS = frozenset("\u0020\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
                "\u202f\u205f\u3000")
JAVA_WHITESPACE = (_ZS - frozenset("\u00a0\u2007\u202f")) | frozenset("\u2028\u2029\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f")
JS_WHITESPACE = _ZS | frozenset("\t\n\x0b\x0c\r\ufeff\u2028\u2029")
WHITESPACE_SETS = {
    "whitespace-set-ascii-space": frozenset(" "),
    # C isspace() in the C locale, Java's regex \s, Python's string.whitespace
    "whitespace-set-ascii": frozenset(" \t\n\r\x0b\x0c"),
    # Unicode White_Space: Rust char::is_whitespace, Go unicode.IsSpace, the regex module's \s
    "whitespace-set-white-space": _ISSPACE - frozenset("\x1c\x1d\x1e\x1f"),
    "whitespace-set-java": JAVA_WHITESPACE,
    "whitespace-set-javascript": JS_WHITESPACE,
    "whitespace-removed": _ISSPACE,
    "whitespace-set-isspace": _ISSPACE,
}
#: The runtime behaviour each model of a text-stage axis is (what a finding's evidence names):
#: (field, value) -> the runtimes' documented functions that behave so.
RUNTIMES = {
    ("ws", "whitespace-set-ascii"): "C isspace() in the C locale, Java's regex \\s",
    ("ws", "whitespace-set-white-space"): "Rust char::is_whitespace, Go unicode.IsSpace",
    ("ws", "whitespace-set-java"): "Java Character.isWhitespace",
    ("ws", "whitespace-set-javascript"): "JavaScript \\s, String.prototype.trim",
    ("case", "lower-simple"): "Go unicode.ToLower, Java Character.toLowerCase(int)",
    ("case", "lower-per-character"): "Rust char::to_lowercase",
    ("case", "lower-ascii"): "C tolower() in the C locale, Rust to_ascii_lowercase",
    ("units", "utf8-bytes"): "Go, Rust and C++ byte strings",
    ("units", "utf16-code-units"): "Java and JavaScript strings",
}


def runtime_of(variant) -> str:
    """The runtime behaviours a variant's text stage models ("" when none is a runtime's)."""
    tv = variant[0] if isinstance(variant, tuple) else variant
    out = [f"{value} ({RUNTIMES[(name, value)]})" for name in ("ws", "case", "units")
           for value in [getattr(tv, name, None)] if (name, value) in RUNTIMES]
    return "; ".join(out)
#: Format characters deleted by text normalizers: the byte-order mark alone, or with the
#: zero-width (non-)joiners and the direction marks.
FORMAT_SETS = {"bom": frozenset("\ufeff"), "format": frozenset("\ufeff\u200c\u200d\u200e\u200f")}


@dataclass(frozen=True)
class TextVariant:
    """How an implementation turns text into n-gram statistics (None = as claimed)."""

    #: a WHITESPACE_SETS key, "whitespace-kept", "whitespace-stripped-ends-only" or
    #: "whitespace-collapsed" (runs of whitespace made one space, the ends stripped)
    ws: Optional[str] = None
    #: "case-folded" | "case-not-folded" | "casefold-instead-of-lower" | a lowercase mapping
    #: other than str.lower(): "lower-simple" (one code point to one: U+0130 -> i, no final
    #: sigma), "lower-per-character" (each code point lowered alone: no final sigma),
    #: "lower-ascii" (A-Z only)
    case: Optional[str] = None
    units: Optional[str] = None  # "utf8-bytes" | "utf16-code-units" | "NFC" | "NFD" | "NFKC" | "NFKD"
    format_deleted: Optional[str] = None  # a FORMAT_SETS key
    orders: Optional[str] = None  # "minus-one" | "plus-one" | "from-two"
    #: "word-punctuation-not-split" | "word-punctuation-split-both" | (a rival, no family)
    #: "regex-word-runs": the tokens of ``re.findall(r"\w+|[^\w\s]", text)``
    words: Optional[str] = None
    clip: bool = True
    hyp_where_no_ref: bool = False
    #: how a segment's references are read: "first-character" / "characters" (a reference
    #: string iterated as a list of references), "joined" (one reference, joined with a
    #: space), "empty-dropped" (empty references removed; a segment left with none is
    #: skipped), "first-2" / "first-3" / "first-4" (the references after the first K ignored)
    refs_layout: Optional[str] = None
    #: how a corpus's segments are read: "transposed" (``zip(*references)``, sacreBLEU's
    #: reference streams), "first-segment" / "last-segment" (one segment scored); (a rival,
    #: no family) "batches-2" / "batches-4" / "batches-8": segments read in batches of K, an
    #: incomplete last batch dropped
    corpus_layout: Optional[str] = None
    #: texts cut to their first N code points before anything else: ("hypothesis", N) or
    #: ("both", N)
    truncate: Optional[tuple] = None

    def families(self) -> list[str]:
        return _families(self, "text")


@dataclass(frozen=True)
class ScoreVariant:
    """How an implementation turns statistics into a score (None/False = as claimed)."""

    #: "requested" | "effective" | "reference" (the orders the reference has n-grams of: the
    #: requested orders capped by the reference's length)
    divisor: Optional[str] = None
    #: "f" | "pr" | "pooled" | "char-word-mean" (chrF++: the mean of the character F and the
    #: word F, each from its own orders)
    average: Optional[str] = None
    #: an order without n-grams scores 1 and every requested order counts: "both" (P = R = 1
    #: where neither side has an n-gram of that order), "side" (P = 1 where the hypothesis has
    #: none, R = 1 where the reference has none)
    empty_order: Optional[str] = None
    beta: Optional[Fraction] = None  # a beta other than the claimed one
    beta_not_squared: bool = False
    swapped: bool = False
    empty_perfect: bool = False
    #: "first" | "mean" | "sentinel-zero" | (a rival, no family) "tie-last": of references
    #: tied at the best score the last one is used
    references: Optional[str] = None
    #: the corpus score as a mean of segment scores: True (plain mean), "hypothesis-length" /
    #: "reference-length" (weighted by the hypothesis's / first reference's length in code
    #: points, at least 1)
    macro: object = False
    #: corpus: a segment matching none of its references adds its hypothesis n-grams but no
    #: reference n-grams (torchmetrics: no best reference is chosen for it).  True: the
    #: hypothesis n-grams of the orders the first reference has (as statistics are kept);
    #: "all": every hypothesis n-gram
    unmatched_dropped: object = False
    # -- output stage
    rounding: Optional[int] = None  # decimals on the implementation's scale; -1: float32 of the result
    #: how it rounds (``models.ROUNDING_MODES``): None (half to even: Python's round() of the
    #: binary value, numpy.round), "half-up" (Java Math.round, JavaScript Math.round of the
    #: scaled value), "truncate" (toward zero: a C cast, Go math.Trunc)
    rounding_mode: Optional[str] = None
    float32: bool = False  # float32 arithmetic throughout: within FLOAT32_BOUND of the exact value

    def families(self) -> list[str]:
        out = _families(self, "score")
        if self.rounding is not None:
            out.append("precision-loss")
        if self.float32:
            out.append("float32-arithmetic")
        return out

    def claimed_score(self) -> bool:
        """No score-stage deviation (output deviations aside).  (Asked for every score a model
        computes: remembered on the instance, which is frozen.)"""
        try:
            return self.__dict__["_claimed"]
        except KeyError:
            claimed = self == ScoreVariant(rounding=self.rounding, rounding_mode=self.rounding_mode,
                                           float32=self.float32)
            self.__dict__["_claimed"] = claimed
            return claimed


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


