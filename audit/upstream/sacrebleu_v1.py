"""sacreBLEU 1.x's chrF, for ``chrf-audit versions sacrebleu`` across 1.x -> 2.x.

The 1.x releases (1.4.x, 1.5.x) have no ``CHRF(char_order=..., ...)``: chrF is
``sacrebleu.sentence_chrf(hypothesis, references, order=6, beta=2, remove_whitespace=True)`` and
``sacrebleu.corpus_chrf(hypotheses, references, ...)`` (references transposed, as in 2.x).  They
score on 0..1, use the FIRST reference of a segment only ("multi-reference not supported yet"),
and have no word n-grams, no lowercasing and no eps smoothing.

What a release cannot compute is said, never computed with other settings: ``limits()`` is plain
data the versions server puts into its hello answer (``audit/versions/server.py``): the claims
it changes (the 0..1 scale), what it supports (one reference), the claims it takes (and the audit
varies), and for each claim it cannot vary the only value it computes, with why.  An adapter
whose claims ask for another value (chrF++, ``--lowercase``, the eps definition) is unsupported
by the release; called anyway, the backend raises instead of scoring.
"""

from __future__ import annotations

import inspect

from .library import plain_beta, source_of

#: the parameters 1.x's sentence_chrf/corpus_chrf take besides the texts
PARAMETERS = ("order", "beta", "remove_whitespace")
#: the claims it takes (``order``, ``beta``, ``not remove_whitespace``)
ACCEPTS = ("beta", "char_order", "whitespace")
#: claim -> (the only value a 1.x release computes, why)
FIXED = {
    "word_order": (0, "no word n-grams (chrF++ is new in 2.0)"),
    "lowercase": (False, "no lowercase option"),
    "definition": ("sacrebleu", "no eps smoothing (the sacrebleu-eps definition is new in 2.0)"),
}


def is_v1() -> bool:
    """Whether the imported ``sacrebleu`` has the 1.x chrF API (and not 2.x's ``CHRF(char_order=)``)."""
    from sacrebleu.metrics.chrf import CHRF

    try:
        params = inspect.signature(CHRF.__init__).parameters
    except (TypeError, ValueError):
        params = {}
    return "char_order" not in params


def unsupported(claims: dict):
    """Why a 1.x release cannot compute ``claims`` (one line), or None."""
    wrong = [f"{name} {claims.get(name)!r}: {why}" for name, (value, why) in FIXED.items()
             if name in claims and claims[name] != value]
    return None if not wrong else "sacreBLEU 1.x cannot compute " + "; ".join(wrong)


class Sacrebleu1Backend:
    """Calls a 1.x release's ``sentence_chrf``/``corpus_chrf`` inside the worker."""

    def __init__(self, eps_smoothing: bool):
        import sacrebleu

        self.sentence_chrf = getattr(sacrebleu, "sentence_chrf", None)
        self.corpus_chrf = getattr(sacrebleu, "corpus_chrf", None)
        for f in (self.sentence_chrf, self.corpus_chrf):
            if f is None or not set(PARAMETERS) <= set(inspect.signature(f).parameters):
                raise ImportError("its chrF API is neither 2.x's CHRF(char_order=...) nor 1.x's "
                                  "sentence_chrf/corpus_chrf(order=, beta=, remove_whitespace=)")
        self.eps = eps_smoothing

    def limits(self) -> dict:
        return {
            "claims": {"scale": 1},
            "supports": {"multi_reference": False, "max_refs": 1},
            "accepts": list(ACCEPTS),
            "fixed": {name: {"value": value, "why": why} for name, (value, why) in FIXED.items()},
            "note": "sacreBLEU 1.x: scores on 0..1, one reference per segment, varies char_order, beta "
                    "and whitespace only",
        }

    def describe(self):
        from importlib import metadata

        from sacrebleu.metrics.chrf import CHRF

        return {
            "version": metadata.version("sacrebleu"),
            "sources": {"sentence": source_of(CHRF.compute_chrf), "corpus": source_of(CHRF.corpus_score)},
            "limits": self.limits(),
        }

    def _keywords(self, claims) -> dict:
        why = unsupported(claims) or (unsupported({"definition": "sacrebleu-eps"}) if self.eps else None)
        if why is not None:
            raise ValueError(why)
        return {"order": int(claims["char_order"]), "beta": plain_beta(claims["beta"]),
                "remove_whitespace": not claims["whitespace"]}

    def sentence(self, claims, hypothesis, references):
        return _score_attr(self.sentence_chrf(hypothesis, references, **self._keywords(claims)))

    def corpus(self, claims, hypotheses, references):
        keywords = self._keywords(claims)
        nrefs = max((len(r) for r in references), default=0)
        streams = [[r[k] if k < len(r) else None for r in references] for k in range(nrefs)]
        return _score_attr(self.corpus_chrf(hypotheses, streams, **keywords))


def _score_attr(score_obj):
    return getattr(score_obj, "score", score_obj)
