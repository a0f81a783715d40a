"""A name is a claim: the evidence a candidate explanation must earn its name with (issue 30).

A candidate (deviations whose exact model reproduced one divergent input, found by
``audit.diagnose.explain``, or a stage variant the scan tries) is accepted only when:

1. **its own distinguishing inputs**: of its families' trigger pools (declared once, in each
   family's registry entry), the inputs on which its prediction differs from the definition
   *and* from every explanation built from the deviations accepted so far and their
   combinations (``FittedModel.explanations``); on at least ``MIN_PER_FAMILY`` of them per
   family and ``MIN_PREDICTED`` in all (``PER_FAMILY`` drawn per family) the implementation
   gives exactly its prediction, and on none anything else;
2. **its rivals**: for each declared rival mechanism of each of its families (``rivals`` in the
   registry, symmetric: other families, and ``Rival`` mechanisms no family names), and for
   the ends of the scale (an implementation that scores 0 or 100 on a class of inputs agrees
   with any model predicting 0 or 100 there), the inputs of the same pools on which the
   candidate with that family replaced by the rival predicts otherwise: on ``MIN_RIVAL`` of
   them the implementation sides with the candidate, and on none with anything else.  Where
   the pools hold fewer such inputs, the evidence cannot tell the two apart: no name (the
   model records "one of A, B");
3. **every deviation needed**: without any one of the candidate's deviations some input is
   mispredicted.

``differs`` is the one discrimination check; ``tests/test_precision_rules.py`` holds that
disabling it names a rival mechanism wrongly.  An output family whose prediction is "within
float32 error" cannot differ from the definition by more than the tolerance on purpose: its
own inputs are its whole pool, and it needs ``MIN_RIVAL`` of them where the implementation
differs from the definition.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Optional

from . import deviations
from .deviations.triggers import pool as trigger_pool
from .fitted import CLAIMED, merge, merge_all
from . import output_rivals
from .models import agrees, describe_output, output, variant_score
from .text_model import text_stats
from .reduce import without
from .variants import ScoreVariant, TextVariant, runtime_of

#: Distinguishing inputs drawn per family of a candidate; how many must be predicted per
#: family and in all; separating inputs needed per rival.
PER_FAMILY = 6
MIN_PER_FAMILY = 4
MIN_PREDICTED = 5
MIN_RIVAL = 2
#: The ends of the scale, rivals of every family.
ENDS = (("scores 0", Fraction(0)), ("scores 100", Fraction(100)))


def differs(a: Optional[float], b: Optional[float], tolerance: float) -> bool:
    """The discrimination check: do two predictions tell explanations apart on an input?"""
    return a is not None and b is not None and abs(a - b) > tolerance


@dataclass
class Verdict:
    variant: tuple
    predicted: int
    rivals: list = field(default_factory=list)
    #: what the model is, in words: the runtime behaviour a text stage models, the output
    #: stage's rounding (and the models of the same family no input told apart from it)
    model: str = ""

    @property
    def evidence(self) -> str:
        told = f" and from {', '.join(self.rivals)}" if self.rivals else ""
        return (f"explains {self.predicted} of {self.predicted} distinguishing inputs (where it differs from the "
                f"definition, from the other fitted deviations{told})" + (f"; as {self.model}" if self.model else ""))


class Judge:
    """Judges candidates for one unit; remembers predictions and verdicts."""

    def __init__(self, tolerance: float, oracle):
        self.tolerance = tolerance
        self.oracle = oracle
        self._out: dict = {}
        self._stats: dict = {}
        self._verdicts: dict = {}
        #: families -> (inputs agreeing, inputs asked) where their model changes the
        #: definition's score: partial support marks a family another bug may hide
        self.support: dict = {}
        #: an ``audit.diagnose.inert.Region`` while candidates are judged behind an unexplained
        #: deviation: every pool is projected onto it (``behind``)
        self.region = None
        #: what is fitted while a candidate is judged (its rivals are combined with it)
        self._accepted: dict = {}

    @contextlib.contextmanager
    def behind(self, region):
        """Judge on the families' distinguishing inputs projected onto ``region`` (where the
        unexplained deviation was found inert, ``audit.diagnose.inert``)."""
        self.region = region
        try:
            yield
        finally:
            self.region = None

    # ------------------------------------------------------------------ predictions
    def exact(self, segs, params, level: str, variant) -> Optional[Fraction]:
        """A model's exact score of ``segs`` (None: it cannot read it), remembered."""
        text = repr(segs)
        key = (text, params, level, variant)
        if key not in self._out:
            try:
                skey = (text, params, variant[0])
                if skey not in self._stats:
                    self._stats[skey] = text_stats(segs, params, variant[0])
                self._out[key] = variant_score(self._stats[skey], params, variant[1], level)
            except Exception:  # noqa: BLE001 - a model that cannot read this input
                self._out[key] = None
        return self._out[key]

    def output(self, segs, params, level: str, variant, scale: int) -> Optional[float]:
        """The number a model's implementation returns on ``segs`` (None: it cannot read it)."""
        value = self.exact(segs, params, level, variant)
        return None if value is None else output(value, variant[1], scale)

    def agrees(self, segs, params, level, variant, actual, scale) -> bool:
        """Does a model's implementation answer ``actual`` on ``segs``?"""
        value = self.exact(segs, params, level, variant)
        return value is not None and agrees(value, variant[1], actual, scale, self.tolerance)

    _agrees = agrees

    # ------------------------------------------------------------------ inputs
    def distinguishing(self, families, merged, alternatives, pools, params, level: str, scale: int,
                       per_family: int = PER_FAMILY) -> dict:
        """family -> the first ``per_family`` inputs of its pool on which ``merged`` differs from
        every model of ``alternatives`` (output families that can only be "within float32
        error": the pool itself)."""
        out = {}
        for fam in families:
            kept = []
            for segs in pools[fam]:
                if len(kept) == per_family:
                    break
                p = self.output(segs, params, level, merged, scale)
                if p is None:
                    continue
                if fam == "float32-arithmetic" or \
                        all(differs(p, self.output(segs, params, level, a, scale), self.tolerance) for a in alternatives):
                    kept.append(segs)
            out[fam] = kept
        return out

    def separating(self, merged, alternative, pools, params, level: str, scale: int) -> list:
        """Inputs of the pools on which ``merged`` and ``alternative`` (a model, or a constant
        score) predict different numbers."""
        out, seen = [], set()
        for pool in pools.values():
            for segs in pool:
                k = repr(segs)
                if k in seen:
                    continue
                seen.add(k)
                p = self.output(segs, params, level, merged, scale)
                q = float(alternative) if isinstance(alternative, Fraction) else \
                    self.output(segs, params, level, alternative, scale)
                if differs(p, q, self.tolerance):
                    out.append(segs)
        return out

    def rivals(self, families, merged, params, level: str, nrefs: int, nsegs: int,
               accepted=()) -> list[tuple[str, object]]:
        """(name, model or constant) of each alternative a rival mechanism makes of ``merged``:
        the family replaced by its rival -- alone, and combined with each deviation
        ``accepted`` already and with all of them (issue 41: two accepted families together
        may be what a third family looks like) -- and the ends of the scale."""
        out = []
        for fam in families:
            rest = without(fam, merged)
            for rid, stage, (fld, value) in deviations.rival_models(fam, params, level, nrefs, nsegs):
                part = (replace(TextVariant(), **{fld: value}), ScoreVariant()) if stage == "text" else \
                    (TextVariant(), replace(ScoreVariant(), **{fld: value}))
                for name, extra in [(rid, ())] + [(f"{rid} + {' + '.join(k)}", (v,)) for k, v in accepted] + \
                        ([(f"{rid} + {' + '.join(f for k, _ in accepted for f in k)}", [v for _, v in accepted])]
                         if len(accepted) > 1 else []):
                    alt = merge_all(extra, merge(rest, part)) if merge(rest, part) is not None else None
                    if alt is not None and alt != merged and alt not in [a for _, a in out]:
                        out.append((name, alt))
        return out + list(ENDS)

    # ------------------------------------------------------------------ the verdict
    def judge(self, adapter, level: str, params, cand, fitted, accepted: dict) -> Optional[Verdict]:
        """The candidate's verdict with ``accepted`` (families -> variant) as what is fitted
        already; None when it is refused (an ambiguity is recorded on ``fitted``)."""
        key = (repr(adapter.claims), params, level, tuple(cand.families), cand.variant, tuple(sorted(accepted)),
               tuple(accepted.values()), self.region and self.region.id)
        if key not in self._verdicts:
            self._verdicts[key] = self._judge(adapter, level, params, cand, fitted, accepted)
        return self._verdicts[key]

    def _judge(self, adapter, level, params, cand, fitted, accepted):
        scale = adapter.claims.scale
        nrefs = 3 if adapter.supports.multi_reference else 1
        nsegs = 3 if level == "corpus" else 1
        takes = adapter.supports.takes
        pools = {f: [s for s in trigger_pool(f, params, level, nrefs) if all(takes(len(rs)) for _, rs in s)]
                 for f in cand.families}
        if self.region is not None:
            pools = self._projected(pools, cand, params, level, merge_all(accepted.values(), cand.variant) or cand.variant,
                                    nrefs, nsegs)
        alternatives = fitted.explanations(params, level, nrefs, nsegs, accepted)
        self._accepted = accepted  # (what the rivals are combined with, ``rivals``)
        variants = output_rivals.candidates(cand.variant)  # the decimals seen on one input may be too few
        if "precision-loss" in pools:  # the ties of this model's score, where the rounding modes part
            base = merge_all(accepted.values(), cand.variant) or cand.variant
            pools["precision-loss"] = pools["precision-loss"] + output_rivals.ties(
                params, level, base, scale, lambda segs: self.exact(segs, params, level, base))
        residuals = [()] + [(v,) for v in accepted.values()]
        if len(accepted) > 1:
            residuals.append(tuple(accepted.values()))
        for variant in variants:
            for extra in residuals:
                merged = merge_all(extra, variant)
                if merged is None:
                    continue
                verdict = self._try(adapter, level, params, cand, fitted, variant, extra, merged, alternatives, pools,
                                    nrefs, nsegs, scale)
                if verdict is not None:
                    return verdict
        return None

    def _projected(self, pools: dict, cand, params, level: str, merged, nrefs: int, nsegs: int) -> dict:
        """The pools projected onto ``self.region``: inputs of its shape on which the candidate
        differs from the definition or from one of its rivals (``audit.diagnose.inert``)."""
        from . import inert

        others = [CLAIMED] + [alt for _, alt in self.rivals(cand.families, merged, params, level, nrefs, nsegs)
                              if not isinstance(alt, Fraction)]
        matters = inert.differs_from(params, level, merged, others, self.tolerance)
        return {f: inert.project(p, self.region, params, level, merged, matters) for f, p in pools.items()}

    def _scored(self, adapter, level, inputs) -> list:
        return [(s, a) for s, a in zip(inputs, self.oracle.scores(adapter, level, inputs)) if a is not None]

    def changed(self, families, merged, pools, params, level: str, scale: int, per_family: int) -> list:
        """The first ``per_family`` inputs of each family's pool on which ``merged`` changes the
        definition's score: where the candidate's model is tested at all."""
        out = []
        for fam in families:
            kept = 0
            for segs in pools[fam]:
                if kept == per_family:
                    break
                if fam == "float32-arithmetic" or differs(self.output(segs, params, level, merged, scale),
                                                          self.output(segs, params, level, CLAIMED, scale),
                                                          self.tolerance):
                    out.append(segs)
                    kept += 1
        return out

    #: Inputs asked first, then the rest of the 2 * PER_FAMILY per family: a wrong model is
    #: usually contradicted at once, before the others are predicted.
    FIRST_ASKED = 3

    def _consistent(self, adapter, level, params, cand, merged, pools, scale) -> bool:
        """No input where the model changes the definition's score (the first 2 * PER_FAMILY
        of each family's pool) contradicts it; records how many agree (``support``)."""
        first = self.changed(cand.families, merged, pools, params, level, scale, self.FIRST_ASKED)
        seen = {id(s) for s in first}
        rest = [s for s in self.changed(cand.families, merged, pools, params, level, scale, 2 * PER_FAMILY)
                if id(s) not in seen]
        agreeing = total = 0
        ok = True
        for batch in (first, rest):
            tested = self._scored(adapter, level, batch)
            agree = sum(self._agrees(s, params, level, merged, a, scale) for s, a in tested)
            agreeing, total = agreeing + agree, total + len(tested)
            if agree < len(tested):
                ok = False
                break
        key = tuple(cand.families)
        self.support[key] = max(self.support.get(key, (0, 0)), (agreeing, total))
        return ok

    def _try(self, adapter, level, params, cand, fitted, variant, extra, merged, alternatives, pools, nrefs, nsegs,
             scale) -> Optional[Verdict]:
        # No input where the model changes the definition's score may contradict it (checked
        # first: most candidates fall here, before any alternative is computed).
        if not self._consistent(adapter, level, params, cand, merged, pools, scale):
            return None
        wide = self.distinguishing(cand.families, merged, alternatives, pools, params, level, scale, 2 * PER_FAMILY)
        valid: list = []
        for fam in cand.families:  # the first PER_FAMILY, the next ones for inputs that gave no number
            got = self._scored(adapter, level, wide[fam][:PER_FAMILY])
            if len(got) < MIN_PER_FAMILY:
                got += self._scored(adapter, level, wide[fam][PER_FAMILY:])[:PER_FAMILY - len(got)]
            if len(got) < MIN_PER_FAMILY:
                return None
            valid += got
        if len(valid) < MIN_PREDICTED:
            return None
        if not all(self._agrees(s, params, level, merged, a, scale) for s, a in valid):
            return None
        if not self._all_needed(variant, extra, valid, params, level, scale):
            return None
        if "float32-arithmetic" in cand.families and sum(
                differs(a, self.output(s, params, level, CLAIMED, scale), self.tolerance) for s, a in valid) < MIN_RIVAL:
            return None  # within float32 error of the definition, and never off it: no evidence
        told, untold = [], []
        same_family = {name for name, _, same in output_rivals.rivals(merged, self._describe(scale)) if same}
        combined = [(k, v) for k, v in self._accepted.items() if not set(k) & set(cand.families)]
        for name, alt in self.rivals(cand.families, merged, params, level, nrefs, nsegs, combined) + \
                [(n, a) for n, a, _ in output_rivals.rivals(merged, self._describe(scale))]:
            sep = self.separating(merged, alt, pools, params, level, scale)
            got = self._scored(adapter, level, sep[:MIN_RIVAL + 2])
            if len(got) < MIN_RIVAL and name in same_family:
                untold.append(name.split("(", 1)[1].rstrip(")"))  # one family: named, the mode left open
                continue
            if len(got) < MIN_RIVAL:
                fitted.ambiguous(f"one of {' + '.join(cand.families)} or {name}: no input of their trigger pools "
                                 f"tells them apart")
                return None
            if not all(self._agrees(s, params, level, merged, a, scale) for s, a in got):
                return None
            if merged[1].float32 and not isinstance(alt, Fraction) and \
                    all(self._agrees(s, params, level, alt, a, scale) for s, a in got):
                return None  # a band is no name where the implementation gives exactly another model's numbers
            if not isinstance(alt, Fraction) and name not in told and name not in same_family:
                told.append(name)
        return Verdict(variant, len(valid), told, self._model_words(variant, scale, untold))

    @staticmethod
    def _describe(scale: int):
        return lambda sv: describe_output(sv, scale)

    @staticmethod
    def _model_words(variant, scale: int, untold: list) -> str:
        """The model in words: its runtime behaviours and its rounding (with the roundings no
        input told apart from it)."""
        out = describe_output(variant[1], scale) if variant[1].rounding is not None else ""
        if out and untold:
            out += f" (not told apart from: {'; '.join(untold[:3])}{'; ...' if len(untold) > 3 else ''})"
        return "; ".join(x for x in (runtime_of(variant), out) if x)

    def _all_needed(self, variant, extra, valid, params, level, scale) -> bool:
        """No deviation of the candidate is idle: without any one of them (the accepted ones
        still merged in) the prediction fails on some held-out input."""
        tv, sv = variant
        for part, cls in ((tv, TextVariant), (sv, ScoreVariant)):
            default = cls()
            for name in part.__dataclass_fields__:
                if getattr(part, name) == getattr(default, name) or name in ("rounding", "rounding_mode", "float32"):
                    continue
                less = (replace(tv, **{name: getattr(default, name)}), sv) if part is tv else \
                    (tv, replace(sv, **{name: getattr(default, name)}))
                less = merge_all(extra, less)
                if less is not None and all(self._agrees(s, params, level, less, a, scale) for s, a in valid):
                    return False
        return True

    def mispredicted(self, adapter, level: str, params, families, merged) -> list:
        """(input, the implementation's score) of each input of ``families``' pools where
        ``merged`` changes the definition's score (the inputs ``_consistent`` asks) and the
        implementation gives another number than ``merged`` predicts: where another
        deviation may be at work."""
        scale = adapter.claims.scale
        nrefs = 3 if adapter.supports.multi_reference else 1
        pools = {f: [s for s in trigger_pool(f, params, level, nrefs) if all(adapter.supports.takes(len(rs)) for _, rs in s)]
                 for f in families}
        first = self.changed(families, merged, pools, params, level, scale, self.FIRST_ASKED)
        seen = {id(s) for s in first}
        rest = [s for s in self.changed(families, merged, pools, params, level, scale, 2 * PER_FAMILY)
                if id(s) not in seen]
        for batch in (first, rest):  # in the order asked: the rest only when the first batch agreed
            wrong = [(s, a) for s, a in self._scored(adapter, level, batch)
                     if not self._agrees(s, params, level, merged, a, scale)]
            if wrong:
                return wrong
        return []

    def targeted_inputs(self, families, params, level: str, nrefs: int, variant, fitted=None, accepted=None,
                        per_family: int = PER_FAMILY) -> list:
        """The distinguishing inputs a candidate naming ``families`` is judged on first (with
        nothing, or ``accepted``, fitted): to ask in one batch before judging."""
        from .fitted import FittedModel

        fitted = fitted or FittedModel(params.definition)
        nsegs = 3 if level == "corpus" else 1
        alternatives = fitted.explanations(params, level, nrefs, nsegs, accepted or {})
        merged = merge_all((accepted or {}).values(), variant) or variant
        pools = {f: trigger_pool(f, params, level, nrefs) for f in families}
        chosen = self.distinguishing(families, merged, alternatives, pools, params, level, 100, per_family)
        return [s for f in families for s in chosen[f]]

    def first_inputs(self, families, params, level: str, nrefs: int, variant, accepted=None) -> list:
        """The inputs a candidate's verdict asks about first (those on which its model changes
        the definition's score): cheap to find, to ask in one batch before judging."""
        merged = merge_all((accepted or {}).values(), variant) or variant
        pools = {f: trigger_pool(f, params, level, nrefs) for f in families}
        return self.changed(families, merged, pools, params, level, 100, 2 * PER_FAMILY)
