"""The contract checks of one service: probes sent, answers judged, findings and the
conformance table added to the implementation's summary.

Runs after the differential search (``audit.collect.unit.finish_summary``, called by
``audit.collect.parallel``), in this process, through the adapter's client (its retries, budget
and concurrency).  Everything sent is fixed by the contract and the seed: the probes of
``probes``, then corpora and sentences drawn from the audit's own strategies (the same
generators the search uses), the sentences batched ``max_segments`` to a request.  Each
broken promise is one finding (family ``contract-...``) whose repro is the smallest request
that broke it, as a curl command.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Optional

from ..settings import options
from ..findings import Finding, Repro
from ..contract.definition import decimal_text, fraction_text
from ..contract.judge import Judge, Violation, refusal_failure
from ..contract.probes import Probe, limit_probes, refusal_probes, score_probes
from .contract_state import answer as _answer, replayed as _replayed, send as _send, state as _state
from ..contract.promises import BY_FAMILY, PROMISES
from reference_impl.conventions import HYPOTHESIS_NGRAMS_WHERE_REFERENCE_HAS_NONE as HYP_CONVENTION

#: sentences drawn for the batched segment sample, per --max-examples
SENTENCES_PER_EXAMPLE = 8


@dataclass
class _Broken:
    probe: Probe
    violation: Violation
    reply: object
    count: int = 1


@dataclass
class ContractRun:
    """What the checks saw: per family, the smallest request that broke it; probes per family."""

    broken: dict = field(default_factory=dict)
    checked: dict = field(default_factory=dict)
    #: answer -> (the first probe that got it, whether it was that probe's right answer)
    answers: dict = field(default_factory=dict)
    #: reading of the hypothesis-n-grams convention -> (n, probe) of the answers that follow it,
    #: n counting the answers that tell the readings apart
    readings: dict = field(default_factory=dict)
    #: answers to requests the readings give different corpus scores
    telling: int = 0

    def follow(self, probe: Probe, reply, reading: Optional[str], distinguishing: bool) -> None:
        self.telling += distinguishing
        if reading is not None:
            self.readings.setdefault(reading, []).append((self.telling, probe, reply))

    def note(self, probe: Probe, family: str) -> None:
        self.checked[family] = self.checked.get(family, 0) + 1

    def add(self, probe: Probe, v: Violation, reply) -> None:
        fam = v.family or probe.family
        v = Violation(fam, v.detail, v.outcome, v.expected, v.actual, v.segment)
        old = self.broken.get(fam)
        if old is None:
            self.broken[fam] = _Broken(probe, v, reply)
        else:
            old.count += 1
            if probe.size < old.probe.size:
                old.probe, old.violation, old.reply = probe, v, reply


def _families_of(probe: Probe) -> list[str]:
    """The promises a scored probe's answer is judged on."""
    base = ["contract-corpus-score", "contract-segment-scores", "contract-score-rounding", "contract-fraction-reduced",
            "contract-word-tokens", "contract-response-schema"]
    return list(dict.fromkeys([probe.family] + base + (["contract-lowercase"] if probe.fields["lowercase"] else [])))


def _judge_all(run: ContractRun, judge: Judge, probes: list[Probe], client) -> list:
    """Send the probes one after the other (a service that keeps state must see the same
    sequence on every run) and judge each answer.  The judge computes its exact values for a
    request while the service answers it (``HttpClient.send``'s ``on_written``): on two
    cores the batched audit's two halves of the arithmetic run at once.

    A replay (state kept across requests) is reported only on proof: an answer that is wrong
    under every declared reading and is, byte for byte, the *right* answer to an earlier,
    different request.  Then that one promise is broken, not every promise the stale answer
    happens to miss.  Two requests that legitimately have the same answer are no evidence."""
    replies = []
    for p in probes:
        # the judge's exact values, computed while the service computes its answer
        reply = _send(client, p.body, on_written=lambda p=p: judge.expected(p.fields))
        replies.append(reply)
        if reply.presumed:
            continue
        for fam in _families_of(p):
            run.note(p, fam)
        problems, reading = judge.verdict(p.fields, reply)
        answer = _answer(reply)  # once: it serialises the whole answer
        replayed = _replayed(run, p, problems, answer)
        if replayed is not None:
            run.note(p, "contract-request-independence")
            run.add(p, Violation("contract-request-independence", f"the answer is the right answer to an earlier, "
                                 f"different request ({replayed.name}), wrong here: {problems[0].detail}"), reply)
            continue
        if answer is not None:
            run.answers.setdefault(answer, (p, not problems))
        run.follow(p, reply, reading, judge.expected(p.fields).distinguishes)
        for v in problems:
            run.add(p, v, reply)
    return replies


def _drawn(adapter, contract, seed: int, corpora: int, sentences: int) -> tuple[list[Probe], list[Probe]]:
    """Corpora and sentence batches drawn from the search's strategies (seeded, no clock)."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hseed

    from .search import derived_seed, no_wall_clock, strategies

    sentence, corpus, _ = strategies(adapter)
    out = {"corpus": [], "sentence": []}

    def collect(level, strategy, n):
        @hseed(derived_seed(seed, "contract", level))
        @settings(max_examples=n, database=None, phases=[Phase.generate], deadline=None, derandomize=False,
                  suppress_health_check=list(HealthCheck))
        @given(strategy)
        def run(x):
            if len(out[level]) < n:
                out[level].append(x)
        with no_wall_clock():
            run()

    collect("corpus", corpus, corpora)
    collect("sentence", sentence, sentences)
    from ..contract.probes import _score

    probes = [_score(contract, f"a drawn corpus #{i + 1}", x["hypotheses"], [r[0] for r in x["references"]])
              for i, x in enumerate(out["corpus"])]
    items = [(x["hypothesis"], [x["references"][0]]) for x in out["sentence"]]
    batches = [_score(contract, f"drawn sentences, batch #{k + 1}", [items[i][0] for i in g],
                      [items[i][1][0] for i in g], "contract-segment-scores", tags=("batch",))
               for k, g in enumerate(adapter.batches(items))]
    return probes, batches


def audit_contract(adapter, summary, seed: int = 0, max_examples: int = options.BUDGET) -> None:
    """Check every promise; add the findings and ``summary.contract`` (the table).
    ``max_examples`` corpora and ``SENTENCES_PER_EXAMPLE`` times as many sentences are
    drawn besides the probes."""
    contract, client = adapter.contract, adapter.client
    judge, run = Judge(contract), ContractRun()
    budget = max(1, int(max_examples))
    scored = score_probes(contract) + limit_probes(contract)
    replies = _judge_all(run, judge, scored, client)
    refusals = refusal_probes(contract)
    for p in refusals:
        reply = _send(client, p.body)
        if reply.presumed:
            continue
        run.note(p, p.family)
        v = refusal_failure(reply, contract)
        if v is not None:
            run.add(p, v, reply)
    _state(run, judge, client, contract)
    corpora, batches = _drawn(adapter, contract, seed, budget, budget * SENTENCES_PER_EXAMPLE)
    _judge_all(run, judge, corpora, client)
    _judge_all(run, judge, batches, client)
    _one_reading(run, judge)
    _minimize(run, judge, client, contract)
    findings = [_finding(adapter, fam, b, judge) for fam, b in _ordered(run.broken)]
    summary.findings.extend(findings)
    summary.contract = _table(adapter, run, summary, scored, replies)


def _one_reading(run: ContractRun, judge: Judge) -> None:
    """A service follows one declared reading: answers that follow one and answers that
    follow another break the corpus-score promise (on the first answer that follows a
    reading other than the first answer's)."""
    if len(run.readings) < 2:
        return
    (first, probes), (other, later) = sorted(run.readings.items(), key=lambda kv: kv[1][0][0])[:2]
    _, p, reply = later[0]
    run.add(p, Violation("contract-corpus-score", f"the answers follow two readings: {HYP_CONVENTION.question}: "
                         f"{HYP_CONVENTION.words(other)} here, {HYP_CONVENTION.words(first)} in {probes[0][1].name}",
                         expected=judge.expected(p.fields).readings[first],
                         actual=judge._field(reply.body, "score_fraction")), reply)


def _ordered(broken: dict):
    order = [p.family for p in PROMISES]
    return sorted(broken.items(), key=lambda kv: order.index(kv[0]) if kv[0] in order else 999)


def _minimize(run: ContractRun, judge: Judge, client, contract) -> None:
    """A segment-level violation found in a request of several segments: the one segment
    alone, when it breaks the same promise by itself (a smaller, clearer repro)."""
    from ..contract.probes import _score

    for fam, b in list(run.broken.items()):
        seg, fields = b.violation.segment, b.probe.fields
        if fields is None or len(fields["hypotheses"]) == 1 or fam == "contract-request-independence":
            continue
        # the segment at stake, else (a corpus score) each of the first few segments
        for k in ([seg] if seg is not None else range(min(8, len(fields["hypotheses"])))):
            p = _score(contract, f"{b.probe.name}, segment {k + 1} alone", [fields["hypotheses"][k]],
                       [fields["references"][k]], fam, beta=fields["beta"], lowercase=fields["lowercase"])
            reply = _send(client, p.body)
            same = [v for v in judge.judge(p.fields, reply) if v.family == fam and not reply.presumed]
            if same:
                b.probe, b.violation, b.reply = p, same[0], reply
                break


def _finding(adapter, fam: str, b: _Broken, judge: Judge) -> Finding:
    p, v, reply = b.probe, b.violation, b.reply
    fields = p.fields
    if fields is None:  # a refusal probe: the texts it holds, as far as they are texts
        inner = p.body if not isinstance(p.body, dict) else p.body
        hyps = [h for h in (inner.get("hypotheses") or []) if isinstance(h, str)] if isinstance(inner, dict) and \
            isinstance(inner.get("hypotheses"), list) else []
        refs = [r for r in (inner.get("references") or []) if isinstance(r, str)] if isinstance(inner, dict) and \
            isinstance(inner.get("references"), list) else []
        k = min(len(hyps), len(refs))
        lo, hi, default = adapter.contract.beta_range
        fields = {"hypotheses": hyps[:k], "references": refs[:k], "beta": default, "lowercase": False}
    claims = adapter.claims.replace(beta=fields["beta"], lowercase=fields["lowercase"]).to_dict()
    expected = v.expected
    if expected is None and fields["hypotheses"] and all(
            not any(0xD800 <= ord(ch) <= 0xDFFF for ch in t) for t in fields["hypotheses"] + fields["references"]):
        expected = judge.expected(fields).score
    actual_num = None
    if v.actual is not None:
        try:
            actual_num = float(Fraction(v.actual)) if "/" in v.actual else float(v.actual)
        except (ValueError, ZeroDivisionError, OverflowError):
            actual_num = None
    inputs = {"hypotheses": list(fields["hypotheses"]), "references": [[r] for r in fields["references"]]}
    promise = BY_FAMILY.get(fam)
    repro = Repro(level="corpus", inputs=inputs, expected=float(expected or 0),
                  expected_fraction=fraction_text(expected or Fraction(0)), actual=actual_num,
                  actual_raw=v.actual if v.actual is not None else (reply.text[:200] or None),
                  outcome=v.outcome if actual_num is not None or v.outcome != "value" else "invalid",
                  detail=f"{p.name}: {v.detail}")
    f = Finding(implementation=adapter.name, family=fam, level="corpus",
                title=promise.title if promise else fam, claims=claims,
                reference_signature=f"contract:{adapter.contract.id}|beta:{fields['beta']}"
                                    f"|case:{'lc' if fields['lowercase'] else 'mixed'}",
                implementation_signature=adapter.signature, minimal=repro, explanation=[fam],
                source=adapter.source_record("corpus"), origin="contract", examples=b.count,
                evidence=f"{p.name}: {v.detail}"[:300], request=p.body)
    return f


def _table(adapter, run: ContractRun, summary, scored: list[Probe], replies: list) -> dict:
    """The conformance table: each promise kept or broken (with its finding's family)."""
    c = adapter.contract
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
    ex = c.example_response
    for q, reply in zip(scored, replies):
        if "example" in q.tags:
            ev = Judge(c).expected(q.fields)
            got = {k: _get(c, reply, k) for k in ("score", "score_fraction", "segment_scores")}
            want = {"score": decimal_text(ev.score, c.decimals), "score_fraction": fraction_text(ev.score),
                    "segment_scores": [decimal_text(s, c.decimals) for s in ev.segment_scores]}
            stated = {k: _stated(c, ex, k, want[k]) for k in want}
            reproduced = {"service": got, "contract": stated, "reference": want,
                          "reproduced": got == want and stated == want,
                          # the whole answer is the contract's example answer (None: it gives none)
                          "answer": None if ex is None else reply.kind == "json" and reply.body == ex}
    return {"contract": c.id, "origin": c.origin, "url": adapter.source_record("corpus")["url"], "promises": rows,
            "requests": adapter.client.requests, "retries": adapter.client.retried, "example": reproduced,
            "readings": _readings(c, run), **({"document": adapter.document} if adapter.document
                                              else {})}


def _stated(contract, response, name: str, default):
    """A field of the contract's example answer (``default``: it states none)."""
    try:
        return contract.field(response, name)
    except (KeyError, TypeError):
        return default


def _readings(contract, run: ContractRun) -> list:
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
