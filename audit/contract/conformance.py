"""What the contract checks report (``audit.contract.checks``): one ``Finding`` per broken
promise, its repro the smallest request that broke it (``finding``), and the conformance
table of every promise, kept, broken or not checked, with the example's answer and the
readings the answers follow (``table``, ``AdapterSummary.contract``)."""

from __future__ import annotations

import json
from fractions import Fraction

from reference_impl.conventions import HYPOTHESIS_NGRAMS_WHERE_REFERENCE_HAS_NONE as HYP_CONVENTION

from ..findings import Finding, Repro
from .definition import decimal_text, fraction_text
from .promises import BY_FAMILY, PROMISES


def _refused_fields(service, body) -> dict:
    """The texts a refusal probe's body holds, as far as they are texts, at the default beta."""
    inner = body if isinstance(body, dict) else {}
    texts = {k: [t for t in inner[k] if isinstance(t, str)] if isinstance(inner.get(k), list) else []
             for k in ("hypotheses", "references")}
    k = min(len(texts["hypotheses"]), len(texts["references"]))
    lo, hi, default = service.contract.beta_range
    return {"hypotheses": texts["hypotheses"][:k], "references": texts["references"][:k], "beta": default,
            "lowercase": False}


def _number(text):
    """The float of a number the service wrote (None: none, or not a number)."""
    if text is None:
        return None
    try:
        return float(Fraction(text)) if "/" in text else float(text)
    except (ValueError, ZeroDivisionError, OverflowError):
        return None


def finding(service, fam: str, b, judge) -> Finding:
    """The finding of the broken promise ``fam`` (``b``: the smallest request that broke it)."""
    p, v, reply = b.probe, b.violation, b.reply
    fields = p.fields if p.fields is not None else _refused_fields(service, p.body)
    claims = service.claims.replace(beta=fields["beta"], lowercase=fields["lowercase"]).to_dict()
    expected = v.expected
    if expected is None and fields["hypotheses"] and all(
            not any(0xD800 <= ord(ch) <= 0xDFFF for ch in t) for t in fields["hypotheses"] + fields["references"]):
        expected = judge.expected(fields).score
    actual = _number(v.actual)
    inputs = {"hypotheses": list(fields["hypotheses"]), "references": [[r] for r in fields["references"]]}
    promise = BY_FAMILY.get(fam)
    repro = Repro(level="corpus", inputs=inputs, expected=float(expected or 0),
                  expected_fraction=fraction_text(expected or Fraction(0)), actual=actual,
                  actual_raw=v.actual if v.actual is not None else (reply.text[:200] or None),
                  outcome=v.outcome if actual is not None or v.outcome != "value" else "invalid",
                  detail=f"{p.name}: {v.detail}")
    return Finding(implementation=service.name, family=fam, level="corpus",
                   title=promise.title if promise else fam, claims=claims,
                   reference_signature=f"contract:{service.contract.id}|beta:{fields['beta']}"
                                       f"|case:{'lc' if fields['lowercase'] else 'mixed'}",
                   implementation_signature=service.signature, minimal=repro, explanation=[fam],
                   source=service.source, origin="contract", examples=b.count,
                   evidence=f"{p.name}: {v.detail}"[:300], request=p.body)


def table(service, run, summary, judge, scored: list, replies: list) -> dict:
    """The conformance table: each promise kept or broken (with its finding's family)."""
    c = service.contract
    search = sorted({f.family for f in summary.findings if f.origin != "contract" and f.level == "sentence"})
    rows = [{"family": "search", "promise": "scores per segment agree with the exact reference in the "
             "differential search (sentence level, batched)", "status": "broken" if search else "kept",
             "findings": search, "checked": summary.examples}]
    for p in PROMISES:
        b = run.broken.get(p.family)
        # a promise no answer came to check (the fault budget stopped the requests, or the service
        # answered none of them) is not kept
        status = "broken" if b else "kept" if run.checked.get(p.family) else "not checked"
        rows.append({"family": p.family, "promise": p.promise, "status": status,
                     "findings": [p.family] if b else [], "checked": run.checked.get(p.family, 0),
                     "detail": b.violation.detail if b else ""})
    reproduced = None
    for q, reply in zip(scored, replies):
        if "example" in q.tags:
            reproduced = _example(c, judge, q, reply)
    return {"contract": c.id, "origin": c.origin, "url": service.source["url"], "promises": rows,
            "requests": service.client.requests, "retries": service.client.retried, "example": reproduced,
            "readings": _readings(c, run), **({"document": service.document} if service.document else {})}


def _example(c, judge, probe, reply) -> dict:
    """The contract's example request: the service's answer, the contract's stated answer and
    the reference's, field by field, and whether the whole answer is the example's."""
    ev = judge.expected(probe.fields)
    got = {k: _get(c, reply, k) for k in ("score", "score_fraction", "segment_scores")}
    want = {"score": decimal_text(ev.score, c.decimals), "score_fraction": fraction_text(ev.score),
            "segment_scores": [decimal_text(s, c.decimals) for s in ev.segment_scores]}
    ex = c.example_response
    stated = {k: _stated(c, ex, k, want[k]) for k in want}
    return {"service": got, "contract": stated, "reference": want, "reproduced": got == want and stated == want,
            # the whole answer is the contract's example answer (None: it gives none)
            "answer": None if ex is None else reply.kind == "json" and reply.body == ex}


def _stated(contract, response, name: str, default):
    """A field of the contract's example answer (``default``: it states none)."""
    try:
        return contract.field(response, name)
    except (KeyError, TypeError):
        return default


def _readings(contract, run) -> list:
    """Each point the contract's text leaves open: its readings and, where answers can show it,
    the one the service follows."""
    out = []
    for a in contract.ambiguities:
        row = {"id": a["id"], "checked": a["checked"], "note": a.get("note", "")}
        if a["checked"] == "answers":
            conv = HYP_CONVENTION if a["id"] == HYP_CONVENTION.id else None
            followed = sorted(run.readings, key=lambda r: run.readings[r][0][0])
            row.update(question=conv.question, readings=[{"id": r, "text": conv.words(r)} for r in a["readings"]],
                       followed=followed[0] if len(followed) == 1 else None, answers=run.telling,
                       following={r: len(run.readings[r]) for r in followed},
                       says=(conv.note(followed[0]) if len(followed) == 1 else
                             f"{conv.question}: both readings followed" if followed else
                             f"{conv.question}: not shown (no answer told the readings apart)"))
        else:
            row["readings"] = [r if isinstance(r, dict) else {"id": r, "text": r} for r in a["readings"]]
        out.append(row)
    return out


def _get(contract, reply, name):
    """A field of the answer, as the table keeps it: a value whose JSON is longer than 2000
    characters as the start of that JSON."""
    if reply.kind != "json":
        return None
    try:
        value = contract.field(reply.body, name)
    except (KeyError, TypeError):
        return None
    text = json.dumps(value, ensure_ascii=False)
    return value if len(text) <= 2000 else text[:1999] + "…"
