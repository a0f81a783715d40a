"""Classification of a divergence: a name is earned by prediction, on inputs that could have
refuted it.

``audit.diagnose.explain`` proposes the deviation sets whose model reproduces the
implementation's output on the divergent input.  One input proves little (two deviations can
coincide on it), so a candidate is *accepted* only by the judge (``audit.diagnose.judge``):
on its families' distinguishing inputs its model -- with the deviations accepted already, the
residual of an implementation with several bugs -- predicts the implementation exactly,
where it differs from the definition, from every explanation built from the accepted
deviations, from its declared rivals and from the ends of the scale.  Accepted explanations
make up the implementation's ``FittedModel`` (one per definition held to); what none
explains is ``unexplained`` and carries a behavioural signature (``audit.diagnose.signature``),
so that two unknown bugs stay two findings.  Two bugs that spoil each other's
distinguishing inputs are named together: a refused candidate completed by the deviation
that reproduces an input it mispredicts is judged as one larger candidate (``_completed``).
"""

from __future__ import annotations

from typing import Optional

from .explain import Explanation, explain
from .fitted import FittedModel
from .judge import MIN_PREDICTED, PER_FAMILY, Judge
from .oracle import Oracle, score_many, score_segments
from .reduce import alone
from .signature import CLASSES
from .signature import signature as _signature

__all__ = ["Classifier", "score_many", "score_segments", "MIN_PREDICTED", "PER_FAMILY"]

#: Divergences per implementation and level that the search over sets of up to three
#: deviations may fail to explain before it stops being tried (only combinations of the
#: accepted explanations are then tried): an implementation with a bug no family describes
#: fails that search on almost every input, and each failure costs thousands of model
#: evaluations.  It stops only when failures also outnumber successes ``FAILURE_RATIO`` to
#: one, so an implementation whose divergences are mostly catalogued keeps being explained.
#: Counts, not a clock.
EXHAUSTIVE_FAILURES = 8
FAILURE_RATIO = 2
#: Candidates of one size beyond which an input is not judged at all: when that many deviation
#: sets reproduce its score, it is no evidence for any of them (others will be).
MAX_CANDIDATES = 40
#: Candidates refused by the judge that are completed with one more deviation per input no
#: candidate explains, at most (``Classifier._completed``).
COMPLETED = 3


class Classifier:
    """Names divergences for one unit: the fitted model per definition held to, the judge
    (and its memory of predictions and verdicts), the implementation's answers on held-out
    inputs (``oracle``), and the count of divergences no candidate explained."""

    CLASSES = CLASSES

    def __init__(self, tolerance: float):
        self.tolerance = tolerance
        self.oracle = Oracle()
        self.judge = Judge(tolerance, self.oracle)
        #: definition -> the implementation's fitted model under it (a deviation is a property
        #: of the code whatever parameters it is called with; the conformance matrix judges the
        #: other definitions without touching the model of the claimed one)
        self.models: dict[str, FittedModel] = {}
        #: level -> divergences no candidate explained / a candidate explained
        self.failures: dict = {}
        self.successes: dict = {}

    def fitted(self, definition: str) -> FittedModel:
        if definition not in self.models:
            self.models[definition] = FittedModel(definition)
        return self.models[definition]

    # ------------------------------------------------------------------ classification
    def classify(self, adapter, level, segments, params, actual) -> Optional[Explanation]:
        """The smallest combination of already accepted explanations that reproduces the
        input, else the smallest candidate the judge accepts."""
        scale = adapter.claims.scale
        fitted = self.fitted(params.definition)
        known = fitted.explains(segments, params, level, actual, scale, self.tolerance)
        if known is not None:
            return known
        failed = self.failures.get(level, 0)
        if failed >= EXHAUSTIVE_FAILURES and failed >= FAILURE_RATIO * self.successes.get(level, 0):
            self.failures[level] = failed + 1
            return None
        fams = fitted.families()
        # First on top of the model fitted so far (up to two more deviations), then from
        # the definition (up to three): the peel finds a fourth or fifth deviation cheaply.
        searches = ([dict(base=fitted.variant(), max_size=2)] if fams else []) + [dict(max_size=3)]
        refused: list[Explanation] = []  # candidates the judge refused (to be completed)
        told_apart = True  # False: accepted candidates the evidence could not tell apart
        for how in searches:
            for candidates in explain(segments, params, level, actual, self.tolerance, scale, **how):
                candidates = [c for c in candidates if not set(c.families) & fitted.dropped]
                if len(candidates) > MAX_CANDIDATES:
                    break  # so many stories fit this input (a score of 0, say) that it tells none apart
                accepted = [c for c in candidates if self.confirm(adapter, level, params, c)]
                refused += [c for c in candidates if c not in accepted]
                if len(accepted) > 1:
                    accepted = self._cross_check(adapter, level, params, accepted, fitted)
                    told_apart = told_apart and bool(accepted)
                if accepted:
                    best = accepted[0]
                    self.accept(params.definition, best.families, best.variant)
                    self.successes[level] = self.successes.get(level, 0) + 1
                    if "base" in how:  # the observation's key: the accepted deviations it needs
                        return fitted.explains(segments, params, level, actual, scale, self.tolerance) or best
                    return best
        # (where the evidence could not tell accepted candidates apart, no larger one is tried
        # in their place: "one of A, B" stays the answer)
        larger = self._completed(adapter, level, params, refused, fitted) if told_apart else None
        if larger is not None:
            self.accept(params.definition, larger.families, larger.variant)
            self.successes[level] = self.successes.get(level, 0) + 1
            # the observation's key: the accepted deviations it needs (often fewer)
            ex = fitted.explains(segments, params, level, actual, scale, self.tolerance) or larger
            ex.detail = ex.detail or f"{' + '.join(larger.families)}: {larger.detail}"
            return ex
        self.failures[level] = failed + 1
        return None

    def _completed(self, adapter, level, params, refused, fitted) -> Optional[Explanation]:
        """Bugs that spoil each other's distinguishing inputs: a candidate ``X`` reproduces
        the input but the judge refused it, because on some of its own inputs the
        implementation gives another number (one more deviation is at work there).  The
        deviations ``Y`` that, added to ``X`` (and the fitted model), reproduce the first
        such input are each judged with ``X`` as one candidate ``X + Y``, by the judge, on
        every family's distinguishing inputs: the larger candidate earns its names as any
        candidate does.  At most ``COMPLETED`` refused candidates (the smallest, then the best
        supported: their model gave the implementation's score on inputs where it changes
        the definition's), one mispredicted input each; the step runs only where the input
        would stay unexplained.  (The fit's scan pairs its singles the same way,
        ``audit.collect.fitting``; a classification in a unit whose model is not fitted --
        a repro replayed in a fresh process, a definition of the conformance matrix other
        than the claimed one -- has only this.)"""
        from .fitted import merge, merge_all

        scale = adapter.claims.scale
        support = self.judge.support
        unique = {(tuple(c.families), c.variant): c for c in refused if c.variant}
        ranked = sorted(unique.values(), key=lambda c: (len(c.families), -support.get(tuple(c.families), (0, 0))[0],
                                                        c.families))
        tried = 0
        for cand in ranked:
            if tried == COMPLETED:
                break
            if support.get(tuple(cand.families), (0, 0))[0] < 1:
                continue  # its model never gave the implementation's score where it matters
            merged = merge_all(fitted.accepted.values(), cand.variant)
            wrong = [] if merged is None else self.judge.mispredicted(adapter, level, params, cand.families, merged)
            if not wrong:
                continue
            tried += 1
            segs, value = wrong[0]
            for partners in explain(segs, params, level, value, self.tolerance, scale, max_size=1, base=merged):
                for y in partners:
                    both = merge(cand.variant, y.variant)
                    if both is None or set(y.families) & (fitted.dropped | set(cand.families)):
                        continue
                    larger = Explanation(cand.families + y.families, None, variant=both)
                    if self.confirm(adapter, level, params, larger):
                        return larger
        return None

    def confirm(self, adapter, level, params, cand: Explanation, accepted: Optional[dict] = None) -> bool:
        """Does the judge accept ``cand`` (with ``accepted``, default: the fitted model, as
        what is fitted already)?  On a verdict the candidate carries its model, counts and
        evidence, and the evidence is the model's."""
        fitted = self.fitted(params.definition)
        verdict = self.judge.judge(adapter, level, params, cand, fitted,
                                   fitted.accepted if accepted is None else accepted)
        if verdict is None:
            return False
        cand.variant, cand.predicted, cand.targeted = verdict.variant, verdict.predicted, verdict.predicted
        cand.detail = "; ".join(x for x in (cand.detail, verdict.evidence) if x)
        fitted.cite(level, cand.families, verdict.evidence)
        return True

    def accept(self, definition: str, families, variant, level: Optional[str] = None,
               evidence: Optional[str] = None) -> None:
        """Add an explanation to the model of ``definition`` (with why, at ``level``, when it
        was earned otherwise than by the judge).  A new model deserves new attempts: the count
        of failed explanations starts again."""
        self.fitted(definition).accept(families, variant)
        if evidence is not None and level is not None:
            self.fitted(definition).cite(level, families, evidence, replace=True)
        for level in list(self.failures):
            self.failures[level] = 0

    def retry(self, level: str) -> None:
        """Try the exhaustive search again at ``level`` (the model changed otherwise)."""
        self.failures.pop(level, None)

    def settle(self, adapter, level: str, params, protected=frozenset(), samples=()) -> list[str]:
        """Judge every accepted family again, alone, with the others accepted as what is fitted
        (a family accepted before the deviations that truly explain its inputs were, may owe
        its name to their absence), and against the observed ``samples`` ((segments, score)
        under the claimed parameters): a score the model without the family reproduces and
        the model with it does not refutes it.  Refused ones are dropped, until none is.
        ``protected``: families named by other evidence (an ignored parameter, an identity).
        Returns the dropped."""
        from .reduce import without

        fitted = self.fitted(params.definition)
        scale = adapter.claims.scale
        dropped: list[str] = []
        again = True
        while again:
            again = False
            for fam in fitted.families():
                if fam in protected:
                    continue
                model = fitted.variant()
                cand = Explanation([fam], None, variant=alone(fam, model))
                refuted = self.judge.judge(adapter, level, params, cand, fitted, fitted.others([fam])) is None
                if not refuted and samples:
                    rest = without(fam, model)
                    refuted = any(not self.judge.agrees(s, params, level, model, v, scale) and
                                  self.judge.agrees(s, params, level, rest, v, scale) for s, v in samples)
                if refuted:
                    fitted.drop(fam)
                    dropped.append(fam)
                    again = True
                    break
        return dropped

    def _cross_check(self, adapter, level, params, accepted, fitted):
        """Several candidates of one size each earned their names: keep those that also
        predict the others' distinguishing inputs.  More than one left: the evidence cannot
        tell them apart, and none is named."""
        from .models import agrees, predict

        scale, tol = adapter.claims.scale, self.tolerance
        nrefs = 3 if adapter.supports.multi_reference else 1
        inputs = []
        for c in accepted:
            inputs += self.judge.targeted_inputs(c.families, params, level, nrefs, c.variant, fitted, fitted.accepted)
        inputs = [s for s in inputs if all(adapter.supports.takes(len(rs)) for _, rs in s)]
        valid = [(s, a) for s, a in zip(inputs, self.oracle.scores(adapter, level, inputs)) if a is not None]
        alive = [c for c in accepted
                 if all(agrees(predict(s, params, level, c.variant), c.variant[1], a, scale, tol) for s, a in valid)]
        if len({tuple(sorted(c.families)) for c in alive}) > 1:  # (two models of one family: one name)
            fitted.ambiguous("one of " + ", ".join(dict.fromkeys(" + ".join(c.families) for c in alive)) +
                             ": each predicts every distinguishing input of the others")
            return []
        return alive or accepted[:1]

    # ------------------------------------------------------------------ compatibility
    def model(self, implementation: str, definition: str) -> tuple[list[str], tuple]:
        """The fitted model of ``definition``: its families and merged variant."""
        fitted = self.fitted(definition)
        return fitted.families(), fitted.variant()

    def scores(self, adapter, level: str, inputs: list) -> list[Optional[float]]:
        return self.oracle.scores(adapter, level, inputs)

    def targeted_inputs(self, families, params, level: str, nrefs: int, variant, per_family: int = PER_FAMILY) -> list:
        """The distinguishing inputs of a candidate naming ``families``, nothing fitted yet."""
        return self.judge.targeted_inputs(families, params, level, nrefs, variant, per_family=per_family)

    def signature(self, adapter, level, segments, params) -> tuple[str, ...]:
        return _signature(adapter, level, segments, params, self.tolerance, self.fitted(params.definition).variant())
