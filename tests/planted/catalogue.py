"""The planted implementations, one row each: a bug (or none), where it shows, what it claims,
how it is built, and the input that triggers it.

A planted bug is the float chrF of ``base.py`` with one switch flipped (``switches``), or,
where no switch can say it, a hand-written object (``impl``: the faults of ``faults.py``, the
exact chrF of ``exact.py``).  Each row exposes the generic callables as attributes,
``row.sentence(hypothesis, references)`` and ``row.corpus(hypotheses, references_per_segment)``
(0..100 scale; a row without one lacks the attribute), so the callable adapter reaches them
as ``tests.planted:<name>.sentence`` (``row.spec(op)``).

``triggers`` are data, not prose: ``tests/test_planted_catalogue.py`` replays each one on the
row (the stated *actual*) and on ``reference_impl`` under the row's claims (the stated
*expected*), both to the digits stated.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Optional, Union

from . import exact, faults
from .base import CLAIMS_CHRF, Chrf, claims

#: Where the specs point: this package (``tests.planted``, or a copy under another name).
PACKAGE = __name__.rpartition(".")[0]


@dataclass(frozen=True)
class Trigger:
    """``hyp`` a string: a sentence call; a list: a corpus call (``refs`` per segment).
    ``actual``: a number as stated (digits after the point are the precision claimed; none:
    exact), ``"None"``, ``"nan"``, ``"raises ValueError"``, ``"exits 1"``, ``"sleeps 600"``, or a
    tuple: successive calls.  ``expected``: the exact reference score, stated the same way."""

    hyp: Union[str, list]
    refs: list
    actual: Union[str, tuple]
    expected: str

    @property
    def level(self) -> str:
        return "sentence" if isinstance(self.hyp, str) else "corpus"

    def __str__(self) -> str:
        s = "" if self.level == "sentence" else "s"
        actual = ", then ".join(self.actual) if isinstance(self.actual, tuple) else self.actual
        return f"hyp{s} {self.hyp!r}, refs {self.refs!r} -> {actual} (expected {self.expected})"


@dataclass(frozen=True, eq=False)
class Row:
    name: str
    family: Optional[str]  # None: a correct implementation, which must produce no finding
    level: str  # "sentence" | "corpus": where the bug shows (a sentence bug shows in corpora too)
    what: str  # one line: what is wrong
    switches: Mapping = field(default_factory=dict)  # of base.Chrf
    triggers: tuple = ()
    claims: Mapping = field(default_factory=lambda: dict(CLAIMS_CHRF))
    impl: object = None  # hand-written, instead of Chrf(**switches)
    ops: tuple = ("sentence", "corpus")

    def __post_init__(self):
        impl = self.impl if self.impl is not None else Chrf(**self.switches)
        for op in self.ops:
            object.__setattr__(self, op, _entry(PACKAGE, self.name, op, getattr(impl, op)))

    def spec(self, op: str) -> Optional[str]:
        """``package:name.op`` for the callable adapter (None: the row has no such callable)."""
        return f"{PACKAGE}:{self.name}.{op}" if hasattr(self, op) else None


def _entry(module: str, name: str, op: str, fn):
    """``fn`` as the function ``module:name.op``: reports write the repro as ``name.op(...)``
    and the repro snippet imports ``name`` from ``module`` (where the spec found it), not
    ``Chrf.sentence`` of base.py, which cannot be called that way."""
    if op == "sentence":
        def entry(hypothesis, references):
            return fn(hypothesis, references)
    else:
        def entry(hypotheses, references):
            return fn(hypotheses, references)
    entry.__module__, entry.__qualname__, entry.__name__ = module, f"{name}.{op}", op
    return entry


@dataclass(frozen=True)
class _Pair:
    sentence: object
    corpus: object


def _bug(family, what, switches=None, *triggers, level="sentence", **kw) -> Row:
    return Row(family.replace("-", "_"), family, level, what, switches or {}, triggers, **kw)


T = Trigger
_PP = claims(word_order=2)

ROWS: tuple[Row, ...] = (
    Row("correct_float", None, "sentence", "none: base.Chrf with no switch, float arithmetic"),
    Row("correct_float_chrfpp", None, "sentence", "none: chrF++ of base.Chrf", dict(word_order=2), claims=_PP),
    Row("correct_exact", None, "sentence", "none: exact arithmetic, independent of base.py", impl=exact),
    Row("correct_exact_chrfpp", None, "sentence", "none: chrF++ in exact arithmetic",
        impl=_Pair(exact.sentence_pp, exact.corpus_pp), claims=_PP),
    # -- switches of base.Chrf
    _bug("best-reference-sentinel-zero", "the best-reference search starts at 0: a segment scoring 0 against "
         "every reference adds no statistics", dict(refs="sentinel"),
         T(["a", "b"], [["a"], ["c"]], "100", "50"), level="corpus"),
    _bug("beta-not-squared", "F-beta uses beta (2) where beta squared (4) belongs", dict(beta_squared=False),
         T("ab", ["a"], "75", "83.33")),
    _bug("case-folded", "text is lowercased although the claims are case-sensitive", dict(case="lower-always"),
         T("A", ["a"], "100", "0")),
    _bug("casefold-instead-of-lower", "claims lowercase=True but uses str.casefold()",
         dict(lowercase=True, case="casefold"), T("ß", ["ss"], "100", "0"), claims=claims(lowercase=True)),
    _bug("corpus-macro-average", "the corpus score is the mean of the sentence scores (sentence is correct)",
         dict(corpus_mode="macro"), T(["a", "ab"], [["a"], ["ac"]], "62.5", "33.33"), level="corpus"),
    _bug("empty-input-perfect", "no n-gram on either side scores 100 instead of 0 (a non-empty hypothesis "
         "against an empty reference still scores 0)", dict(empty_score=100.0), T("", [""], "100", "0")),
    _bug("f-score-averaged", "the per-order F-betas are averaged (over effective orders) instead of P and R",
         dict(combine="f-mean"), T("abc", ["ab"], "87.12", "87.5")),
    _bug("first-reference-only", "only the first reference is used", dict(refs="first"),
         T("a", ["b", "a"], "0", "100")),
    _bug("float32-arithmetic", "precision, recall and F in float32 arithmetic throughout", dict(float32=True),
         T("ab", ["a"], "83.333328", "83.333333")),
    _bug("format-characters-deleted", "a normalizer deletes U+FEFF (only) before counting",
         dict(deleted=frozenset("\ufeff")), T("a\ufeff", ["a"], "100", "83.33")),
    _bug("hypothesis-ngrams-where-reference-has-none", "hypothesis n-grams of orders the reference lacks are "
         "counted: no effect on a sentence (such an order is not effective), only on corpus sums",
         dict(zero_hyp_where_ref_none=False), T(["ab", "ab"], [["ab"], ["a"]], "89.29", "97.22"), level="corpus"),
    _bug("no-clipping", "matches are not clipped (recall and the score can exceed 1 / 100)", dict(clip=False),
         T("aa", ["a"], "166.67", "83.33"), T("aa", ["ab"], "50", "25")),
    _bug("precision-loss", "the score is rounded to 2 decimals", dict(round_digits=2),
         T("ab", ["a"], "83.33", "83.333333")),
    _bug("precision-recall-pooled", "one precision and one recall over the n-grams of all orders",
         dict(combine="pooled"), T("abc", ["ab"], "88.24", "87.5")),
    _bug("precision-recall-swapped", "beta weights precision instead of recall", dict(swap_pr=True),
         T("ab", ["a"], "55.56", "83.33")),
    _bug("references-averaged", "the scores against the references are averaged (no corpus analogue)",
         dict(refs="mean"), T("a", ["b", "a"], "50", "100"), ops=("sentence",)),
    _bug("requested-order-divisor", "P and R are averaged over all 6 requested orders, not the effective ones",
         dict(divisor="requested"), T("a", ["a"], "16.67", "100")),
    _bug("unicode-normalization", "both sides are NFC-normalized first", dict(normalize="NFC"),
         T("e\u0301", ["\u00e9"], "100", "0")),
    _bug("unmatched-segment-reference-dropped", "a segment matching none of its references adds its hypothesis "
         "n-grams but no reference n-grams to the corpus sums (invisible at sentence level)",
         dict(unmatched_refs_dropped=True), T(["ab", "xy"], [["ab"], ["zz"]], "83.33", "50"), level="corpus"),
    _bug("utf16-code-units", "n-grams over UTF-16 code units (a non-BMP character is two)", dict(units="utf16"),
         T("\U0001F600", ["\U0001F601"], "25", "0")),
    _bug("utf8-bytes", "n-grams over UTF-8 bytes", dict(units="utf8"), T("\u00e9", ["\u00e8"], "25", "0")),
    _bug("whitespace-kept", "whitespace is scored as characters although the claims remove it",
         dict(ws_removed="none"), T("a b", ["ab"], "45.45", "100")),
    _bug("whitespace-set-ascii", "only ASCII whitespace ' \\t\\n\\r\\x0b\\x0c' is removed",
         dict(ws_removed="ascii"), T("a\x1cb", ["ab"], "45.45", "100"), T("a\xa0b", ["ab"], "45.45", "100")),
    _bug("whitespace-set-ascii-space", "only U+0020 is removed", dict(ws_removed="ascii-space"),
         T("a\tb", ["ab"], "45.45", "100")),
    _bug("whitespace-set-white-space", "Unicode White_Space is removed (isspace() minus U+001C..U+001F)",
         dict(ws_removed="white-space"), T("a\x1cb", ["ab"], "45.45", "100")),
    _bug("whitespace-stripped-ends-only", "only the ends are stripped; inner whitespace is scored",
         dict(ws_removed="strip"), T("a b", ["ab"], "45.45", "100")),
    _bug("word-punctuation-not-split", "chrF++ word tokens keep their ASCII punctuation attached",
         dict(word_order=2, word_split="none"), T("a.", ["a ."], "66.67", "100"), claims=_PP),
    _bug("word-punctuation-split-both", "chrF++: a punctuation mark is split off both ends of a word",
         dict(word_order=2, word_split="both"), T("(ab)", ["( ab )"], "100", "72.76"), claims=_PP),
    _bug("wrong-beta", "beta 3 where the claims say 2", dict(beta=3.0), T("ab", ["a"], "90.91", "83.33")),
    _bug("wrong-ngram-orders", "character orders 1..5 instead of 1..6", dict(char_orders=(1, 2, 3, 4, 5)),
         T("abcdef", ["abcdeg"], "71", "59.17")),
    # -- hand-written (faults.py): an empty hypothesis triggers the first four, where shrinking ends
    _bug("crash", "the process dies (os._exit(1)) on an empty hypothesis or one containing 'x'",
         None, T("", [""], "exits 1", "0"), T("x", ["a"], "exits 1", "0"), impl=faults.CRASH),
    _bug("exception", "raises ValueError on an empty hypothesis or one containing a decimal digit",
         None, T("", [""], "raises ValueError", "0"), T("1", ["a"], "raises ValueError", "0"),
         impl=faults.EXCEPTION),
    _bug("timeout", "hangs (sleeps 600 s) on an empty hypothesis: audit with a short per-call timeout",
         None, T("", [""], "sleeps 600", "0"), impl=faults.TIMEOUT),
    _bug("invalid-output", "None on an empty hypothesis, NaN when the hypothesis equals a reference",
         None, T("", [""], "None", "0"), T("a", ["a"], "nan", "100"), impl=faults.INVALID_OUTPUT),
    _bug("nondeterminism", "a per-process call counter: odd-numbered calls are off by 1e-3 towards the middle",
         None, T("a", ["a"], ("99.999", "100"), "100"), impl=faults.NONDETERMINISM),
    _bug("out-of-range", "a perfect score comes out as 100.5", None, T("a", ["a"], "100.5", "100"),
         impl=faults.OUT_OF_RANGE),
)

BY_NAME: dict[str, Row] = {r.name: r for r in ROWS}
assert len(BY_NAME) == len(ROWS), "duplicate row name"
