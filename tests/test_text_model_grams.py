"""The text model's matching (``audit.diagnose.text_model._match``) counts what the definition
counts: clipped matches sum min(hypothesis count, reference count) over the n-grams both
hold, unclipped ones the hypothesis count, under variants that reach ``_match`` (the default
variant is reference_impl's own).  Texts from a small alphabet, so repeats, shared and
identical texts are common."""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from audit.diagnose.text_model import text_stats
from audit.diagnose.variants import TextVariant
from reference_impl import ChrfParams

TEXT = st.text(alphabet="ab a.", max_size=12)
VARIANTS = [TextVariant(clip=False), TextVariant(ws="whitespace-kept"), TextVariant(ws="whitespace-kept", clip=False),
            TextVariant(hyp_where_no_ref=True), TextVariant(orders="plus-one", clip=False),
            TextVariant(units="utf8-bytes")]


def _grams(seq, n):
    return Counter(seq[i:i + n] for i in range(len(seq) - n + 1))


def _expected(hyp: str, ref: str, params: ChrfParams, tv: TextVariant) -> tuple:
    """(hyp totals, ref totals, matches) by Counters, for the texts as the variant reads them."""
    def units(t):
        t = t if tv.ws == "whitespace-kept" else "".join(t.split())
        return t.encode("utf-8") if tv.units == "utf8-bytes" else t
    orders = range(1, params.char_order + 2) if tv.orders == "plus-one" else range(1, params.char_order + 1)
    hs, rs = [_grams(units(hyp), n) for n in orders], [_grams(units(ref), n) for n in orders]
    if params.word_order:
        from reference_impl.text import word_tokens
        ht, rt = word_tokens(hyp), word_tokens(ref)
        hs += [Counter(" ".join(ht[i:i + n]) for i in range(len(ht) - n + 1)) for n in range(1, params.word_order + 1)]
        rs += [Counter(" ".join(rt[i:i + n]) for i in range(len(rt) - n + 1)) for n in range(1, params.word_order + 1)]
    pick = (lambda h, r: min(h, r)) if tv.clip else (lambda h, r: h)
    matches = tuple(sum(pick(h[k], r[k]) for k in h.keys() & r.keys()) for h, r in zip(hs, rs))
    return tuple(sum(h.values()) for h in hs), tuple(sum(r.values()) for r in rs), matches


@settings(max_examples=300, deadline=None)
@given(TEXT, TEXT, st.integers(1, 4), st.integers(0, 2), st.sampled_from(VARIANTS))
def test_matches_are_the_counter_definition(hyp, ref, nc, nw, tv):
    params = ChrfParams.make(char_order=nc, word_order=nw)
    [[s]] = text_stats([(hyp, [ref])], params, tv)
    hyp_totals, ref_totals, matches = _expected(hyp, ref, params, tv)
    assert s.match == matches
    assert s.ref == ref_totals and s.hyp_orders == hyp_totals
    assert s.hyp == tuple(h if (r or tv.hyp_where_no_ref) else 0 for h, r in zip(hyp_totals, ref_totals))
