"""What chrf-audit knows about sacreBLEU's chrF (``sacrebleu.metrics.CHRF``).

``CHRF(char_order, word_order, beta, lowercase, whitespace, eps_smoothing)``;
``sentence_score(hypothesis, references)`` and ``corpus_score(hypotheses, references)``,
where the corpus references are TRANSPOSED: ``references[j][i]`` is reference j of segment i.
Scores are on 0..100.  sacreBLEU is the reference's default definition, so no patches are
known; root-cause pointers exist for the places a divergence would come from.  A 1.x release
(``sentence_chrf``/``corpus_chrf``, no ``CHRF(char_order=...)``) gets ``sacrebleu_v1``'s backend
(``make_backend``), which says what the release cannot compute.
"""

from __future__ import annotations

from typing import Optional

from ._base import CLAIM_DEFAULTS, beta_literal, claims_with_defaults, py_list_literal, py_literal
from .library import BuiltinAdapter, Upstream, plain_beta, source_of

NAME = "sacrebleu"
DISTRIBUTION = "sacrebleu"
MODULE = "sacrebleu.metrics.chrf"

DEFAULT_CLAIMS = dict(CLAIM_DEFAULTS)  # sacreBLEU's defaults are the reference's

def _ctor(claims: dict) -> str:
    c = claims_with_defaults({**DEFAULT_CLAIMS, **(claims or {})})
    return (
        f"CHRF(char_order={int(c['char_order'])}, word_order={int(c['word_order'])}, "
        f"beta={beta_literal(c['beta'])}, lowercase={bool(c['lowercase'])}, "
        f"whitespace={bool(c['whitespace'])}, eps_smoothing={c['definition'] == 'sacrebleu-eps'})"
    )


def repro_snippet(finding, version: Optional[str] = None) -> str:
    m = finding.minimal
    head = [f"# chrF repro for sacrebleu{' ' + version if version else ''}: {finding.family}"]
    head.append(f"# Expected {m.expected!r} ({m.expected_fraction} exactly).")
    got = m.actual_raw if m.actual_raw is not None else (repr(m.actual) if m.actual is not None else m.outcome)
    lines = head + ["from sacrebleu.metrics import CHRF", "", f"chrf = {_ctor(finding.claims)}"]
    if m.level == "sentence":
        lines += [
            f"hypothesis = {py_literal(m.inputs['hypothesis'])}",
            f"references = {py_list_literal(list(m.inputs['references']))}",
            "score = chrf.sentence_score(hypothesis, references).score",
        ]
    else:
        lines += [
            f"hypotheses = {py_list_literal(m.inputs['hypotheses'])}",
            f"references = {py_list_literal([list(r) for r in m.inputs['references']])}  # per segment",
            "# sacreBLEU takes the references transposed: one stream per reference",
            "streams = [list(stream) for stream in zip(*references)]",
            "score = chrf.corpus_score(hypotheses, streams).score",
        ]
    lines.append(f"print(score)  # prints {got}; expected {m.expected!r}")
    return "\n".join(lines) + "\n"


PATCH_DESCRIPTIONS: dict[str, str] = {}


def patched_source(family: str):
    return None


# -- the backend the worker builds ----------------------------------------------------------


class SacrebleuBackend:
    """Calls sacreBLEU's ``CHRF`` inside the worker, one metric object per claim set."""

    def __init__(self, eps_smoothing: bool):
        from sacrebleu.metrics.chrf import CHRF

        self.CHRF = CHRF
        self.eps = eps_smoothing
        self._metrics = {}

    def metric(self, claims):
        key = (claims["char_order"], claims["word_order"], claims["beta"],
               claims["lowercase"], claims["whitespace"])
        m = self._metrics.get(key)
        if m is None:
            m = self.CHRF(
                char_order=claims["char_order"],
                word_order=claims["word_order"],
                beta=plain_beta(claims["beta"]),
                lowercase=claims["lowercase"],
                whitespace=claims["whitespace"],
                eps_smoothing=self.eps,
            )
            self._metrics[key] = m
        return m

    def describe(self):
        from importlib import metadata

        return {
            "version": metadata.version("sacrebleu"),
            "sources": {
                "sentence": source_of(self.CHRF._compute_f_score),
                "corpus": source_of(self.CHRF._aggregate_and_compute),
            },
        }

    def signature(self, claims):
        m = self.CHRF(
            char_order=claims["char_order"], word_order=claims["word_order"],
            beta=plain_beta(claims["beta"]), lowercase=claims["lowercase"],
            whitespace=claims["whitespace"], eps_smoothing=self.eps,
        )
        m.num_refs = -1  # the audit uses varying reference counts: sacreBLEU writes "var"
        return m.get_signature().format()

    def sentence(self, claims, hypothesis, references):
        return _score_attr(self.metric(claims).sentence_score(hypothesis, references))

    def corpus(self, claims, hypotheses, references):
        # sacreBLEU takes reference *streams* (one list per reference index); segments
        # with fewer references are padded with None, which sacreBLEU skips.
        nrefs = max((len(r) for r in references), default=0)
        streams = [[r[k] if k < len(r) else None for r in references] for k in range(nrefs)]
        return _score_attr(self.metric(claims).corpus_score(hypotheses, streams))


def _score_attr(score_obj):
    return getattr(score_obj, "score", score_obj)


def make_backend(eps_smoothing: bool):
    """The backend of the installed release: 2.x's ``CHRF`` (``SacrebleuBackend``), or a 1.x
    release's ``sentence_chrf``/``corpus_chrf`` with what it cannot compute said
    (``sacrebleu_v1``)."""
    from .sacrebleu_v1 import Sacrebleu1Backend, is_v1

    return Sacrebleu1Backend(eps_smoothing) if is_v1() else SacrebleuBackend(eps_smoothing)


UPSTREAM = Upstream(
    name=NAME, distribution=DISTRIBUTION, module=MODULE, default_claims=DEFAULT_CLAIMS,
    adapters=(
        BuiltinAdapter("sacrebleu-chrf", dict(word_order=0), {"eps_smoothing": False}, default=True),
        BuiltinAdapter("sacrebleu-chrf++", dict(word_order=2), {"eps_smoothing": False}, default=True),
        BuiltinAdapter("sacrebleu-chrf-eps", dict(word_order=0, definition="sacrebleu-eps"), {"eps_smoothing": True},
                       default=True),
        BuiltinAdapter("sacrebleu-chrf++-eps", dict(word_order=2, definition="sacrebleu-eps"),
                       {"eps_smoothing": True}, default=True),
    ),
    backend=make_backend, repro_snippet=repro_snippet, patched_source=patched_source,
    patch_descriptions=PATCH_DESCRIPTIONS, native_signature=True,
)
