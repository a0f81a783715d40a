"""Records of scripts audited as external programs (``--external ... --name NAME``): what their
tracker says, which families share one root cause (one issue per root cause), and a repro
through the script's OWN command line, so that a maintainer needs neither chrf-audit nor its
wrapper.  Only Popović's chrF++.py for now (GPL: chrf-audit ships none of its code; the
repro names its published options, ``-R -H -nc -nw -b``)."""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from typing import Callable, Optional

from .records import BUG, FamilyNote, Knowledge, Related

CHRF = "m-popovic/chrF"


def _files(name: str, lines: list[str]) -> str:
    """A shell line writing one segment per line into ``name``."""
    return f"printf '%s\\n' {' '.join(shlex.quote(x) for x in lines)} > {name}"


def _chrfpp_command(finding: dict, order: str = "as given") -> list[str]:
    """chrF++.py's own command line on a finding's input (references joined by its ``*#``)."""
    m, claims = finding["minimal"], finding.get("claims") or {}
    if m["level"] == "sentence":
        hyps, refs = [m["inputs"]["hypothesis"]], [list(m["inputs"]["references"])]
    else:
        hyps, refs = list(m["inputs"]["hypotheses"]), [list(r) for r in m["inputs"]["references"]]
    if order == "reversed":
        hyps, refs = hyps[::-1], refs[::-1]
    opts = f"-nc {claims.get('char_order', 6)} -nw {claims.get('word_order', 2)} -b {claims.get('beta', 2)}"
    return [_files("hypothesis.txt", hyps) + "  # one segment per line",
            _files("reference.txt", ["*#".join(r) for r in refs]) + "  # references joined by *#",
            f"python3 chrF++.py -R reference.txt -H hypothesis.txt {opts}"
            + (" -s" if m["level"] == "sentence" else "")]


def _chrfpp_repro(finding: dict) -> str:
    m = finding["minimal"]
    head = [f"# chrF repro for chrF++.py: {finding['family']} (its own command line; chrF++.py from "
            "github.com/m-popovic/chrF)"]
    if finding["family"] == "metamorphic-segment-order":
        return "\n".join(head + _chrfpp_command(finding) + [
            f"# prints c{finding['claims'].get('char_order', 6)}+w{finding['claims'].get('word_order', 2)}-F"
            f"{finding['claims'].get('beta', 2)} {m['actual']:.4f}: the same segments in the reverse order:",
            *_chrfpp_command(finding, "reversed")[:2],
            _chrfpp_command(finding, "reversed")[2] + f"  # prints {m['expected']:.4f}"]) + "\n"
    if m.get("outcome") == "value":  # a number, not the definition's: what the script prints
        claims = finding.get("claims") or {}
        label = f"c{claims.get('char_order', 6)}+w{claims.get('word_order', 2)}-F{claims.get('beta', 2)}"
        return "\n".join(head + _chrfpp_command(finding) + [
            f"# prints {label} {m['actual']:.4f}; the definition gives {m['expected']:.4f}"]) + "\n"
    detail = " ".join(str(m.get("detail") or m.get("outcome")).split())
    return "\n".join(head + _chrfpp_command(finding) + [f"# raises {detail}"]) + "\n"


def _reused(m: dict, params) -> Optional[float]:
    """The score (0..100) computeChrF gives a corpus repro when each segment no reference scores
    above 0 for takes the previous segment's chosen counts; None when the first one does (the
    UnboundLocalError) or the repro is no corpus score."""
    from reference_impl import corpus_fscore, segment_statistics, sentence_fscore, sum_stats

    if m.get("level") != "corpus" or m.get("actual") is None:
        return None
    chosen, stats = None, []
    for hyp, refs in zip(m["inputs"]["hypotheses"], m["inputs"]["references"]):
        scored = [segment_statistics(hyp, [r], params)[0] for r in refs]
        fs = [sentence_fscore(s, params) for s in scored]
        if fs and max(fs) > 0:
            chosen = scored[fs.index(max(fs))]  # the first reference above every earlier one (maxF from 0)
        elif chosen is None:
            return None
        stats.append(chosen)
    return float(corpus_fscore(sum_stats(stats, params.order), params))


def _previous_counts(finding: dict) -> Optional[str]:
    """Evidence that an unexplained corpus row is computeChrF's reuse of the previous segment's
    counts (the root cause of its UnboundLocalError): each of its repros (the minimal one and
    the largest difference) scores exactly what that reuse gives, and not the definition's
    score.  None when one does not (or cannot be told)."""
    from fractions import Fraction

    from reference_impl import ChrfParams

    c = finding.get("claims") or {}
    params = ChrfParams.make(char_order=c.get("char_order", 6), word_order=c.get("word_order", 2),
                             beta=Fraction(str(c.get("beta", 2))), lowercase=bool(c.get("lowercase")),
                             whitespace=bool(c.get("whitespace")), definition=c.get("definition", "chrfpp"))
    repros = [m for m in (finding.get("minimal"), finding.get("largest")) if m]
    for m in repros:
        predicted = _reused(m, params)
        if predicted is None or abs(predicted - m["actual"]) > 1e-9 or abs(m["expected"] - m["actual"]) <= 1e-9:
            return None
    scores = " and ".join(f"{m['actual']:g}" for m in repros)
    return (f"{'each of its repros scores' if len(repros) > 1 else 'its repro scores'} ({scores}) exactly the "
            "definition's score of the statistics where a segment no reference scores above 0 for takes the "
            "previous segment's counts")


@dataclass(frozen=True)
class Script:
    name: str
    knowledge: Knowledge
    #: family -> the family whose issue describes its root cause
    same_root: dict = field(default_factory=dict)
    #: family -> (the family whose issue describes its root cause, evidence(finding) -> a
    #: sentence, or None when this finding is not that root cause's)
    same_root_if: dict = field(default_factory=dict)
    #: a finding (document form) -> a repro through the script's own command line
    repro: Optional[Callable] = None

    def root_of(self, family: str, finding: Optional[dict]) -> Optional[tuple]:
        """(the family whose issue describes ``family``'s root cause, the evidence or None)."""
        if family in self.same_root:
            return self.same_root[family], None
        if family in self.same_root_if and finding is not None:
            root, evidence = self.same_root_if[family]
            said = evidence(finding)
            return (root, said) if said else None
        return None


CHRFPP = Script(
    name="chrF++.py",
    knowledge=Knowledge(
        functions={"sentence": "computeChrF", "corpus": "computeChrF"},
        parameters={"char_order": "-nc", "word_order": "-nw", "beta": "-b"},
        related=(Related(CHRF, 2, "pull request", "Allow for empty translation and return zero", "closed", 2019,
                         families=("exception", "metamorphic-segment-order", "unexplained"),
                         note="fixed the UnboundLocalError for an empty translation; closed without being merged",
                         quotes=(("FilipBolt", "Allow to have an empty translation when calculate chrF."),)),),
        notes={"exception": FamilyNote(
            kind=BUG, function="computeChrF",
            title="chrF++ raises UnboundLocalError when no reference of the first segment scores above 0, and "
                  "reuses the previous segment's counts for a later one",
            lead="A bug: in computeChrF a segment's n-gram counts are taken from the reference whose F is above "
                 "maxF = 0.0; when no reference scores above 0 (an empty hypothesis or reference, or no common "
                 "n-gram), bestMatchingCount and the other best* variables are not assigned: for the first "
                 "segment the script stops with UnboundLocalError, for a later one it adds the previous "
                 "segment's counts again.",
            consequence="An empty line or a segment without a single common n-gram makes the script crash when it "
                        "comes first and silently miscount the document score when it comes later, so the "
                        "document score depends on the order of the segments.")},
    ),
    same_root={"metamorphic-segment-order": "exception"},
    same_root_if={"unexplained": ("exception", _previous_counts)},
    repro=_chrfpp_repro,
)

SCRIPTS = {CHRFPP.name: CHRFPP}


def script_of(implementation: str) -> Optional[Script]:
    return SCRIPTS.get(implementation)
