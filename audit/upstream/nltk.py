"""What chrf-audit knows about nltk's chrF (``nltk.translate.chrf_score``).

nltk's ``sentence_chrf(reference, hypothesis, min_len=1, max_len=6, beta=3.0,
ignore_whitespace=True)`` takes the REFERENCE FIRST, a single reference, and returns a score
on 0..1; ``corpus_chrf(references, hypotheses, ...)`` takes one reference per segment.

It departs from sacreBLEU's default chrF in four families.  Three are what nltk documents
(its docstring promises chrF++.py's results and a macro-averaged corpus score): definition
differences, which one patch fixes with three keywords, sacreBLEU's behaviour behind each and
the defaults kept (``nltk_patches``; only together are they sacreBLEU's chrF); the fourth, the
whitespace set, breaks the documentation (a bug, patched in place by a patch of its own that
stacks with the first).  The patched copy is audited called with the opt-in keywords
(``patch_options``), so a verification shows each family fixed where it is asked for.
``nltk_record`` holds the docstring's claims, each family's standing, the related upstream
issues and the gates nltk's repository runs.  Patches are computed against the *installed* source text (never
hard-coded line numbers); when the expected code is not there (another nltk version),
``patch`` returns None.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Optional

from . import nltk_patches, nltk_record
from ._base import CLAIM_DEFAULTS, apply_edits, beta_literal, claims_with_defaults, exact_beta, py_list_literal, py_literal
from .library import BuiltinAdapter, Upstream, plain_beta, source_of

NAME = "nltk"
DISTRIBUTION = "nltk"
MODULE = "nltk.translate.chrf_score"

#: The claims of the built-in nltk adapter (nltk's defaults, where they differ from the
#: reference's), for probes, sweeps and repro snippets.
DEFAULT_CLAIMS = {**CLAIM_DEFAULTS, "beta": 3, "scale": 1}

# -- repro snippets ----------------------------------------------------------------------------
def _kwargs(claims: dict, options: Optional[dict] = None) -> str:
    c = claims_with_defaults({**DEFAULT_CLAIMS, **(claims or {})})
    extra = "".join(f", {k}={v!r}".replace("'", '"') for k, v in (options or {}).items())
    return (
        f"min_len=1, max_len={int(c['char_order'])}, beta={float(exact_beta(c['beta']))!r}, "
        f"ignore_whitespace={not bool(c['whitespace'])}{extra}"
    )


def repro_snippet(finding, version: Optional[str] = None, options: Optional[dict] = None,
                  prints: Optional[str] = None) -> str:
    """The finding's repro, importing nltk only; with ``options`` (the keywords of an opt-in
    patch, those the level's function takes) the call passes them and ``prints`` is what it
    prints on the patched copy."""
    m = finding.minimal
    claims = claims_with_defaults({**DEFAULT_CLAIMS, **(finding.claims or {})})
    head = [f"# chrF repro for nltk{' ' + version if version else ''}: {finding.family}"]
    expected = Fraction(m.expected_fraction) / 100
    exp_text = repr(float(expected))
    head.append(
        f"# Expected {exp_text} on nltk's 0..1 scale (chrF, {claims['definition']} definition, "
        f"beta={beta_literal(claims['beta'])}, char order {claims['char_order']})."
    )
    if m.actual_raw is not None:
        got = m.actual_raw
    elif m.actual is not None:
        got = repr(m.actual / 100)
    else:
        got = m.outcome
    lines = list(head)
    notes = []
    if m.level == "sentence":
        refs = list(m.inputs["references"])
        if len(refs) > 1:
            notes.append(f"# nltk takes a single reference; the audit used the first of {len(refs)}.")
        lines += notes + [
            "from nltk.translate.chrf_score import sentence_chrf",
            "",
            f"hypothesis = {py_literal(m.inputs['hypothesis'])}",
            f"reference = {py_literal(refs[0])}",
            "# nltk takes the reference first and scores on 0..1",
            f"score = sentence_chrf(reference, hypothesis, {_kwargs(claims, options)})",
        ]
    else:
        refs = [list(r)[0] for r in m.inputs["references"]]
        if any(len(r) > 1 for r in m.inputs["references"]):
            notes.append("# nltk takes a single reference per segment; the audit used the first.")
        lines += notes + [
            "from nltk.translate.chrf_score import corpus_chrf",
            "",
            f"hypotheses = {py_list_literal(m.inputs['hypotheses'])}",
            f"references = {py_list_literal(refs)}  # one reference per segment",
            "# nltk takes the references first and scores on 0..1",
            f"score = corpus_chrf(references, hypotheses, {_kwargs(claims, options)})",
        ]
    lines.append(f"print(score)  # prints {prints}" if options else f"print(score)  # prints {got}; expected {exp_text}")
    return "\n".join(lines) + "\n"


# -- patches (``nltk_patches``: opt-in keywords for the documented definitions) ------------------
_DEFINITION = ("add three keywords whose defaults keep today's scores: `effective_order=False` (True: only the "
               "orders with n-grams on both sides are averaged) and `order_average=\"fscore\"` "
               "(\"precision_recall\": precision and recall are averaged over the orders and combined into one "
               "F-score) to sentence_chrf and corpus_chrf, and `average=\"macro\"` (\"micro\": the n-gram "
               "statistics summed over the sentences are scored once) to corpus_chrf; each docstring says what the "
               "keyword computes alone, and the docstrings recommend the combination that is sacreBLEU's chrF")
PATCH_DESCRIPTIONS = {
    "requested-order-divisor": _DEFINITION,
    "f-score-averaged": _DEFINITION,
    "corpus-macro-average": _DEFINITION,
    "whitespace-set-white-space": "remove every str.isspace() character with \"\".join(sent.split()) (U+001C..U+001F "
                                  "included, as nltk 3.10.3's re.sub did), with a doctest line, and drop the "
                                  "nltk.redos import only that line used",
}


def patched_source(family: str) -> Optional[tuple[str, str, str]]:
    """(relative file, original text, patched text) or None when not applicable."""
    found = nltk_patches.edits({family})
    return apply_edits(MODULE, found) if found else None


def combined_source(families) -> Optional[tuple[str, str, str, list[str]]]:
    """(relative file, original text, text fixing every family of ``families`` that has a
    patch, those families) or None when fewer than two have one."""
    fams = [f for f in dict.fromkeys(families) if f in nltk_patches.FAMILIES]
    if len(fams) < 2:
        return None
    found = apply_edits(MODULE, nltk_patches.edits(fams))
    return None if found is None else (*found, fams)


# -- the backend the worker builds ----------------------------------------------------------


class NltkBackend:
    """Calls nltk's ``sentence_chrf``/``corpus_chrf`` inside the worker (reference first, one
    reference per segment)."""

    def __init__(self, **options):
        from nltk.translate import chrf_score

        self.m = chrf_score
        #: keyword arguments of a patched copy's opt-in behaviour (``Upstream.patch_options``)
        self.options = dict(options)

    def describe(self):
        from importlib import metadata

        return {
            "version": metadata.version("nltk"),
            "sources": {
                "sentence": source_of(self.m.sentence_chrf),
                "corpus": source_of(self.m.corpus_chrf),
            },
        }

    @staticmethod
    def _kw(claims):
        return dict(
            min_len=1,
            max_len=claims["char_order"],
            beta=plain_beta(claims["beta"]),
            ignore_whitespace=not claims["whitespace"],
        )

    def sentence(self, claims, hypothesis, references):
        options = {k: v for k, v in self.options.items() if k not in nltk_patches.CORPUS_ONLY}
        return self.m.sentence_chrf(references[0], hypothesis, **self._kw(claims), **options)

    def corpus(self, claims, hypotheses, references):
        return self.m.corpus_chrf([r[0] for r in references], hypotheses, **self._kw(claims), **self.options)


UPSTREAM = Upstream(
    name=NAME, distribution=DISTRIBUTION, module=MODULE, default_claims=DEFAULT_CLAIMS,
    adapters=(
        BuiltinAdapter("nltk", dict(char_order=6, word_order=0, beta=3, whitespace=False, definition="sacrebleu",
                                    scale=1),
                       accepts=frozenset({"char_order", "beta", "whitespace"}), multi_reference=False, default=True),
    ),
    combined_source=combined_source, backend=NltkBackend, repro_snippet=repro_snippet, patched_source=patched_source,
    patch_descriptions=PATCH_DESCRIPTIONS, patch_options=nltk_patches.options, knowledge=nltk_record.KNOWLEDGE,
    patch_group=nltk_patches.group_of,
)
