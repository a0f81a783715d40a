"""What chrf-audit knows about sacreBLEU's chrF (``sacrebleu.metrics.CHRF``).

``CHRF(char_order, word_order, beta, lowercase, whitespace, eps_smoothing)``;
``sentence_score(hypothesis, references)`` and ``corpus_score(hypotheses, references)``,
where the corpus references are TRANSPOSED: ``references[j][i]`` is reference j of segment i.
Scores are on 0..100.  sacreBLEU is the reference's default definition, so no patches are
known; root-cause pointers exist for the places a divergence would come from.
"""

from __future__ import annotations

import textwrap
from typing import Optional

from ._base import CLAIM_DEFAULTS, beta_literal, claims_with_defaults, py_list_literal, py_literal

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
    head += ["# " + line for line in textwrap.wrap(finding.title, 88)]
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


def combined_source(families):
    return None
