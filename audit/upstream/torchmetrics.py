"""What chrf-audit knows about torchmetrics' chrF (``torchmetrics.functional.text.chrf``).

``chrf_score(preds, target, n_char_order=6, n_word_order=2, beta=2.0, lowercase=False,
whitespace=False)`` and the ``CHRFScore`` module (``update(preds, target)``, ``compute()``)
take the hypotheses first and ``target[i]`` the references of segment i; they return a 0-d
float32 tensor on 0..1.  The source says it is derived from Popovic's chrF++.py, so the
built-in adapters are held to the ``chrfpp`` definition.

Its departures, each with a patch computed against the *installed* source text (never line
numbers; ``patched_source`` returns None when the expected code is not there):

* every number is a float32 tensor (``tensor(0.0)``), so scores drift by ~1e-7 relative;
* hypothesis n-grams are summed into the corpus totals for every order, also the orders the
  chosen reference has none of (chrF++.py counts them only where the reference has some);
* a segment that matches none of its references keeps the empty "best" statistics, so its
  hypothesis n-grams are counted and its reference n-grams are not: corpus recall rises.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Optional

from . import torchmetrics_record
from ._base import CLAIM_DEFAULTS, apply_edits, beta_literal, claims_with_defaults, combine_edits, exact_beta, py_list_literal, py_literal
from .library import BuiltinAdapter, Upstream, plain_beta, source_of

NAME = "torchmetrics"
DISTRIBUTION = "torchmetrics"
MODULE = "torchmetrics.functional.text.chrf"

#: The claims of the built-in chrF++ adapter (torchmetrics' defaults, where they differ from
#: the reference's), for probes, sweeps and repro snippets.
DEFAULT_CLAIMS = {**CLAIM_DEFAULTS, "word_order": 2, "definition": "chrfpp", "scale": 1}

# -- repro snippets ----------------------------------------------------------------------------
def _kwargs(claims: dict) -> str:
    c = claims_with_defaults({**DEFAULT_CLAIMS, **(claims or {})})
    return (
        f"n_char_order={int(c['char_order'])}, n_word_order={int(c['word_order'])}, "
        f"beta={float(exact_beta(c['beta']))!r}, lowercase={bool(c['lowercase'])}, "
        f"whitespace={bool(c['whitespace'])}"
    )


def repro_snippet(finding, version: Optional[str] = None) -> str:
    m = finding.minimal
    claims = claims_with_defaults({**DEFAULT_CLAIMS, **(finding.claims or {})})
    head = [f"# chrF repro for torchmetrics{' ' + version if version else ''}: {finding.family}"]
    exp_text = repr(float(Fraction(m.expected_fraction) / 100))
    head.append(
        f"# Expected {exp_text} on torchmetrics' 0..1 scale ({claims['definition']} definition, "
        f"beta={beta_literal(claims['beta'])}, char order {claims['char_order']}, "
        f"word order {claims['word_order']})."
    )
    got = m.actual_raw if m.actual_raw is not None else (
        repr(m.actual / 100) if m.actual is not None else m.outcome)
    lines = list(head)
    if m.level == "sentence":
        lines += [
            "from torchmetrics.functional.text import chrf_score",
            "",
            f"hypothesis = {py_literal(m.inputs['hypothesis'])}",
            f"references = {py_list_literal(list(m.inputs['references']))}",
            f"score = chrf_score([hypothesis], [references], {_kwargs(claims)}).item()",
        ]
    else:
        lines += [
            "from torchmetrics.text import CHRFScore",
            "",
            f"hypotheses = {py_list_literal(m.inputs['hypotheses'])}",
            f"references = {py_list_literal([list(r) for r in m.inputs['references']])}  # per segment",
            f"metric = CHRFScore({_kwargs(claims)})",
            "for hypothesis, refs in zip(hypotheses, references):",
            "    metric.update([hypothesis], [refs])",
            "score = metric.compute().item()",
        ]
    lines.append(f"print(score)  # prints {got}; expected {exp_text}")
    return "\n".join(lines) + "\n"


# -- patches -----------------------------------------------------------------------------------
_PREC_OLD = """\
        precision: dict[int, Tensor] = {
            n: matching_n_grams[n] / hyp_n_grams[n] if hyp_n_grams[n] > 0 else tensor(0.0) for n in matching_n_grams
        }
        recall: dict[int, Tensor] = {
            n: matching_n_grams[n] / ref_n_grams[n] if ref_n_grams[n] > 0 else tensor(0.0) for n in matching_n_grams
        }
"""
_PREC_NEW = """\
        # float64: the counts are exact in float32, the ratios and their mean are not
        precision: dict[int, Tensor] = {
            n: matching_n_grams[n].double() / hyp_n_grams[n].double() if hyp_n_grams[n] > 0 else tensor(0.0)
            for n in matching_n_grams
        }
        recall: dict[int, Tensor] = {
            n: matching_n_grams[n].double() / ref_n_grams[n].double() if ref_n_grams[n] > 0 else tensor(0.0)
            for n in matching_n_grams
        }
"""
_RETURN_OLD = "    return (sum(char_n_gram_f_score.values()) + sum(word_n_gram_f_score.values())) / tensor(n_order)\n"
_RETURN_NEW = (
    "    return (sum(char_n_gram_f_score.values()) + sum(word_n_gram_f_score.values())) / tensor(\n"
    "        n_order, dtype=torch.float64\n"
    "    )\n"
)

_HYP_OLD = """\
        total_preds_char_n_grams = _sum_over_dicts(total_preds_char_n_grams, pred_char_n_grams)
        total_preds_word_n_grams = _sum_over_dicts(total_preds_word_n_grams, pred_word_n_grams)
"""
_TARGET_SUM = "        total_target_char_n_grams = _sum_over_dicts(total_target_char_n_grams, target_char_n_grams)\n"
_HYP_NEW = """\
        # hypothesis n-grams count only for the orders the chosen reference has n-grams of
        # (the first reference's when none matches), as in chrF++.py
        if sentence_level_f_score > 0:
            ref_char_totals, ref_word_totals = target_char_n_grams, target_word_n_grams
        else:
            _, _, ref_char_totals, ref_word_totals = _get_n_grams_counts_and_total_ngrams(
                targets[0], n_char_order, n_word_order, lowercase, whitespace
            )
        total_preds_char_n_grams = _sum_over_dicts(
            total_preds_char_n_grams, {n: c for n, c in pred_char_n_grams.items() if ref_char_totals[n] > 0}
        )
        total_preds_word_n_grams = _sum_over_dicts(
            total_preds_word_n_grams, {n: c for n, c in pred_word_n_grams.items() if ref_word_totals[n] > 0}
        )
"""

_BEST_INIT_OLD = "    best_f_score = tensor(0.0)\n"
_BEST_INIT_NEW = (
    "    best_f_score = tensor(0.0)\n"
    "    # the first reference is kept when no reference matches (chrF++.py's intent), so that\n"
    "    # its n-grams reach the corpus totals\n"
    "    chosen = False\n"
)
_BEST_IF_OLD = "        if f_score > best_f_score:\n"
_BEST_IF_NEW = "        if f_score > best_f_score or not chosen:\n            chosen = True\n"

# regression tests in torchmetrics' style: doctest lines of chrf_score's example (its CI runs them)
_EXAMPLE_AT = """\
        >>> chrf_score(preds, target)
        tensor(0.8640)
"""
_HYP_DOCTEST = """\
        >>> # a short reference has no n-grams of the higher orders: the hypothesis'
        >>> # n-grams of those orders do not count (as in chrF++.py and sacreBLEU)
        >>> chrf_score(['aa', 'aa'], [['a'], ['aa']], n_word_order=0)
        tensor(0.3229)
"""
_UNMATCHED_DOCTEST = """\
        >>> # a segment that matches no reference keeps its reference n-grams
        >>> chrf_score(['a', ''], [['a'], ['a']], n_word_order=0)
        tensor(0.0926)
"""

_EDITS: dict[str, list[tuple[str, str]]] = {
    "float32-arithmetic": [(_PREC_OLD, _PREC_NEW), (_RETURN_OLD, _RETURN_NEW)],
    "hypothesis-ngrams-where-reference-has-none": [(_HYP_OLD, ""), (_TARGET_SUM, _HYP_NEW + _TARGET_SUM),
                                                   (_EXAMPLE_AT, _EXAMPLE_AT + _HYP_DOCTEST)],
    "unmatched-segment-reference-dropped": [(_BEST_INIT_OLD, _BEST_INIT_NEW), (_BEST_IF_OLD, _BEST_IF_NEW),
                                            (_EXAMPLE_AT, _EXAMPLE_AT + _UNMATCHED_DOCTEST)],
}

PATCH_DESCRIPTIONS = {
    "float32-arithmetic": "divide the (exact) float32 counts as float64 and average in float64",
    "hypothesis-ngrams-where-reference-has-none": "add a segment's hypothesis n-grams to the corpus totals only for the orders its chosen reference has n-grams of",
    "unmatched-segment-reference-dropped": "keep the first reference's statistics when no reference scores above 0, so its n-grams reach the corpus totals",
}


def patched_source(family: str) -> Optional[tuple[str, str, str]]:
    """(relative file, original text, patched text) or None when not applicable."""
    return apply_edits(MODULE, _EDITS.get(family))


def combined_source(families) -> Optional[tuple[str, str, str, list[str]]]:
    """Every family of ``families`` that has a patch fixed at once: their edits do not overlap
    (the doctest lines are added once, together).  The float32 patch stays out: its
    difference is below what is filed, and computing in float64 changes the dtype that
    torchmetrics' own doctests print."""
    families = [f for f in families if f != "float32-arithmetic"]
    fams = [f for f in dict.fromkeys(families) if f in _EDITS]
    docs = [d for f, d in (("hypothesis-ngrams-where-reference-has-none", _HYP_DOCTEST),
                           ("unmatched-segment-reference-dropped", _UNMATCHED_DOCTEST)) if f in fams]
    if len(docs) < 2:
        return combine_edits(MODULE, _EDITS, {}, families)
    edits = {f: [e for e in _EDITS[f] if e[0] != _EXAMPLE_AT] for f in fams}
    together = frozenset(f for f in fams if f != "float32-arithmetic")
    combined = {together: [e for f in together for e in edits[f]] + [(_EXAMPLE_AT, _EXAMPLE_AT + "".join(docs))]}
    return combine_edits(MODULE, edits, combined, families)
# -- the backend the worker builds ----------------------------------------------------------


class TorchmetricsBackend:
    """torchmetrics' chrF (``torchmetrics.functional.text.chrf_score`` and ``CHRFScore``),
    called inside the worker process like the other backends.
    
    Sentence level is the functional ``chrf_score([hypothesis], [references])`` (a one-segment
    corpus: that is the sentence score torchmetrics itself returns with
    ``return_sentence_level_score``); corpus level is the ``CHRFScore`` module, updated once per
    segment and computed at the end, as a training loop uses it.  Both return a 0-d float tensor
    on 0..1; ``.item()`` turns it into a Python float.  torch is imported only here, so nothing
    else in chrf-audit needs it.
    """

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


# Optional (pip install -e '.[torchmetrics]'); its source says it is derived from
# Popovic's chrF++.py, so it is held to that definition, on its 0..1 scale.
UPSTREAM = Upstream(
    name=NAME, distribution=DISTRIBUTION, module=MODULE, default_claims=DEFAULT_CLAIMS,
    adapters=(
        BuiltinAdapter("torchmetrics-chrf", dict(word_order=0, definition="chrfpp", scale=1)),
        BuiltinAdapter("torchmetrics-chrf++", dict(word_order=2, definition="chrfpp", scale=1)),
    ),
    combined_source=combined_source, backend=TorchmetricsBackend, repro_snippet=repro_snippet, patched_source=patched_source,
    patch_descriptions=PATCH_DESCRIPTIONS, extra=("torchmetrics", ("torch", "torchmetrics")),
    knowledge=torchmetrics_record.KNOWLEDGE,
)
