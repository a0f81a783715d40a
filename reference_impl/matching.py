"""Clipped n-gram matches of two unit sequences, every order at once, counters only where needed.

The definition (``char_ngrams``/``word_ngrams`` and ``stats._matches``): for each order n,
the sum over the n-grams both sides hold of min(hypothesis count, reference count).  That
costs a counter per order and side, which is most of the time of scoring a short segment;
a scoring service audited segment by segment (``audit.contract``) pays it for every segment
of every request, on both sides of the wire.  ``clipped_matches`` computes the same integers
with exact shortcuts, each a consequence of the definition:

* **identical sequences** match every n-gram: order n's matches are its n-gram total.  So
  does a text that occurs, contiguously, inside the other (a truncation, an addition at an
  end): each of its n-gram occurrences has its own occurrence in the other, shifted by the
  offset, so every clipped count is its own count and order n's matches are its n-gram total;
* **no common n-gram at order n means none at any higher order** (a common (n+1)-gram's
  first n units are a common n-gram), so counting stops there;
* **one side's n-grams all distinct**: every common n-gram has count 1 on that side, so it
  contributes min(1, other count) = 1 and the matches are the size of the set intersection;
  counts are taken only when both sides repeat an n-gram (``str.count`` for single code
  points, counters over the n-grams otherwise).

``tests/test_reference_matching.py`` holds it to the counter definition on random texts
(Hypothesis, small alphabets so that repeats, shared and identical texts are common).
"""

from __future__ import annotations

import functools
from collections import Counter
from operator import add as _add
from typing import Sequence


@functools.lru_cache(maxsize=4096)
def ngram_totals(length: int, max_order: int) -> tuple[int, ...]:
    """The number of n-grams of orders 1..max_order in a sequence of ``length`` units
    (a function of two small integers, so remembered)."""
    return tuple(length - n if length > n else 0 for n in range(max_order))


def clipped_matches(hyp: str | Sequence[str], ref: str | Sequence[str], max_order: int) -> list[int]:
    """Clipped matches of orders 1..max_order between ``hyp`` and ``ref``.

    Units are code points when both are ``str`` (character n-grams), else the items of two
    lists of word tokens (word n-grams compared as tuples of tokens, which is what joining
    tokens that hold no U+0020 with U+0020 compares).
    """
    chars = isinstance(hyp, str)
    if chars:
        if hyp in ref:  # identical, empty, or a part of ref: each n-gram occurrence has its own in ref
            return list(ngram_totals(len(hyp), max_order))
        if ref in hyp:
            return list(ngram_totals(len(ref), max_order))
    elif hyp == ref:
        return list(ngram_totals(len(hyp), max_order))
    out = [0] * max_order
    hg, rg = hyp, ref
    for n in range(1, min(max_order, len(hyp), len(ref)) + 1):
        if n > 1:
            if chars:
                hg = list(map(_add, hg, hyp[n - 1:]))
                rg = list(map(_add, rg, ref[n - 1:]))
            else:
                hg = list(zip(*[hyp[i:] for i in range(n)]))
                rg = list(zip(*[ref[i:] for i in range(n)]))
        hs = set(hg)
        common = hs.intersection(rg)
        if not common:
            break  # and every higher order has none either
        if len(hs) == len(hg) or len(set(rg)) == len(rg):
            out[n - 1] = len(common)
        elif n == 1 and chars:  # code points: str.count counts every occurrence of one
            out[0] = sum(map(min, map(hyp.count, common), map(ref.count, common)))
        else:
            hc, rc = Counter(hg), Counter(rg)
            out[n - 1] = sum(map(min, map(hc.__getitem__, common), map(rc.__getitem__, common)))
    return out
