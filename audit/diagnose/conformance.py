"""The conformance matrix: which definitions an implementation meets, level by level.

A level's column is judged inside that level's unit of the audit, from what that unit saw:

* the claimed definition: the families the search found at this level;
* every other definition: the inputs the unit scored under the claimed parameters, re-scored
  by the reference following that definition; a divergence is classified through the
  unit's ``classify`` (at most ``max_classified`` of them: each costs probes).  What a unit
  offers is ``UnitScores``, the interface the collect stage's checker implements.

Outcomes that are not numbers (crash, timeout, ...), nondeterminism and the metamorphic
relations that hold under every definition (segment order, added reference) need no
definition: found at a level, they break every definition there.  A level
that was not searched with its whole share of the budget is left out of the matrix
(rendered "not checked"), never reported as meeting a definition.
"""

from __future__ import annotations

from typing import Mapping, Optional, Protocol, runtime_checkable

from .explain import Explanation
from .families import FAMILIES, key_families


@runtime_checkable
class UnitScores(Protocol):
    """What the conformance matrix reads of one unit of the audit, and nothing else: the
    inputs it scored under the claimed parameters with the implementation's values, the
    tolerance of a comparison, and the classification of one divergence.  The collect
    stage's ``audit.collect.checker.Checker`` declares it as its base class (an import
    downwards, which tests/test_import_layers.py sees), so the interface between the two
    stages is this class, not whatever attributes the matrix happened to read."""

    #: level -> [(segments, the implementation's score on the 0..100 scale)]
    samples: Mapping[str, list]
    tolerance: float

    def classify(self, level: str, segments, params, actual: float) -> Optional[Explanation]:
        """The explanation of ``actual`` on ``segments`` under ``params``, or None."""
        ...

#: Families that say nothing about a definition: they break all of them (at their level).
#: (metamorphic-whitespace and metamorphic-identical-not-perfect assume the claimed one.)
UNIVERSAL = ("exception", "crash", "timeout", "invalid-output", "nondeterminism",
             "metamorphic-segment-order", "metamorphic-added-reference")


def _ordered(families) -> list[str]:
    return sorted(set(families), key=lambda f: (list(FAMILIES).index(f) if f in FAMILIES else 999, f))


def level_conformance(unit: UnitScores, base, found: dict, level: str, max_classified: int = 8) -> dict:
    """definition -> families that break it at ``level`` ([]: meets it); ``base``: the
    claimed parameters (``reference_impl.ChrfParams``, their definition the claimed one)."""
    from dataclasses import replace as dc_replace

    from reference_impl import DEFINITIONS, corpus_fscore, segment_statistics, sentence_fscore, sum_stats

    claimed = base.definition
    universal = {f for key in found for f in key_families(key) if f in UNIVERSAL}
    out: dict[str, list[str]] = {}
    for definition in DEFINITIONS:
        families = set(universal)
        if definition == claimed:
            families |= {f for key, c in found.items() for f in key_families(key)
                         if c.minimal is not None and not c.minimal.changes}
            out[definition] = _ordered(families)
            continue
        params = dc_replace(base, definition=definition)
        classified = 0
        for segments, value in sorted(unit.samples[level], key=lambda sv: sv[1] in (0.0, 100.0)):
            # (a score of 0 or 100 fits so many stories that it tells none apart: judged last)
            stats = [segment_statistics(h, refs, params)[0] for h, refs in segments]
            expected = (sentence_fscore(stats[0], params) if level == "sentence"
                        else corpus_fscore(sum_stats(stats, params.order), params))
            if abs(float(expected) - value) <= unit.tolerance:
                continue
            if classified >= max_classified:
                break  # enough seen: the families found so far break it
            classified += 1
            ex = unit.classify(level, segments, params, value)
            fams = tuple(ex.families) if ex is not None else ()
            families.update(fams or ["unexplained"])
            if not fams:
                break  # nothing explains it: one unexplained input says enough, and costs most
        out[definition] = _ordered(families)
    return out


def align_claimed(summary, claimed: str):
    """The claimed definition's column of ``summary``'s matrix made the findings of each
    level it covers, nothing else: the matrix, the summary, the table and JSON say the same
    thing (an unexplained group a metamorphic finding stands for is not listed twice).
    Returns ``summary``."""
    column = (summary.conformance or {}).get(claimed)
    if column is None:
        return summary
    for level in list(column):
        column[level] = _ordered(f.family for f in summary.findings if f.level == level)
    return summary
