"""Findings assembly: from what the search collected per family key to plain ``Finding``
records (one per family), with repro records and portable source locations."""

from __future__ import annotations

import math
from fractions import Fraction
from pathlib import Path
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


def _absorb_unexplained(found: dict) -> dict:
    """A metamorphic violation whose inputs diverge from the definition in a way no model
    explains is the same evidence as that unexplained group: the relation names it (a true
    statement about the implementation) and the group is not reported a second time."""
    found = dict(found)
    for key, c in list(found.items()):
        diff_key = getattr(c.minimal, "differential_key", None) if c.minimal is not None else None
        if not key[0].startswith("metamorphic-") or not diff_key or diff_key[0] != "unexplained":
            continue
        for other in [k for k in found if k[0] == "unexplained" and _groups(k) == _groups(diff_key)]:
            c.count += found.pop(other).count
    return found


def explain_again(found: dict, recheck, dropped=frozenset()) -> dict:
    """Unexplained keys whose examples the explanations accepted *later* in the unit now
    explain (an input met before the implementation's other deviations were confirmed), and
    keys naming a deviation the model has ``dropped`` (``audit.collect.fitting.prune``): they join
    the key the model gives now.  ``recheck(obs)`` re-classifies one input."""
    found = dict(found)
    for key in [k for k in found if k[0] == "unexplained" or set(k) & set(dropped)]:
        c = found[key]
        samples = [o for o in (c.minimal, c.largest) if o is not None]
        if not samples:
            continue
        again = [recheck(o) for o in samples]
        if any(o.key is None or o.key[0] == "unexplained" for o in again) and key[0] == "unexplained":
            continue
        if any(o.key is None for o in again) or len({o.key for o in again}) > 1:
            del found[key]  # a dropped deviation's inputs the model explains otherwise now
            continue
        target = found.get(again[0].key)
        del found[key]
        if target is None:
            c.minimal, c.largest = again[0], max(again, key=lambda o: o.difference)
            found[again[0].key] = c
        else:
            target.count += c.count
    return found


def _findings(adapter, found: dict, evidence: Optional[dict] = None,
              repros: Optional[dict] = None) -> list[Finding]:
    """One finding per atomic family (and per signature group): the purest key (fewest
    deviations) that contains it, then the smallest repro -- or, for a fitted deviation,
    its own reduced repro (``repros``: family -> observation, ``audit.diagnose.reduce``).  The
    repro's other deviations are kept as the explanation.  ``evidence``: (level, families)
    -> why the classifier accepted the name."""
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
        largest = max(
            (cc.largest for k, cc in found.items() if group in _groups(k) and cc.largest is not None),
            key=lambda o: o.difference,
            default=None,
        )
        obs = c.minimal
        fams = key_families(key)
        if repros and group in repros:
            obs = repros[group]
            fams = key_families(obs.key)
        claims = obs.claims
        ev = evidence or {}
        proof = ev.get((obs.level, (fam,))) or ev.get((obs.level, tuple(fams))) or next(
            (p for (lv, fs), p in ev.items() if fs == (fam,)), None) or next(
            (p for (lv, fs), p in ev.items() if fam in fs), None)
        if proof:
            why = proof
        elif fam == "unexplained":
            why = ("no known deviation predicts it; it needs " + needs.replace("+", " and ")
                   if needs else "no known deviation predicts it; replacing the digits, punctuation, uppercase "
                                 "or non-ASCII characters of the input does not make it go away")
        else:
            why = None
        findings.append(
            Finding(
                implementation=adapter.name,
                family=fam,
                level=obs.level,
                title=title(fam) + (f" (it needs {needs.replace('+', ' and ')})" if needs and fam == "unexplained"
                                    else f" ({needs})" if needs else ""),
                claims=claims.to_dict(),
                reference_signature=obs.reference.signature,
                implementation_signature=getattr(adapter, "signature", adapter.name),
                minimal=_repro(obs, fams),
                largest=_largest(largest, claims) if largest is not None else None,
                explanation=fams,
                flaky=c.flaky and not (repros and group in repros),
                source=_source(adapter, obs.level),
                origin="search" if repros and group in repros else c.origin,
                examples=sum(cc.count for k, cc in found.items() if group in _groups(k)),
                evidence=why,
            )
        )
        request_body = getattr(adapter, "request_body", None)
        if request_body is not None:  # a service: the request that reproduces it
            findings[-1].request = request_body(obs.level, obs.inputs, claims.to_dict())
        findings[-1].group = group  # plain attribute: the signature group, not part of the JSON
        diff_key = getattr(obs, "differential_key", None)
        if fam.startswith("metamorphic-") and diff_key and diff_key[0] == "unexplained":
            findings[-1].absorbs = _groups(diff_key)[0]  # plain attribute: not part of the JSON
    return findings


def merge_levels(findings: list[Finding]) -> list[Finding]:
    """Across an implementation's levels: an unexplained group that a metamorphic finding
    stands for (at any level) is the same bug, not a finding of its own."""
    absorbed = {(f.implementation, getattr(f, "absorbs", None)) for f in findings}
    out = []
    for f in findings:
        if f.family == "unexplained" and (f.implementation, _group_of(f)) in absorbed:
            continue
        out.append(f)
    return out


def _group_of(f: Finding) -> str:
    """The signature group of an unexplained finding ("unexplained~digits")."""
    return getattr(f, "group", f.family)


def _source(adapter, level: str) -> Optional[dict]:
    record = getattr(adapter, "source_record", None)
    if record is not None:  # a service (--http): its URL and contract, for curl repros
        return record(level)
    loc = getattr(adapter, "sources", {}).get(level)
    process = getattr(adapter, "process", None)
    if process is not None:  # an external program: the command that reproduces it
        out = {"call": "external", "command": getattr(process, "command", None)}
        if loc is not None:
            out.update(file=_portable_path(loc.file), line=loc.line, function=loc.qualname)
        return out
    if loc is None:
        return None
    return {"file": _portable_path(loc.file), "line": loc.line, "function": f"{loc.module}.{loc.qualname}",
            # how to call it again (repro snippets)
            "module": loc.module, "qualname": loc.qualname, "call": "python"}


def _portable_path(file: Optional[str]) -> Optional[str]:
    """An installed package's file as its path inside site-packages ("nltk/translate/...")
    and a file under the working directory as a relative path, so that reports do not
    depend on where the environment lives; anything else (a patched temporary copy, say)
    stays absolute."""
    if not file:
        return file
    path = Path(file)
    parts = path.parts
    for marker in ("site-packages", "dist-packages"):
        if marker in parts:
            return Path(*parts[len(parts) - parts[::-1].index(marker):]).as_posix()
    try:
        return path.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return file

