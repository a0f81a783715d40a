"""The metric a contract states, computed exactly: pure functions, no I/O.

A scoring service is held to the definition its contract *words*, not to whichever of the
reference's definitions it resembles.  chrf-plus-plus-compute 1.0.0 (seeds/004) states
chrF++ in terms that match ``reference_impl``'s ``sacrebleu`` definition except in two
details, so its metric is built here on the reference's pure pieces (``char_ngrams``,
``word_ngrams``, ``SegmentStats``, ``effective_order_score``) rather than by calling
``sentence_score``/``corpus_score``:

* **whitespace** is the contract's explicit list of 29 code points, not "whatever
  ``str.isspace()`` says in this Python" (equal today; a Unicode update could change
  Python's, never the contract's);
* **hypothesis n-grams where the reference has none: every declared reading.**  sacreBLEU
  (and so the reference's ``sacrebleu`` definition) records a segment's hypothesis count of
  an order as 0 when that segment's reference has no n-gram of the order; the contract says
  only that the corpus score "sums per-order counts over all segments" and cites sacreBLEU
  2.x for the effective order.  The point is the convention
  ``reference_impl.conventions.HYPOTHESIS_NGRAMS_WHERE_REFERENCE_HAS_NONE``; ``evaluate``
  gives the corpus score under each reading asked for (``Evaluation.readings``).  At the
  sentence level the readings agree (such an order is not effective either way); at the
  corpus level they differ when one segment's reference is shorter than an order another
  segment's is not (a one-word reference has no word bigram, say).

Everything else (code points, no normalization, the one-mark punctuation split, clipped
matches, effective orders, F-beta, ``str.lower()`` = Unicode default case mapping with
final sigma, like ``String.prototype.toLowerCase``) is the reference's own arithmetic.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Sequence

from reference_impl import ChrfParams, SegmentStats
from reference_impl.conventions import COUNTED, NOT_COUNTED, hypothesis_count
from reference_impl.matching import clipped_matches, ngram_totals
from reference_impl.scoring import effective_order_score


@functools.lru_cache(maxsize=64)
def _params(char_order: int, word_order: int, beta: int) -> ChrfParams:
    return ChrfParams.make(char_order=char_order, word_order=word_order, beta=beta)


@dataclass(frozen=True)
class Metric:
    """chrF / chrF++ as a contract states it (``word_order`` 0 is plain chrF)."""

    char_order: int
    word_order: int
    whitespace: frozenset
    punctuation: frozenset
    _split: re.Pattern = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        klass = "".join(re.escape(c) for c in sorted(self.whitespace))
        object.__setattr__(self, "_split", re.compile(f"[{klass}]+"))

    # -- text ------------------------------------------------------------------------------
    def chars(self, text: str) -> str:
        """The code points n-grams are built from: every whitespace code point removed."""
        return "".join(self._split.split(text))

    def tokens(self, text: str) -> list[str]:
        """Word tokens: the text split on runs of whitespace; a word of more than one code
        point loses one punctuation mark, from its end, else from its start."""
        out: list[str] = []
        punctuation = self.punctuation
        for w in self._split.split(text):
            if len(w) > 1:
                if w[-1] in punctuation:
                    out += (w[:-1], w[-1])
                    continue
                if w[0] in punctuation:
                    out += (w[0], w[1:])
                    continue
            if w:
                out.append(w)
        return out

    # -- statistics ------------------------------------------------------------------------
    def segment_stats(self, hypothesis: str, reference: str, lowercase: bool = False) -> SegmentStats:
        """Per order (characters 1..nc, then words 1..nw): hypothesis n-grams, reference
        n-grams, clipped matches.  Hypothesis counts are kept whatever the reference has (the
        corpus sums of ``evaluate`` apply a reading)."""
        if lowercase:
            hypothesis, reference = hypothesis.lower(), reference.lower()
        return self._stats(hypothesis, reference, self.tokens(hypothesis), self.tokens(reference))

    def _stats(self, hypothesis: str, reference: str, hyp_tokens: list, ref_tokens: list) -> SegmentStats:
        """``segment_stats`` of texts already lowercased as asked, given their tokens."""
        nc, nw = self.char_order, self.word_order
        hc, rc = self.chars(hypothesis), self.chars(reference)
        if not nw:
            return SegmentStats(ngram_totals(len(hc), nc), ngram_totals(len(rc), nc), tuple(clipped_matches(hc, rc, nc)))
        return SegmentStats(ngram_totals(len(hc), nc) + ngram_totals(len(hyp_tokens), nw),
                            ngram_totals(len(rc), nc) + ngram_totals(len(ref_tokens), nw),
                            tuple(clipped_matches(hc, rc, nc) + clipped_matches(hyp_tokens, ref_tokens, nw)))

    def params(self, beta: int) -> ChrfParams:
        return _params(self.char_order, self.word_order, beta)

    def score(self, stats: SegmentStats, beta: int) -> Fraction:
        """Exact score on 0..100: P and R averaged over the effective orders, then F-beta."""
        return effective_order_score(stats, self.params(beta))

    def evaluate(self, hypotheses: Sequence[str], references: Sequence[str], beta: int = 2,
                 lowercase: bool = False, readings: Sequence[str] = (COUNTED,)) -> "Evaluation":
        """Everything a response states about a valid request: corpus score (from summed
        statistics) under each of ``readings`` of the hypothesis-n-grams convention (the
        first is ``score``), segment scores and word tokens, in input order.  Each text is
        lowercased (if asked) and tokenised once: its tokens are both its word n-grams and
        its ``word_tokens``."""
        if lowercase:
            hypotheses, references = [h.lower() for h in hypotheses], [r.lower() for r in references]
        tokens = [{"hypothesis": self.tokens(h), "reference": self.tokens(r)} for h, r in zip(hypotheses, references)]
        stats = [self._stats(h, r, t["hypothesis"], t["reference"]) for h, r, t in zip(hypotheses, references, tokens)]
        score = self.score  # the one place stats become a score (a contract's subclass may change it)
        totals = {COUNTED: _summed(stats)}
        # the hypothesis n-grams of orders a segment's reference has none of: only when there
        # are some do the readings differ
        if any(h and not r for s in stats for h, r in zip(s.hyp, s.ref)):
            totals[NOT_COUNTED] = _summed([SegmentStats(tuple(hypothesis_count(h, r, NOT_COUNTED)
                                                              for h, r in zip(s.hyp, s.ref)), s.ref, s.match)
                                           for s in stats])
        else:
            totals[NOT_COUNTED] = totals[COUNTED]
        values = {r: score(totals[r], beta) for r in dict.fromkeys(readings)} if totals[COUNTED] != totals[NOT_COUNTED] \
            else dict.fromkeys(readings, score(totals[COUNTED], beta))
        return Evaluation(score=values[readings[0]], segment_scores=[score(s, beta) for s in stats],
                          word_tokens=tokens, readings=values)


def _summed(stats: list) -> SegmentStats:
    return SegmentStats(*(tuple(map(sum, zip(*side))) for side in zip(*((s.hyp, s.ref, s.match) for s in stats))))


@dataclass(frozen=True)
class Evaluation:
    score: Fraction  # under the first reading asked for
    segment_scores: list
    word_tokens: list
    #: the corpus score under each reading of the hypothesis-n-grams convention asked for
    #: (equal values: this request does not tell the readings apart)
    readings: dict = field(default_factory=dict)

    @property
    def distinguishes(self) -> bool:
        """Whether the readings give this request different corpus scores."""
        return len(set(self.readings.values())) > 1


def code_points(ranges: Sequence[str]) -> frozenset:
    """``["0009-000D", "0020", ...]`` (hexadecimal, inclusive ranges) as a set of characters."""
    out = set()
    for item in ranges:
        lo, _, hi = item.partition("-")
        out.update(map(chr, range(int(lo, 16), int(hi or lo, 16) + 1)))
    return frozenset(out)


# -- how a response writes exact numbers ------------------------------------------------------
def decimal_text(x: Fraction, places: int = 6, rounding: str = "half-even") -> str:
    """``x`` (>= 0) with ``places`` decimals, rounded exactly.  ``rounding``: "half-even" (the
    contract's), or the usual mistakes, to name them: "half-up", "half-down", "down"."""
    scale = 10 ** places
    num, den = x.numerator, x.denominator
    q, r = divmod(num * scale, den)
    twice = 2 * r
    if rounding == "down" or r == 0:
        pass
    elif twice > den or (twice == den and (
            rounding == "half-up" or (rounding == "half-even" and q % 2))):
        q += 1
    whole, frac = divmod(q, scale)
    return f"{whole}.{frac:0{places}d}" if places else str(whole)


def fraction_text(x: Fraction) -> str:
    """The reduced fraction "n/d" (a Fraction is always reduced; 0 is "0/1")."""
    return f"{x.numerator}/{x.denominator}"


def is_tie(x: Fraction, places: int = 6) -> bool:
    """Whether rounding ``x`` to ``places`` decimals is a tie (exactly half way)."""
    return (x * 10 ** places * 2).denominator == 1 and (x * 10 ** places).denominator == 2
