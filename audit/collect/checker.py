"""Score one input on both sides and compare: the implementation (through its adapter) and
the reference under the implementation's *claimed* parameters.

An ``Observation`` records one input, both answers and the family key it falls into (None
when they agree).  Classifying a divergence into a key is ``audit.diagnose.classify``'s job.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Optional

from reference_impl import corpus_score, sentence_score

from ..adapters.faults import counts
from ..diagnose.claims_probe import family as ignored_family
from ..diagnose.classify import Classifier
from ..diagnose.conformance import UnitScores
from ..diagnose.families import SIGNATURE_PREFIX
from ..diagnose.oracle import score_segments
from ..adapters import faults
from .ragged import refused_ragged
from .realtext import classes_of

_OUTCOME_FAMILY = {"exception": "exception", "crash": "crash", "timeout": "timeout", "invalid": "invalid-output"}


def outcome_signature(outcome) -> str:
    """What tells two failures apart: the exception's type and message (or what was returned
    instead of a number), with the parts that vary with the input masked: numbers, quoted
    text (a quote opens and closes only beside a non-word character, so the apostrophe of
    "can't" opens nothing), and anything after 60 characters."""
    import re

    text = (outcome.detail or "").strip()
    text = re.sub(r"(?<!\w)(['\"]).*?\1(?!\w)", "'…'", text)
    text = re.sub(r"\d+(\.\d+)?", "N", text)
    return text[:60].rstrip()


def failure_key(outcome) -> tuple:
    """The key of a call that gave no number: its outcome's family (``crash``, ``timeout``,
    ``exception``, ``invalid-output``), an exception's or an invalid answer's with the
    signature of its text (two different exceptions are two bugs)."""
    family = _OUTCOME_FAMILY.get(outcome.kind, "invalid-output")
    sig = outcome_signature(outcome) if family in ("exception", "invalid-output") else ""
    return (family,) + ((SIGNATURE_PREFIX + sig,) if sig else ())


@dataclass
class Observation:
    """One input, both answers, and the family key it falls into (None: they agree)."""

    level: str
    claims: object  # audit.adapters.Claims
    inputs: dict
    expected: Fraction
    outcome: object  # audit.adapters.Outcome
    key: Optional[tuple[str, ...]]
    detail: str = ""
    reference: object = None  # reference_impl.ChrfResult
    changes: dict = field(default_factory=dict)  # claims changed by the swarm (empty: as claimed)
    replay_case: object = None  # what the search drew (for metamorphic relations, not the inputs)
    variant: object = None  # the explanation's model (models.predict), when one explains it
    #: a metamorphic violation's inputs as the differential search keys them (the unexplained
    #: group the relation stands for), None otherwise
    differential_key: Optional[tuple] = None

    @property
    def difference(self) -> float:
        v = self.outcome.value
        if v is None or not math.isfinite(v):
            return math.inf
        return abs(v - float(self.expected))

    @property
    def size(self) -> int:
        """Input size for choosing the smallest repro: characters, then segments."""
        if self.level == "sentence":
            texts = [self.inputs["hypothesis"], *self.inputs["references"]]
        else:
            texts = list(self.inputs["hypotheses"]) + [r for rs in self.inputs["references"] for r in rs]
        return sum(len(t) for t in texts) * 16 + len(texts)



class Checker(UnitScores):
    """Scores one input on both sides and classifies the difference.

    One checker serves one (implementation, level) unit of an audit: the classifier's
    memory (confirmed explanations) then depends only on that unit's own inputs, so a unit
    gives the same answer in any process and in any order of units (``--jobs``).
    """

    #: Inputs (under the claimed parameters) kept per level to judge the other definitions:
    #: every input of a default run (the conformance matrix says "meets" only for what it saw).
    SAMPLES = 20000

    def __init__(self, adapter, tolerance: float):
        self.adapter = adapter
        # An implementation that answers in decimals (a service's contract: six places) is
        # held to the reference within half a unit of its last place; whether that place is
        # rounded right is its contract's check (audit.contract), exact.
        self.tolerance = max(tolerance, adapter.resolution)
        self._variants: dict = {}
        self.classifier = Classifier(self.tolerance)
        self.samples: dict[str, list] = {"sentence": [], "corpus": []}
        #: level -> the real-text classes (audit.collect.realtext) of the inputs scored
        self.classes: dict[str, set] = {"sentence": set(), "corpus": set()}
        #: level -> {input class: the implementation's answer}: classes it refuses to take
        #: (reference lists of different lengths: ``audit.collect.ragged``)
        self.refused: dict[str, dict] = {}
        #: accepted parameters the implementation ignores (audit.diagnose.claims_probe): name -> the
        #: claimed value it computes with whatever it is given
        self.ignored: dict[str, object] = {}

    def _configured(self, changes: dict):
        if not changes:
            return self.adapter
        key = tuple(sorted(changes.items()))
        if key not in self._variants:
            self._variants[key] = self.adapter.configure(**changes)
        return self._variants[key]

    def check(self, level: str, inputs: dict, changes: Optional[dict] = None, repeat: bool = True) -> Observation:
        adapter = self._configured(changes or {})
        claims = adapter.claims
        params = claims.params()
        kw = params.kwargs()
        if level == "sentence":
            segments = [(inputs["hypothesis"], list(inputs["references"]))]
            ref = sentence_score(inputs["hypothesis"], list(inputs["references"]), **kw)
            item = (inputs["hypothesis"], list(inputs["references"]))
            score = adapter.sentence_scores
        else:
            segments = list(zip(inputs["hypotheses"], [list(r) for r in inputs["references"]]))
            ref = corpus_score(list(inputs["hypotheses"]), [list(r) for r in inputs["references"]], **kw)
            item = (list(inputs["hypotheses"]), [list(r) for r in inputs["references"]])
            score = adapter.corpus_scores
        expected = ref.score
        outcomes = score([item])
        if repeat and outcomes[0].kind == "value":
            # A second call on the same input catches nondeterminism (not batched with the
            # first, so that an input that hangs costs one timeout, not two).
            outcomes += score([item])
        first = outcomes[0]
        if not changes and first.kind == "value" and len(self.samples[level]) < self.SAMPLES:
            self.samples[level].append((segments, first.value))
        obs = Observation(level, claims, inputs, expected, first, None, reference=ref, changes=dict(changes or {}))
        tol = self.tolerance
        second = outcomes[1] if len(outcomes) > 1 and counts(outcomes[1]) else None  # a call not made: none
        if second is not None and second.kind != "value":
            # It answered, then failed on the same input: the failure is the finding, with its
            # message (a crash is no second value to compare).
            obs.outcome, first = second, second
        if first.kind in ("exception", "invalid") and refused_ragged(segments, lambda twin: score([twin])[0]):
            # Reference lists of different lengths refused, the same lists padded to one length
            # answered: what the implementation takes, not a wrong score (audit.collect.ragged)
            self.refused.setdefault(level, {}).setdefault("ragged-references", first.detail)
            return obs
        if faults.observed(first):  # sent and answered: the input counts for the classes it witnesses
            self.classes[level] |= classes_of(segments)
        if first.kind != "value":
            obs.key, obs.detail = failure_key(first), first.detail
            return obs
        if second is not None and abs(second.value - first.value) > tol:
            obs.key = ("nondeterminism",)
            obs.detail = f"first call {first.value!r}, second call {second.value!r}"
            return obs
        if abs(first.value - float(expected)) <= tol:
            if first.mutated:  # the right score, computed by changing the caller's lists
                obs.key, obs.detail = ("arguments-mutated",), first.mutated
            return obs
        ignored = tuple(sorted(k for k in (changes or {}) if k in self.ignored))
        prefix: tuple = ()
        if ignored:
            # A parameter the implementation ignores: held to what it computes with instead.
            prefix = tuple(ignored_family(k) for k in ignored)
            params = replace(params, **{k: (Fraction(self.ignored[k]) if k == "beta" else self.ignored[k])
                                        for k in ignored})
            value = sentence_score(*segments[0], **params.kwargs()).score if level == "sentence" else \
                corpus_score([h for h, _ in segments], [r for _, r in segments], **params.kwargs()).score
            if abs(first.value - float(value)) <= tol:
                obs.key, obs.detail = prefix, "the changed parameter makes no difference to the implementation"
                return obs
        ex = self._classify(adapter, level, segments, params, first.value)
        if ex is not None and tuple(ex.families):
            obs.key = prefix + tuple(ex.families)
            obs.detail = ex.detail
            obs.variant = getattr(ex, "variant", None)
        elif not (-tol <= first.value <= 100 + tol):
            obs.key = ("out-of-range",)
        else:
            # Nothing explains it -- or an "explanation" with no deviation at all, which says
            # the models agree with the reference where the implementation does not: the
            # divergence is real all the same, never dropped (an empty key would read as
            # agreement).  Grouped by what the divergence needs, so that two unknown bugs
            # stay two findings.
            obs.key = prefix + ("unexplained",) + self.classifier.signature(adapter, level, segments, params)
            if ex is not None:
                obs.detail = "a model without deviation gives the actual score: the models and the reference disagree here"
        return obs

    def score_segments(self, level: str, segments, adapter=None) -> Optional[float]:
        """The implementation's score of ``segments`` at ``level`` (None: no number)."""
        return score_segments(adapter or self.adapter, level, segments)

    def classify(self, level: str, segments, params, actual: float, adapter=None):
        """The explanation (``audit.diagnose.explain.Explanation``) of ``actual`` on ``segments`` under
        ``params``, or None: the public interface the conformance matrix uses."""
        return self.classifier.classify(adapter or self.adapter, level, segments, params, actual)

    def _classify(self, adapter, level, segments, params, actual):
        return self.classifier.classify(adapter, level, segments, params, actual)
