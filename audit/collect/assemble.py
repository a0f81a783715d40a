"""Findings assembly: from what the search collected per family key to plain ``Finding``
records (one per family), with repro records and portable source locations."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Optional

from .checker import Observation
from ..diagnose.families import FAMILIES, SIGNATURE_PREFIX, key_families, title
from ..findings import Finding, OrderRow, Repro

def _fraction_text(f: Optional[Fraction]) -> Optional[str]:
    return None if f is None else f"{f.numerator}/{f.denominator}"


def _order_rows(result) -> list[OrderRow]:
    beta = result.params.beta
    return [
        OrderRow(o.kind, o.n, o.hyp, o.ref, o.match, _fraction_text(o.precision), _fraction_text(o.recall),
                 _fraction_text(o.f(beta)), o.effective)
        for o in result.orders
    ]


def _repro(obs: Observation, explanation: list[str]) -> Repro:
    out = obs.outcome
    return Repro(
        level=obs.level,
        inputs=obs.inputs,
        expected=float(obs.expected),
        expected_fraction=_fraction_text(obs.expected),
        actual=out.value if out.kind == "value" and out.value is not None and math.isfinite(out.value) else None,
        actual_raw=out.raw,
        outcome=out.kind,
        detail=obs.detail or out.detail,
        orders=_order_rows(obs.reference),
        explanation=explanation,
    )


def _largest(obs: Observation, claims) -> Repro:
    """The largest difference's repro; it records its own parameters when the claims swarm
    scored it under others than the finding's (else "-87.5 on hyp "a" ref "a"" reads as a
    contradiction of the sweep, which scores that input at the claimed order)."""
    out = _repro(obs, key_families(obs.key))
    if obs.claims != claims:
        out.claims = obs.claims.to_dict()
    return out


#: Families whose findings are grouped by a signature: what an unexplained divergence needs,
#: which exception was raised, what was returned instead of a number.
SIGNED = ("unexplained", "exception", "invalid-output")


def _groups(key) -> list[str]:
    """The findings an observation key contributes to: each atomic family of an explained
    key; for an unexplained key, its signature group ("unexplained~digits")."""
    fams = key_families(key)
    if fams and fams[0] in SIGNED:
        return [fams[0] + "".join(k for k in key if k.startswith(SIGNATURE_PREFIX))]
    return fams


def needs_text(needs: str) -> str:
    """A signature in words: "digits and punctuation", "the mark '&'"."""
    def one(part: str) -> str:
        if part.startswith("punctuation:"):
            return f"the mark {ascii(part.split(':', 1)[1])}"
        return "an input without n-grams" if part == "no-n-grams" else part
    return " and ".join(one(p) for p in needs.split("+"))


def group_title(group: str) -> str:
    """How a fit line names an unexplained group ("unexplained (it needs digits)")."""
    fam, _, needs = group.partition("~")
    if fam in ("stateful", "nondeterminism"):
        return f"{fam} (scores that differ between processes or calls)"
    if needs == _REMAINDER:
        return f"{fam} (scores the fitted model does not reproduce)"
    return fam + (f" (it needs {needs_text(needs)})" if needs else "")


def unexplained_groups(found: dict) -> list[str]:
    """The unexplained groups of the keys found (each an unexplained row of the report), and
    the state a fresh process did not reproduce (its scores are no model's)."""
    return sorted({_groups(k)[0] for k in found if k and k[0] in ("unexplained", "stateful", "nondeterminism")})


def _absorb_unexplained(found: dict) -> dict:
    """A metamorphic violation whose inputs diverge from the definition in a way no model
    explains is the same bug as that unexplained group: it is folded into the group's row
    (which names the relation it breaks in ``absorbs`` and its evidence) rather than reported
    a second time; a violation whose group the search did not meet becomes that group's row."""
    from dataclasses import replace as dc_replace

    found = dict(found)
    for key, c in list(found.items()):
        diff_key = c.minimal.differential_key if c.minimal is not None else None
        if not key[0].startswith("metamorphic-") or not diff_key or diff_key[0] != "unexplained":
            continue
        target = next((found[k] for k in found if k[0] == "unexplained" and _groups(k) == _groups(diff_key)), None)
        del found[key]
        if target is None:
            target = c
            c.minimal = dc_replace(c.minimal, key=diff_key)
            c.largest = c.minimal if c.largest is None else dc_replace(c.largest, key=diff_key)
            found[diff_key] = c
        else:
            target.count += c.count
        target.absorbs = sorted(set(target.absorbs) | {key[0]})
        target.relations = dict(target.relations, **{key[0]: c.minimal.detail})
    return found


#: The signature of the unexplained row made from scores the fitted model does not reproduce
#: when no other unexplained row covers them (``remainder``).
_REMAINDER = "model"


def remainder(u, fit: dict):
    """Where the fitted model reproduces fewer scores than were observed, an unexplained row
    says so: if no unexplained key covers the scores it misses, the smallest of them is
    recorded as one (returned; None when nothing was needed)."""
    from ..adapters import faults
    from ..diagnose.families import SIGNATURE_PREFIX
    from .search import record

    if fit["explained"] >= fit["observed"] or unexplained_groups(u.found) or \
            any(k[0] in ("stateful", "nondeterminism") for k in u.found):
        return None  # an unexplained row says it already, or state does (scores that differ per process)
    samples = u.checker.samples[u.level]
    missed = [s for s, ok in zip(samples, u.model.reproduced(samples, u.params, u.level, u.scale,
                                                              u.checker.tolerance))
              if not ok and not (("out-of-range",) in u.found and out_of_range(s[1], u.checker.tolerance))]
    if not missed:
        return None
    segs, value = min(missed, key=lambda sv: sum(len(h) + sum(map(len, rs)) for h, rs in sv[0]))
    from ..diagnose.reduce import inputs_of

    obs = u.checker.check(u.level, inputs_of(u.level, segs), repeat=False)
    obs.variant = None
    if not faults.counts(obs.outcome):
        return None  # the call was not made: nothing is known of it
    if obs.outcome.kind != "value":
        # Scored again, it fails (with its message, the checker's failure key): a crash is
        # no later value to compare with the first.
        record(u.found, obs, origin="search")
        return obs
    again = obs.outcome.value
    if abs(again - value) > u.checker.tolerance:
        # Scored again, the input does not give the score the model missed: the same input,
        # two answers in one process, not a score to explain (nor a repro that would show it).
        obs.key = ("nondeterminism",)
        obs.detail = f"first call {value!r}, a later call {again!r}"
    elif obs.key and obs.key[0] == "unexplained":
        pass  # the checker groups it by what it needs, as the other level may (one bug, one title)
    else:
        obs.key = ("unexplained", SIGNATURE_PREFIX + _REMAINDER)
        obs.detail = (f"the fitted model ({' + '.join(['reference', *fit['model']])}) does not reproduce this score, "
                      f"nor {len(missed) - 1} other observed one{'s' if len(missed) != 2 else ''}")
    record(u.found, obs, origin="search")
    u.found[obs.key].count = len(missed)
    return obs


def out_of_range(value: float, tolerance: float) -> bool:
    """A score outside [0, 100]: the ``out-of-range`` row's, which says what it leaves out."""
    return not -tolerance <= value <= 100 + tolerance


def fold_replayed(found: dict, repros: dict, obs, family: str, detail: str, outcome=None) -> tuple[dict, dict]:
    """An input whose recorded answer a fresh worker does not give: a ``family`` key
    (``crash`` or ``timeout`` with the fresh worker's ``outcome``, ``stateful`` or
    ``nondeterminism``) with that input and the answers, into which every key (and fitted
    family's repro) it stood for is folded."""
    from dataclasses import replace as dc_replace

    from .search import _Collected

    found, repros = dict(found), dict(repros)
    folded = [k for k, c in found.items() if c.minimal is obs]
    folded_families = [f for f, o in repros.items() if o is obs]
    new = dc_replace(obs, key=(family,), detail=detail, variant=None, outcome=outcome or obs.outcome)
    target = found.setdefault((family,), _Collected(minimal=new, largest=new, origin="search"))
    for k in folded:
        c = found.pop(k)
        target.count += c.count
        target.absorbs = sorted(set(target.absorbs) | set(_groups(k)))
    for f in folded_families:
        del repros[f]
        for k in [k for k in found if f in k]:
            target.count += found.pop(k).count
        target.absorbs = sorted(set(target.absorbs) | {f})
    target.count = max(target.count, 1)
    return found, repros


def _findings(adapter, found: dict, evidence: Optional[dict] = None,
              repros: Optional[dict] = None, notes: Optional[list] = None) -> list[Finding]:
    """One finding per atomic family (and per signature group): the purest key (fewest
    deviations) that contains it, then the smallest repro -- or, for a fitted deviation,
    its own reduced repro (``repros``: family -> observation, ``audit.diagnose.reduce``).  The
    repro's other deviations are kept as the explanation.  ``evidence``: (level, families)
    -> why the classifier accepted the name; ``notes``: what the fitted model could not name
    (suggestions, ambiguities), said on the unexplained findings."""
    found = _absorb_unexplained(found)
    per_family: dict[str, tuple] = {}
    for key, c in found.items():
        if c.minimal is None:
            continue
        for fam in _groups(key):
            rank = (bool(c.minimal.changes), len(key_families(key)), c.minimal.size, key)
            if fam not in per_family or rank < per_family[fam][0]:
                per_family[fam] = (rank, key, c)
    order = list(FAMILIES)
    findings = []
    for group in sorted(per_family, key=lambda f: (order.index(f.split("~")[0]) if f.split("~")[0] in order else 999, f)):
        _, key, c = per_family[group]
        fam, _, needs = group.partition("~")
        obs = c.minimal
        fams = key_families(key)
        if repros and group in repros:
            obs = repros[group]
            fams = key_families(obs.key)
        # the largest difference this family makes alone: among the inputs no other deviation
        # touches, its minimal repro's included (one where another family adds to it is no
        # measure of this one)
        largest = max(
            [cc.largest for k, cc in found.items()
             if group in _groups(k) and cc.largest is not None and len(key_families(k)) == 1]
            + ([obs] if len(fams) == 1 else []),
            key=lambda o: o.difference,
            default=None,
        )
        claims = obs.claims
        ev = evidence or {}
        proof = ev.get((obs.level, (fam,))) or ev.get((obs.level, tuple(fams))) or next(
            (p for (lv, fs), p in ev.items() if fs == (fam,)), None) or next(
            (p for (lv, fs), p in ev.items() if fam in fs), None)
        if proof:
            why = proof
        elif fam == "unexplained" and needs == _REMAINDER or fam in ("stateful", "nondeterminism") and obs.detail:
            why = obs.detail
        elif fam == "unexplained":
            why = ("no known deviation predicts it; it needs " + needs_text(needs)
                   if needs else "no known deviation predicts it; replacing the digits, punctuation, uppercase "
                                 "or non-ASCII characters of the input does not make it go away")
        else:
            why = None
        findings.append(
            Finding(
                implementation=adapter.name,
                family=fam,
                level=obs.level,
                title=title(fam) + (" (scores the fitted model does not reproduce)" if needs == _REMAINDER
                                    else f" (it needs {needs_text(needs)})" if needs and fam == "unexplained"
                                    else f" ({needs})" if needs else ""),
                claims=claims.to_dict(),
                reference_signature=obs.reference.signature,
                implementation_signature=adapter.signature,
                minimal=_repro(obs, fams),
                largest=_largest(largest, claims) if largest is not None else None,
                explanation=fams,
                flaky=c.flaky and not (repros and group in repros),
                source=adapter.source_record(obs.level),
                origin="search" if repros and group in repros else c.origin,
                examples=sum(cc.count for k, cc in found.items() if group in _groups(k)),
                evidence=why,
            )
        )
        f = findings[-1]
        f.request = adapter.request_body(obs.level, obs.inputs, claims.to_dict())  # a service's repro
        f.group = group
        if fam == "unexplained" and notes:
            f.evidence = "; ".join([f.evidence or "", *notes]).strip("; ")
        members = [cc for k, cc in found.items() if group in _groups(k)]
        absorbs = sorted({g for cc in members for g in cc.absorbs})
        if absorbs:
            f.absorbs = absorbs
            f.evidence = _with_absorbed(f.evidence, absorbs, obs.level,
                                        {k: v for cc in members for k, v in cc.relations.items()})
    return findings


def _with_absorbed(evidence: Optional[str], absorbs: list[str], level: str, relations: Optional[dict] = None) -> str:
    """A finding's evidence naming the findings it stands for (metamorphic relations it
    breaks, with what they observed; other groups, at ``level``)."""
    parts = [evidence] if evidence else []
    for g in absorbs:
        if g.startswith("metamorphic-"):
            parts.append(f"it breaks {g}: {(relations or {}).get(g) or title(g)}")
    others = [group_title(g) for g in absorbs if not g.startswith("metamorphic-")]
    if others:
        parts.append(f"it stands for {', '.join(others)} at {level} level, not reported on its own")
    return "; ".join(parts)


def merge_levels(findings: list[Finding]) -> list[Finding]:
    """Across an implementation's levels: an unexplained group that a metamorphic finding
    stands for (at any level) is the same bug, not a finding of its own: it is folded into
    that finding, whose ``absorbs`` and evidence name it at its level."""
    standing = [f for f in findings if f.family.startswith("metamorphic-") and f.absorbs]
    out = []
    for f in findings:
        if f.family == "unexplained":
            by = next((m for m in standing if m.implementation == f.implementation and (f.group or f.family) in m.absorbs),
                      None)
            if by is not None:
                if by.level != f.level:
                    by.evidence = _with_absorbed(by.evidence, [f.group or f.family], f.level)
                continue
        out.append(f)
    return out
