"""Hand-made, realistic audit results (the installed nltk scored for real against the
reference) for tests, docs and demos of the renderers while the runner is not wired in."""

from __future__ import annotations


from ..families import title
from ..findings import AdapterSummary, AuditResult, Finding, OrderRow, Repro

NLTK_CLAIMS = {"char_order": 6, "word_order": 0, "beta": 3, "lowercase": False, "whitespace": False,
               "definition": "sacrebleu", "scale": 1}
SACREBLEU_CLAIMS = {"char_order": 6, "word_order": 0, "beta": 2, "lowercase": False, "whitespace": False,
                    "definition": "sacrebleu", "scale": 100}


def order_rows(result) -> list[OrderRow]:
    beta = result.params.beta
    rows = []
    for o in result.orders:
        f = o.f(beta)
        rows.append(OrderRow(o.kind, o.n, o.hyp, o.ref, o.match,
                             None if o.precision is None else str(o.precision),
                             None if o.recall is None else str(o.recall),
                             None if f is None else str(f), o.effective))
    return rows


def _nltk_finding(family: str, level: str, inputs: dict, explanation: list[str]) -> Finding:
    from nltk.translate.chrf_score import corpus_chrf, sentence_chrf
    from reference_impl import corpus_score, sentence_score

    kw = dict(char_order=6, word_order=0, beta=3)
    if level == "sentence":
        ref = sentence_score(inputs["hypothesis"], inputs["references"], **kw)
        raw = sentence_chrf(inputs["references"][0], inputs["hypothesis"], min_len=1, max_len=6, beta=3.0)
    else:
        ref = corpus_score(inputs["hypotheses"], inputs["references"], **kw)
        raw = corpus_chrf([r[0] for r in inputs["references"]], inputs["hypotheses"], min_len=1, max_len=6, beta=3.0)
    repro = Repro(level=level, inputs=inputs, expected=float(ref.score), expected_fraction=str(ref.score),
                  actual=raw * 100, actual_raw=repr(raw), outcome="value", orders=order_rows(ref),
                  explanation=list(explanation))
    return Finding(implementation="nltk", family=family, level=level, title=title(family), claims=dict(NLTK_CLAIMS),
                   reference_signature=ref.signature,
                   implementation_signature="nltk.translate.chrf_score (min_len=1, max_len=6, beta=3.0)",
                   minimal=repro, explanation=list(explanation), examples=17)


def nltk_findings() -> list[Finding]:
    return [
        _nltk_finding("requested-order-divisor", "sentence", {"hypothesis": "a", "references": ["a"]},
                      ["requested-order-divisor"]),
        _nltk_finding("f-score-averaged", "sentence", {"hypothesis": "abcdefgh", "references": ["abcdefghij"]},
                      ["f-score-averaged"]),
        _nltk_finding("corpus-macro-average", "corpus",
                      {"hypotheses": ["abcdefgh", "abcdefghij"], "references": [["abcdefxy"], ["abcdefgh"]]},
                      ["corpus-macro-average", "f-score-averaged"]),
        _nltk_finding("whitespace-set-white-space", "sentence",
                      {"hypothesis": "abc\x1cdef", "references": ["abcdef"]}, ["whitespace-set-white-space"]),
    ]


def example_result(*, conformance: bool = True, sacrebleu: bool = True) -> AuditResult:
    from reference_impl import sentence_score

    from ..upstream import version

    nltk = AdapterSummary("nltk", version("nltk"), dict(NLTK_CLAIMS),
                          sentence_score("a", ["a"], beta=3).signature, examples=400, elapsed=3.2,
                          findings=nltk_findings())
    adapters = [nltk]
    if conformance:
        nltk.conformance = {  # definition -> level -> breaking families (the lead's field)
            "sacrebleu": {"sentence": ["requested-order-divisor", "f-score-averaged", "whitespace-set-white-space"],
                          "corpus": ["requested-order-divisor", "f-score-averaged", "corpus-macro-average",
                                     "whitespace-set-white-space"]},
            "sacrebleu-eps": {"sentence": ["whitespace-set-white-space"],
                              "corpus": ["corpus-macro-average", "whitespace-set-white-space"]},
        }
    if sacrebleu:
        sb = AdapterSummary("sacrebleu", version("sacrebleu"), dict(SACREBLEU_CLAIMS),
                            sentence_score("a", ["a"]).signature, examples=400, elapsed=2.5)
        if conformance:
            sb.conformance = {d: {"sentence": [], "corpus": []} for d in ("sacrebleu",)}
        adapters.append(sb)
    return AuditResult(seed=0, max_examples=200, tolerance=1e-9, adapters=adapters)


def example_impact() -> dict:
    """The shape of an impact record as the renderers accept it (see docs/report-schema.md)."""
    return {"nltk": {
        "corpus": "WMT17 de-en newstest (example)", "segments": 3004,
        "rows": [{"measure": "corpus score", "reference": 57.1, "implementation": 55.3},
                 {"measure": "segments affected", "reference": 0, "implementation": 212}],
        "by_family": {"requested-order-divisor": {"segments affected": 31, "mean deflation": 12.5}},
    }}
