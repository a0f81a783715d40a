"""torchmetrics' chrF (``torchmetrics.functional.text.chrf_score`` and ``CHRFScore``),
called inside the worker process like the other backends.

Sentence level is the functional ``chrf_score([hypothesis], [references])`` (a one-segment
corpus: that is the sentence score torchmetrics itself returns with
``return_sentence_level_score``); corpus level is the ``CHRFScore`` module, updated once per
segment and computed at the end, as a training loop uses it.  Both return a 0-d float tensor
on 0..1; ``.item()`` turns it into a Python float.  torch is imported only here, so nothing
else in chrf-audit needs it.
"""

from __future__ import annotations

from .backends import Backend, plain_beta, source_of


class TorchmetricsBackend(Backend):
    def __init__(self):
        import torch  # noqa: F401 - fail early with the real import error
        from torchmetrics.functional.text import chrf as functional
        from torchmetrics.text import CHRFScore

        self.functional = functional
        self.CHRFScore = CHRFScore
        self._modules: dict = {}

    def describe(self) -> dict:
        from importlib import metadata

        return {
            "version": metadata.version("torchmetrics"),
            "sources": {
                "sentence": source_of(self.functional.chrf_score),
                "corpus": source_of(self.CHRFScore.compute),
            },
        }

    @staticmethod
    def _kw(claims: dict) -> dict:
        return dict(
            n_char_order=int(claims["char_order"]),
            n_word_order=int(claims["word_order"]),
            beta=float(plain_beta(claims["beta"])),
            lowercase=bool(claims["lowercase"]),
            whitespace=bool(claims["whitespace"]),
        )

    def sentence(self, claims, hypothesis, references):
        return _item(self.functional.chrf_score([hypothesis], [list(references)], **self._kw(claims)))

    def corpus(self, claims, hypotheses, references):
        kw = self._kw(claims)
        key = tuple(sorted(kw.items()))
        metric = self._modules.get(key)
        if metric is None:
            metric = self._modules[key] = self.CHRFScore(**kw)
        metric.reset()
        for hypothesis, refs in zip(hypotheses, references):
            metric.update([hypothesis], [list(refs)])
        return _item(metric.compute())


def _item(value):
    """A 0-d tensor as a Python float; anything else is returned as is (and judged)."""
    item = getattr(value, "item", None)
    if callable(item) and getattr(value, "ndim", None) == 0:
        return item()
    return value
