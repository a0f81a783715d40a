"""The fitted model of one implementation under one claimed definition (``FittedModel``): the
deviations accepted for it and why, what was dropped, and what the evidence could not tell
apart.

One object per (unit, definition): the classifier adds to it (``accept``) only through the
judge's verdicts (``audit.diagnose.judge``), the fit of ``audit.collect`` reads it and drops
what the others make redundant (``drop``), and the report's fit line is its ``summary``.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field, replace
from typing import Optional

from . import deviations
from .explain import Explanation
from .models import agrees, predict
from .variants import ScoreVariant, TextVariant

CLAIMED = (TextVariant(), ScoreVariant())
_OUTPUT_FIELDS = {"rounding": "precision-loss", "rounding_mode": "precision-loss", "float32": "float32-arithmetic"}
#: Accepted families beyond which the explanations built from them are the single ones,
#: pairs, all-but-one and all (not every subset): 2**6 merged models at most.
MAX_SUBSET_FAMILIES = 6


def merge(a: Optional[tuple], b: tuple) -> Optional[tuple]:
    """One variant with the deviations of both, or None when they set one field differently."""
    if a is None:
        return None
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


def merge_all(parts, base: tuple = CLAIMED) -> Optional[tuple]:
    out = base
    for p in parts:
        out = merge(out, p)
    return out


def fields_of(variant: tuple):
    """(family, stage index, field, value) of every deviation ``variant`` holds."""
    for i, (part, stage) in enumerate(zip(variant, ("text", "score"))):
        default = type(part)()
        for name in part.__dataclass_fields__:
            value = getattr(part, name)
            if value == getattr(default, name):
                continue
            fam = _OUTPUT_FIELDS.get(name) or deviations.family_of(stage, name, value)
            yield fam, i, name, value


@dataclass
class FittedModel:
    """The accepted deviations of one implementation (under one definition) and their evidence."""

    definition: str
    #: families -> (TextVariant, ScoreVariant), in the order accepted
    accepted: dict = field(default_factory=dict)
    #: (level, families) -> why the name is earned
    evidence: dict = field(default_factory=dict)
    #: families the model dropped (redundant, or refused when judged again): never accepted again
    dropped: set = field(default_factory=set)
    #: what the evidence could not tell apart: "one of A, B" statements
    ambiguities: list = field(default_factory=list)

    # ------------------------------------------------------------------ reading
    def families(self) -> list[str]:
        """Every accepted family, in the order accepted (explanations whose deviations
        conflict with earlier ones are left out, as in ``variant``)."""
        return self._merged()[0]

    def variant(self) -> tuple:
        """One variant merging the accepted deviations."""
        return self._merged()[1]

    def _merged(self):
        families: list[str] = []
        merged = CLAIMED
        for fams, variant in self.accepted.items():
            both = merge(merged, variant)
            if both is None:
                continue
            merged = both
            families += [f for f in fams if f not in families]
        return families, merged

    def others(self, families) -> dict:
        """The accepted explanations without ``families``' deviations (to judge them again)."""
        from .reduce import without

        out: dict = {}
        for fams, variant in self.accepted.items():
            rest = tuple(f for f in fams if f not in families)
            if not rest:
                continue
            v = variant
            for f in fams:
                if f in families:
                    v = without(f, v)
            out.setdefault(rest, v)
        return out

    def atoms(self, params, level: str, nrefs: int, nsegs: int, accepted: Optional[dict] = None) -> list[tuple]:
        """(family, variant of that family alone) of each accepted deviation that applies here."""
        atoms: list = []
        for variant in (self.accepted if accepted is None else accepted).values():
            for fam, i, name, value in fields_of(variant):
                dev = deviations.get(fam)
                if dev is None or not dev.applies(params, level, nrefs, nsegs) or \
                        dev.model_filter is not None and name not in _OUTPUT_FIELDS and \
                        not dev.model_filter(params, (name, value)):
                    continue
                if name == "rounding_mode":
                    continue  # one deviation with its decimals
                extra = {"rounding_mode": variant[1].rounding_mode} if name == "rounding" else {}
                part = replace(CLAIMED[i], **{name: value}, **extra)
                atom = (fam, (part, CLAIMED[1]) if i == 0 else (CLAIMED[0], part))
                if atom not in atoms:
                    atoms.append(atom)
        return atoms

    def explanations(self, params, level: str, nrefs: int, nsegs: int, accepted: Optional[dict] = None) -> list:
        """The models built from the accepted deviations and their combinations, the
        definition itself first: what a new name must differ from."""
        atoms = self.atoms(params, level, nrefs, nsegs, accepted)
        fams = list(dict.fromkeys(f for f, _ in atoms))
        by_family = {f: [v for g, v in atoms if g == f] for f in fams}
        if len(fams) <= MAX_SUBSET_FAMILIES:
            subsets = [c for k in range(len(fams) + 1) for c in itertools.combinations(fams, k)]
        else:
            subsets = [()] + [c for k in (1, 2) for c in itertools.combinations(fams, k)] + \
                [tuple(f for f in fams if f != g) for g in fams] + [tuple(fams)]
        out = []
        for subset in subsets:
            merged = merge_all(v for f in subset for v in by_family[f])
            if merged is not None and merged not in out:
                out.append(merged)
        return out

    def explains(self, segments, params, level: str, actual: float, scale: int, tolerance: float,
                 max_size: int = 4) -> Optional[Explanation]:
        """The smallest set of accepted deviations (applicable here) whose merged model gives
        ``actual`` on ``segments``: the input is explained away."""
        nrefs, nsegs = max(len(rs) for _, rs in segments), len(segments)  # (ragged: the longest list)
        atoms = self.atoms(params, level, nrefs, nsegs)
        for size in range(1, min(len(atoms), max_size) + 1):
            for combo in itertools.combinations(atoms, size):
                merged = merge_all(v for _, v in combo)
                if merged is None:
                    continue
                value = predict(segments, params, level, merged)
                if agrees(value, merged[1], actual, scale, tolerance):
                    return Explanation(list(dict.fromkeys(f for f, _ in combo)), value, variant=merged)
        return None

    # ------------------------------------------------------------------ changing
    def accept(self, families, variant, level: Optional[str] = None, evidence: Optional[str] = None) -> None:
        self.accepted.setdefault(tuple(families), variant)
        if evidence is not None and level is not None:
            self.cite(level, families, evidence)

    def cite(self, level: str, families, evidence: str, replace: bool = False) -> None:
        """Why ``families`` are named at ``level`` (kept unless ``replace``)."""
        if replace:
            self.evidence[(level, tuple(families))] = evidence
        else:
            self.evidence.setdefault((level, tuple(families)), evidence)

    def drop(self, family: str) -> None:
        """Take ``family`` out of every accepted explanation that names it (the others of
        such an explanation stay); it is never accepted again."""
        from .reduce import without

        self.dropped.add(family)
        for fams in [f for f in self.accepted if family in f]:
            variant = self.accepted.pop(fams)
            rest = tuple(f for f in fams if f != family)
            if rest:
                self.accepted.setdefault(rest, without(family, variant))

    def ambiguous(self, statement: str) -> None:
        if statement not in self.ambiguities:
            self.ambiguities.append(statement)

    # ------------------------------------------------------------------ the fit line
    def reproduced(self, samples, params, level: str, scale: int, tolerance: float) -> list[bool]:
        """Per observed (segments, value): does the merged model reproduce it?"""
        model = self.variant()
        out = []
        for segs, value in samples:
            try:
                out.append(agrees(predict(segs, params, level, model), model[1], value, scale, tolerance))
            except Exception:  # noqa: BLE001 - a model that cannot read this input explains nothing
                out.append(False)
        return out
