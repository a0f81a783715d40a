"""Classification of a divergence: a name is earned by prediction.

``audit.diagnose.explain`` proposes the deviation sets whose model reproduces the implementation's
output on the divergent input.  One input proves little (two deviations can coincide on it),
so a candidate is *accepted* only when its model predicts the implementation, within the
tolerance and with no further deviation, on held-out inputs drawn to exercise the trigger of
each of its families (``audit.diagnose.deviations.triggers``): at least ``MIN_PREDICTED`` of them,
none contradicting.  The only deviations a prediction may add are those already accepted
for this implementation (its other confirmed families), which keeps the residual honest
for implementations with several bugs.  Nothing accepted: the divergence is ``unexplained``
and carries a behavioural signature, so that two unknown bugs stay two findings.
"""

from __future__ import annotations

import itertools
from dataclasses import replace
from typing import Optional

from reference_impl.text import ASCII_PUNCTUATION

from . import deviations
from .deviations.triggers import pool as trigger_pool
from .explain import Explanation, explain
from .families import SIGNATURE_PREFIX
from .models import agrees, predict
from .variants import ScoreVariant, TextVariant

#: Held-out inputs per family of a candidate, and how many must be predicted.
PER_FAMILY = 6
MIN_PREDICTED = 5
#: Divergences per implementation and level that the search over sets of up to three
#: deviations may fail to explain before it stops being tried (only combinations of the
#: accepted explanations are then tried): an implementation with a bug no family describes
#: fails that search on almost every input, and each failure costs thousands of model
#: evaluations.  It stops only when failures also outnumber successes ``FAILURE_RATIO`` to
#: one, so an implementation whose divergences are mostly catalogued keeps being explained.
#: The relations of ``audit.diagnose.relational`` name what sits behind such a bug.  Counts, not a clock.
EXHAUSTIVE_FAILURES = 8
FAILURE_RATIO = 2
_CLAIMED = (TextVariant(), ScoreVariant())


def score_segments(adapter, level: str, segments) -> Optional[float]:
    """The implementation's score of ``segments`` at ``level`` (None when it gave no number)."""
    values = score_many(adapter, level, [segments])
    return values[0]


def score_many(adapter, level: str, inputs: list) -> list[Optional[float]]:
    """The implementation's scores of several inputs (segment lists), in one batch."""
    if level == "sentence":
        outs = adapter.sentence_scores([segs[0] for segs in inputs])
    else:
        outs = adapter.corpus_scores([([h for h, _ in segs], [list(rs) for _, rs in segs]) for segs in inputs])
    return [o.value if o.kind == "value" else None for o in outs]


def _merge(a: tuple, b: tuple) -> Optional[tuple]:
    """One variant with the deviations of both, or None when they set one field differently."""
    out = []
    for x, y in zip(a, b):
        default = type(x)()
        changes = {}
        for name in x.__dataclass_fields__:
            vx, vy = getattr(x, name), getattr(y, name)
            d = getattr(default, name)
            if vx != d and vy != d and vx != vy:
                return None
            changes[name] = vx if vx != d else vy
        out.append(type(x)(**changes))
    return tuple(out)


class Classifier:
    """Remembers, per implementation and level, the accepted explanations (the residual a
    new candidate is predicted with) and every verdict, so each costs one batch of calls."""

    def __init__(self, tolerance: float):
        self.tolerance = tolerance
        self._verdicts: dict = {}
        #: (implementation, level) -> divergences no candidate explained / a candidate explained
        self.failures: dict = {}
        self.successes: dict = {}
        #: (implementation, definition, family) the model dropped as redundant: never again
        self.dropped: set = set()
        #: ((implementation, claims, level), input) -> the implementation's score (``scores``)
        self._scores: dict = {}
        #: (implementation, definition) -> families -> variant: its accepted explanations under
        #: any parameters (a deviation is a property of the code, whatever parameters it is
        #: called with), per definition held to (the conformance matrix judges the others
        #: without touching the model of the claimed one)
        self._accepted: dict = {}
        #: (level, families) -> why the name is earned ("explains 6 of 6 targeted inputs", the
        #: relations that named it, the parameter that makes no difference)
        self.evidence: dict[tuple, str] = {}

    # ------------------------------------------------------------------ classification
    def classify(self, adapter, level, segments, params, actual) -> Optional[Explanation]:
        """The smallest combination of already accepted explanations that reproduces the
        input, else the smallest candidate that predicts its held-out trigger inputs."""
        scale = adapter.claims.scale
        known = self._known(adapter, segments, params, level, actual, scale)
        if known is not None:
            return known
        unit = (adapter.name, level)
        failed = self.failures.get(unit, 0)
        if failed >= EXHAUSTIVE_FAILURES and failed >= FAILURE_RATIO * self.successes.get(unit, 0):
            self.failures[unit] = failed + 1
            return None
        fitted, model = self.model(adapter.name, params.definition)
        # First on top of the model fitted so far (up to two more deviations), then from
        # the definition (up to three): the peel finds a fourth or fifth deviation cheaply.
        searches = ([dict(base=model, max_size=2)] if fitted else []) + [dict(max_size=3)]
        for how in searches:
            for candidates in explain(segments, params, level, actual, self.tolerance, scale, **how):
                candidates = [c for c in candidates
                              if not any((adapter.name, params.definition, f) in self.dropped for f in c.families)]
                accepted = [c for c in candidates if self._confirm(adapter, level, params, c)]
                if len(accepted) > 1:
                    accepted = self._cross_check(adapter, level, params, accepted)
                if accepted:
                    best = accepted[0]
                    self.accept(adapter.name, params.definition, best.families, best.variant)
                    self.successes[unit] = self.successes.get(unit, 0) + 1
                    if "base" in how:  # the observation's key: the accepted deviations it needs
                        return self._known(adapter, segments, params, level, actual, scale) or best
                    return best
        self.failures[unit] = failed + 1
        return None

    def accept(self, implementation: str, definition: str, families, variant) -> None:
        """Add an explanation to the implementation's model (the residual of later ones).
        A new model deserves new attempts: the count of failed explanations starts again."""
        self._accepted.setdefault((implementation, definition), {}).setdefault(tuple(families), variant)
        for unit in [u for u in self.failures if u[0] == implementation]:
            self.failures[unit] = 0

    def scores(self, adapter, level: str, inputs: list) -> list[Optional[float]]:
        """The implementation's scores of held-out inputs, each asked once per unit (the scan
        of the model asks for the inputs of every candidate in one batch first)."""
        tag = (adapter.name, repr(adapter.claims), level)
        keys = [(tag, repr(segs)) for segs in inputs]
        missing = list(dict.fromkeys(k for k in keys if k not in self._scores))
        if missing:
            by_key = dict(zip(keys, inputs))
            for k, v in zip(missing, score_many(adapter, level, [by_key[k] for k in missing])):
                self._scores[k] = v
        return [self._scores[k] for k in keys]

    def drop(self, implementation: str, definition: str, family: str) -> None:
        """Take ``family`` out of the implementation's model (``audit.collect.fitting.prune``): out of
        every accepted explanation that names it (the others of such an explanation stay)."""
        from .reduce import without

        self.dropped.add((implementation, definition, family))
        accepted = self._accepted.get((implementation, definition), {})
        for fams in [f for f in accepted if family in f]:
            variant = accepted.pop(fams)
            rest = tuple(f for f in fams if f != family)
            if rest:
                accepted.setdefault(rest, without(family, variant))

    def model(self, implementation: str, definition: str) -> tuple[list[str], tuple]:
        """The implementation's fitted model: every accepted family, in the order accepted,
        and one variant merging their deviations (an explanation whose deviations conflict
        with earlier ones is left out of the merged variant)."""
        families: list[str] = []
        merged = _CLAIMED
        for fams, variant in self._accepted.get((implementation, definition), {}).items():
            both = _merge(merged, variant)
            if both is None:
                continue
            merged = both
            families += [f for f in fams if f not in families]
        return families, merged

    def _known(self, adapter, segments, params, level, actual, scale) -> Optional[Explanation]:
        """The input is explained away by the implementation's accepted explanations: the
        smallest set of their deviations (accepted at either level, applicable here) whose
        merged model gives ``actual``."""
        atoms = []
        nrefs, nsegs = len(segments[0][1]), len(segments)
        for variant in self._accepted.get((adapter.name, params.definition), {}).values():
            for part, stage in ((variant[0], "text"), (variant[1], "score")):
                default = type(part)()
                for name in part.__dataclass_fields__:
                    value = getattr(part, name)
                    if value == getattr(default, name):
                        continue
                    fam = deviations.family_of(stage, name, value) if name not in ("rounding", "float32") else \
                        ("precision-loss" if name == "rounding" else "float32-arithmetic")
                    dev = deviations.get(fam)
                    if dev is None or not dev.applies(params, level, nrefs, nsegs) or \
                            dev.model_filter is not None and not dev.model_filter(params, (name, value)):
                        continue
                    atom = (fam, _CLAIMED[0] if stage == "score" else replace(_CLAIMED[0], **{name: value}),
                            replace(_CLAIMED[1], **{name: value}) if stage == "score" else _CLAIMED[1])
                    if atom not in atoms:
                        atoms.append(atom)
        for size in range(1, min(len(atoms), 4) + 1):
            for combo in itertools.combinations(atoms, size):
                merged = _CLAIMED
                for _, tv, sv in combo:
                    merged = merged and _merge(merged, (tv, sv))
                if merged is None:
                    continue
                value = predict(segments, params, level, merged)
                if agrees(value, merged[1], actual, scale, self.tolerance):
                    return Explanation(list(dict.fromkeys(f for f, _, _ in combo)), value, variant=merged)
        return None

    def targeted_inputs(self, families, params, level: str, nrefs: int, variant, per_family: int = PER_FAMILY) -> list:
        """The held-out inputs a candidate naming ``families`` is judged on: per family, the
        first ``per_family`` of its trigger pool on which the candidate's model differs from
        the definition (inputs on which it does not would not test it)."""
        out = []
        for fam in families:
            dev = deviations.get(fam)
            pool = trigger_pool(fam, params, level, nrefs)
            kept = 0
            for segs in pool:
                if kept == per_family:
                    break
                if dev is not None and dev.stage == "output" or \
                        abs(float(predict(segs, params, level, variant)) - float(predict(segs, params, level, _CLAIMED))) > self.tolerance:
                    out.append(segs)
                    kept += 1
        return out

    def _confirm(self, adapter, level, params, cand: Explanation) -> bool:
        # The verdict depends on the residual it was judged with: a candidate refused before
        # the implementation's other deviations were accepted is judged again after.
        accepted = tuple(sorted(self._accepted.get((adapter.name, params.definition), {})))
        key = (repr(adapter.claims), params, level, tuple(cand.families), cand.variant, accepted)
        if key not in self._verdicts:
            self._verdicts[key] = self._judge(adapter, level, params, cand)
        verdict = self._verdicts[key]
        if verdict is None:
            return False
        cand.variant, cand.predicted, cand.targeted = verdict
        cand.detail = "; ".join(x for x in (cand.detail, f"explains {cand.predicted} of {cand.targeted} targeted inputs") if x)
        self.evidence.setdefault((level, tuple(cand.families)), f"explains {cand.predicted} of {cand.targeted} targeted inputs")
        return True

    def _judge(self, adapter, level, params, cand: Explanation):
        scale, tol = adapter.claims.scale, self.tolerance
        nrefs = 3 if adapter.supports.multi_reference else 1
        valid = self._scored_targets(adapter, level, params, nrefs, cand)
        if valid is None:
            return None
        accepted = self._accepted.get((adapter.name, params.definition), {})
        variants = [cand.variant]
        if cand.variant[1].rounding is not None:  # the decimals seen on one input may be too few
            variants += [(cand.variant[0], replace(cand.variant[1], rounding=k)) for k in (*range(0, 9), -1)
                         if k != cand.variant[1].rounding]
        residuals = [()] + [(v,) for v in accepted.values()]
        if len(accepted) > 1:
            residuals.append(tuple(accepted.values()))
        for variant in variants:
            for extra in residuals:
                merged = variant
                for e in extra:
                    merged = merged and _merge(merged, e)
                if merged is None:
                    continue
                if all(agrees(predict(segs, params, level, merged), merged[1], a, scale, tol) for segs, a in valid) \
                        and self._all_needed(variant, extra, valid, params, level, scale):
                    return variant, len(valid), len(valid)
        return None

    def _scored_targets(self, adapter, level, params, nrefs, cand: Explanation):
        """The candidate's held-out inputs with the implementation's numbers: ``PER_FAMILY``
        per family, and when some give no number (an implementation that fails on a class
        of inputs), the next ones of the pool, until ``MIN_PREDICTED`` numbers per family
        are in or the pool is spent.  None: too few numbers to judge."""
        pools = [self.targeted_inputs([fam], params, level, nrefs, cand.variant, per_family=4 * PER_FAMILY)
                 for fam in cand.families]
        if sum(map(len, pools)) < MIN_PREDICTED:
            return None
        valid: list = []
        for round_ in range(4):  # the first PER_FAMILY per family, then the next ones for the failed
            batch = [segs for pool, got in zip(pools, self._per_family(valid, pools))
                     for segs in pool[round_ * PER_FAMILY:(round_ + 1) * PER_FAMILY][:max(0, PER_FAMILY - got)]]
            if not batch:
                break
            valid += [(segs, a) for segs, a in zip(batch, self.scores(adapter, level, batch)) if a is not None]
        return valid if len(valid) >= MIN_PREDICTED else None

    @staticmethod
    def _per_family(valid, pools) -> list[int]:
        """How many of ``valid`` came from each family's pool."""
        ids = [{id(segs) for segs in pool} for pool in pools]
        return [sum(1 for segs, _ in valid if id(segs) in own) for own in ids]

    def _all_needed(self, variant, extra, valid, params, level, scale) -> bool:
        """No deviation of the candidate is idle: without any one of them (the accepted ones
        still merged in) the prediction fails on some held-out input.  Else a smaller story
        is the true one, and this candidate only borrowed its success from the others."""
        tv, sv = variant
        for part, cls in ((tv, TextVariant), (sv, ScoreVariant)):
            default = cls()
            for name in part.__dataclass_fields__:
                if getattr(part, name) == getattr(default, name) or name in ("rounding", "float32"):
                    continue
                less = (replace(tv, **{name: getattr(default, name)}), sv) if part is tv else \
                    (tv, replace(sv, **{name: getattr(default, name)}))
                for e in extra:
                    less = less and _merge(less, e)
                if less is not None and all(agrees(predict(s, params, level, less), less[1], a, scale, self.tolerance)
                                            for s, a in valid):
                    return False
        return True

    def _cross_check(self, adapter, level, params, accepted):
        """Several candidates of one size each predicted their own triggers: keep those that
        also predict the others' (deterministic: the first one left wins)."""
        scale, tol = adapter.claims.scale, self.tolerance
        nrefs = 3 if adapter.supports.multi_reference else 1
        inputs = []
        for c in accepted:
            inputs += self.targeted_inputs(c.families, params, level, nrefs, c.variant)
        actual = self.scores(adapter, level, inputs)
        valid = [(s, a) for s, a in zip(inputs, actual) if a is not None]
        alive = [c for c in accepted
                 if all(agrees(predict(s, params, level, c.variant), c.variant[1], a, scale, tol) for s, a in valid)]
        return alive or accepted[:1]

    # ------------------------------------------------------------------ unexplained
    #: Character classes an unexplained divergence may need: (name, test).
    #: (The classes do not overlap, so that one bug about, say, case gets one signature
    #: whether its input has "A" or "É".)
    CLASSES = [
        ("digits", str.isdigit),
        ("punctuation", lambda c: c in ASCII_PUNCTUATION),
        ("uppercase", str.isupper),
        ("non-ascii", lambda c: not c.isascii() and not c.isspace() and not c.isupper() and not c.isdigit()),
    ]

    def signature(self, adapter, level, segments, params) -> tuple[str, ...]:
        """The character classes an unexplained divergence needs: replacing each distinct
        character of the class by a distinct letter the input does not use (which keeps the
        n-gram structure, so the definition's score is unchanged) makes the implementation
        agree with the definition.  A bug about digits needs digits on every input; a bug in
        the arithmetic needs no class.  One batch of calls, deterministic."""
        texts = [h for h, _ in segments] + [r for _, rs in segments for r in rs]
        used = set("".join(texts))
        spare = [c for c in "zyxwvutsrqponmlkjihgfedcba" if c not in used]
        probes = []
        for name, test in self.CLASSES:
            if name == "uppercase" and params.lowercase:
                continue
            chars = sorted({c for t in texts for c in t if test(c)})
            if not chars or len(chars) > len(spare):
                continue
            table = str.maketrans(dict(zip(chars, spare)))
            probes.append((name, [(h.translate(table), [r.translate(table) for r in rs]) for h, rs in segments]))
        if not probes:
            return ()
        values = score_many(adapter, level, [p for _, p in probes])
        needed = [name for (name, segs), value in zip(probes, values)
                  if value is not None and abs(value - float(predict(segs, params, level, _CLAIMED))) <= self.tolerance]
        return (SIGNATURE_PREFIX + "+".join(needed),) if needed else ()
