"""A chrf-plus-plus-compute 1.0.0 service whose arithmetic is sacreBLEU 2.x's own, answering
exactly as the contract's published example does (``{"result": {...}}``).

    python examples/chrf_sacrebleu_service.py --port 8000     # POST http://127.0.0.1:8000/
    chrf-audit run --http http://127.0.0.1:8000/ --contract chrf-plus-plus-compute@1.0.0

What a team that wraps sacreBLEU would write: the segment statistics are sacreBLEU's
(``CHRF(word_order=2)``: its n-grams, its punctuation split, its clipped matches, and its
convention for the hypothesis n-grams of an order the segment's reference has none of: not
counted), summed over the segments, and the score is the effective-order F-beta of those
integers computed exactly (``fractions.Fraction``), rounded half to even.  The word tokens
are sacreBLEU's ``_remove_punctuation``.  The contract leaves that convention open;
chrf-audit accepts it and its report names it ("hypothesis n-grams of a segment without
reference n-grams: not counted, as sacreBLEU 2.x").  Validation, refusals, the machine-
readable contract and the MCP tool are the reference service's (``chrf_service.py``).
"""

from __future__ import annotations

import argparse
import sys
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import chrf_service as S  # noqa: E402

ORDERS = 8  # 6 character orders, 2 word orders


def exact_chrf(stats: list, beta: int) -> Fraction:
    """sacreBLEU 2.x's ``CHRF._compute_f_score`` on integer statistics, exactly: precision
    and recall averaged over the orders both sides have n-grams of, then F-beta, 0..100."""
    p = r = Fraction(0)
    effective = 0
    for i in range(ORDERS):
        hyp, ref, match = stats[3 * i: 3 * i + 3]
        if hyp > 0:
            p += Fraction(match, hyp)
        if ref > 0:
            r += Fraction(match, ref)
        effective += hyp > 0 and ref > 0
    if not effective or p + r == 0:
        return Fraction(0)
    p, r = p / effective, r / effective
    factor = beta * beta
    return 100 * (1 + factor) * p * r / (factor * p + r)


def rounded(x: Fraction, places: int = 6) -> str:
    q, rest = divmod(x.numerator * 10 ** places, x.denominator)
    if 2 * rest > x.denominator or (2 * rest == x.denominator and q % 2):
        q += 1
    whole, frac = divmod(q, 10 ** places)
    return f"{whole}.{frac:0{places}d}"


class SacrebleuService(S.Service):
    def answer(self, req: dict) -> dict:
        from sacrebleu.metrics import CHRF

        metric = CHRF(word_order=2, beta=req["beta"], lowercase=req["lowercase"])
        hyps, refs = req["hypotheses"], req["references"]
        segments = metric._extract_corpus_statistics(hyps, [refs])
        total = [sum(column) for column in zip(*segments)]
        tokens = [{"hypothesis": metric._remove_punctuation(metric._preprocess_segment(h)),
                   "reference": metric._remove_punctuation(metric._preprocess_segment(r))} for h, r in zip(hyps, refs)]
        score = exact_chrf(total, req["beta"])
        return {"metric": "chrF++", "char_order": 6, "word_order": 2, "beta": req["beta"],
                "lowercase": req["lowercase"], "segment_count": len(hyps), "score": rounded(score),
                "score_fraction": f"{score.numerator}/{score.denominator}",
                "segment_scores": [rounded(exact_chrf(s, req["beta"])) for s in segments], "word_tokens": tokens}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8000, help="0: a free port (printed)")
    args = p.parse_args(argv)
    S.serve(S.create_app(SacrebleuService()), args.host, args.port)
    return 0


if __name__ == "__main__":
    sys.exit(main())
