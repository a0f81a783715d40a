"""The one registry of deviations: everything chrf-audit knows about a family, in one place.

A *deviation* is one way a chrF implementation departs from the definition it claims.  Its
entry (``Deviation``) holds the stable id, a one-sentence implementation-neutral title, the
exact model (field changes of ``audit.diagnose.models.TextVariant`` / ``ScoreVariant``), when the
model applies (parameters, level, number of references and segments), the generator of the
*trigger* inputs that confirm an explanation naming it (``audit.diagnose.deviations.triggers``), the
scope sweep the upstream reports draw, and root-cause patterns per upstream library (one
line per family: families share one only where ``catalogue.SHARED_ROOTS`` says why).

``audit.diagnose.families`` (ids and titles), ``audit.diagnose.models`` (which alternatives an explanation may
use, and how a variant is named), ``audit.impact`` (single-family models) and
``audit.upstream`` (root-cause patterns, sweeps) all read this registry: adding a family is
one entry in ``catalogue`` (plus, when it needs new behaviour, one field in ``models``).
"""

from __future__ import annotations

from typing import Mapping, Optional

from .deviation import Deviation


def borrowed_roots(devs, shared: Mapping) -> list[str]:
    """Root-cause patterns that several families of one library use without ``shared``
    (library -> {frozenset of families: why}) saying they share the cause, and sharings that
    are not real or give no reason.  Empty for a sound registry."""
    problems = []
    libraries = sorted({lib for d in devs for lib in d.roots} | set(shared))
    for lib in libraries:
        by_pattern: dict[str, set] = {}
        for d in devs:
            if lib in d.roots:
                by_pattern.setdefault(d.roots[lib][0], set()).add(d.id)
        declared = shared.get(lib, {})
        for pattern, fams in sorted(by_pattern.items()):
            if len(fams) > 1 and frozenset(fams) not in declared:
                problems.append(f"{lib}: {', '.join(sorted(fams))} share the root-cause pattern {pattern!r} "
                                f"without a reason in SHARED_ROOTS")
        for fams, why in declared.items():
            patterns = {d.roots[lib][0] for d in devs if d.id in fams and lib in d.roots}
            if len(fams) < 2 or len(patterns) != 1 or any(
                    not any(d.id == f and lib in d.roots for d in devs) for f in fams):
                problems.append(f"{lib}: SHARED_ROOTS lists {', '.join(sorted(fams))}, which do not share one pattern")
            if not (isinstance(why, str) and len(why.split()) >= 8):
                problems.append(f"{lib}: SHARED_ROOTS gives no reason for {', '.join(sorted(fams))}")
    return problems


from .catalogue import DEVIATIONS, RIVALS, SHARED_ROOTS
from .deviation import Rival

REGISTRY: dict[str, Deviation] = {d.id: d for d in DEVIATIONS}
if len(REGISTRY) != len(DEVIATIONS):
    raise RuntimeError("duplicate deviation id")
RIVAL_MECHANISMS: dict[str, Rival] = {r.id: r for r in RIVALS}
if set(RIVAL_MECHANISMS) & set(REGISTRY) or len(RIVAL_MECHANISMS) != len(RIVALS):
    raise RuntimeError("a rival mechanism's id is a family's or repeated")
_UNKNOWN_RIVALS = sorted({r for d in DEVIATIONS for r in d.rivals} - set(REGISTRY) - set(RIVAL_MECHANISMS))
if _UNKNOWN_RIVALS:
    raise RuntimeError(f"rivals that are neither families nor rival mechanisms: {', '.join(_UNKNOWN_RIVALS)}")


def _rival_closure() -> dict[str, tuple]:
    out: dict[str, list] = {d.id: [] for d in DEVIATIONS}
    for d in DEVIATIONS:
        for r in d.rivals:
            if r != d.id and r not in out[d.id]:
                out[d.id].append(r)
            if r in out and d.id not in out[r]:
                out[r].append(d.id)
    return {k: tuple(v) for k, v in out.items()}


_RIVALS_OF = _rival_closure()


def rivals_of(family: str) -> tuple:
    """The rival mechanisms of ``family`` (its own declaration and every family declaring it)."""
    return _RIVALS_OF.get(family, ())


def rival_models(family: str, params, level: str, nrefs: int, nsegs: int) -> list[tuple[str, str, tuple]]:
    """(rival id, stage, (field, value)) of every model of ``family``'s rivals that applies."""
    out = []
    for rid in rivals_of(family):
        dev = REGISTRY.get(rid)
        if dev is not None:
            if dev.stage not in ("text", "score") or not dev.applies(params, level, nrefs, nsegs):
                continue
            out += [(rid, dev.stage, m) for m in dev.models if dev.model_filter is None or dev.model_filter(params, m)]
        else:
            mech = RIVAL_MECHANISMS[rid]
            out += [(rid, mech.stage, m) for m in mech.models]
    return out
_BORROWED = borrowed_roots(DEVIATIONS, SHARED_ROOTS)
if _BORROWED:  # a family pointing at another family's line would give a plausible wrong cause
    raise RuntimeError("; ".join(_BORROWED))


def get(family: str) -> Optional[Deviation]:
    return REGISTRY.get(family)


def titles() -> dict[str, str]:
    """id -> title, in registry order (the order reports list families in)."""
    return {d.id: d.title for d in DEVIATIONS}


def modelled(stage: str) -> list[Deviation]:
    return [d for d in DEVIATIONS if d.stage == stage and d.models]


def alternatives(stage: str, params, level: str, nrefs: int, nsegs: int) -> list[tuple[str, object]]:
    """(field, value) pairs of every model of ``stage`` that applies to such an input."""
    return [m for d in modelled(stage) if d.applies(params, level, nrefs, nsegs) for m in d.models
            if d.model_filter is None or d.model_filter(params, m)]


def family_of(stage: str, fld: str, value) -> Optional[str]:
    """The family id whose model sets ``fld`` to ``value`` (None: no family does)."""
    for d in modelled(stage):
        if (fld, value) in d.models:
            return d.id
    return None


def root_causes(library: str) -> dict[str, tuple[str, str]]:
    """family -> (pattern, why) for one upstream library ("nltk", "sacrebleu", "torchmetrics")."""
    return {d.id: d.roots[library] for d in DEVIATIONS if library in d.roots}


def shared_roots(library: str) -> dict[frozenset, str]:
    """{families: why} whose root cause in ``library`` is one line on purpose."""
    return dict(SHARED_ROOTS.get(library, {}))


def sweep_of(family: str) -> Optional[str]:
    d = REGISTRY.get(family)
    return d.sweep if d else None
