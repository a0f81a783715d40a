"""Findings assembly: from what the search collected per family key to plain ``Finding``
records (one per family), with repro records and portable source locations."""

from __future__ import annotations

import math
from fractions import Fraction
from pathlib import Path
from typing import Optional

from .checker import Observation
from .families import FAMILIES, title
from .findings import Finding, OrderRow, Repro

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


def _findings(adapter, found: dict) -> list[Finding]:
    """One finding per atomic family: the purest key (fewest deviations) that contains it,
    then the smallest repro.  The key's other deviations are kept as the explanation."""
    per_family: dict[str, tuple] = {}
    for key, c in found.items():
        if c.minimal is None:
            continue
        for fam in key:
            rank = (bool(c.minimal.changes), len(key), c.minimal.size, key)
            if fam not in per_family or rank < per_family[fam][0]:
                per_family[fam] = (rank, key, c)
    findings = []
    for fam in sorted(per_family, key=lambda f: (list(FAMILIES).index(f) if f in FAMILIES else 999, f)):
        _, key, c = per_family[fam]
        largest = max(
            (cc.largest for k, cc in found.items() if fam in k and cc.largest is not None),
            key=lambda o: o.difference,
            default=None,
        )
        obs = c.minimal
        claims = obs.claims
        findings.append(
            Finding(
                implementation=adapter.name,
                family=fam,
                level=obs.level,
                title=title(fam),
                claims=claims.to_dict(),
                reference_signature=obs.reference.signature,
                implementation_signature=getattr(adapter, "signature", adapter.name),
                minimal=_repro(obs, list(key)),
                largest=_repro(largest, list(largest.key)) if largest is not None else None,
                explanation=list(key),
                flaky=c.flaky,
                source=_source(adapter, obs.level),
                origin=c.origin,
                examples=sum(cc.count for k, cc in found.items() if fam in k),
            )
        )
    return findings


def _source(adapter, level: str) -> Optional[dict]:
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

