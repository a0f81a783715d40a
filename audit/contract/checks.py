"""The contract checks of one service: probes sent, answers judged, findings and the
conformance table added to the implementation's summary (``check_service``).

Scheduled after the differential search by ``audit.collect.service_contract``, in that
process, through the service's client (its retries, budget and concurrency; every request
through its ``confirmed``: a presumed reply is never judged).  Everything sent is fixed by the
contract and the inputs handed in: the probes of ``probes``, then the corpora and sentences
the audit drew from its own strategies, the sentences batched ``max_segments`` to a request.
Each broken promise is one finding (family ``contract-...``) whose repro is the smallest
request that broke it, as a curl command (``conformance``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from reference_impl.conventions import HYPOTHESIS_NGRAMS_WHERE_REFERENCE_HAS_NONE as HYP_CONVENTION

from . import conformance, state
from .judge import Judge, Violation, refusal_failure
from .probes import Probe, alone, drawn_probes, limit_probes, refusal_probes, score_probes
from .promises import PROMISES
from .spec import Contract


@dataclass(frozen=True)
class Service:
    """The service under audit as its contract checks see it (``HttpAdapter.service``): the
    client every request goes through (``confirmed(body, on_written=None)`` -> a reply;
    ``requests``, ``retried``) and what its findings and table name."""

    name: str
    contract: Contract
    client: Any
    claims: Any  # what it claims (``audit.adapters.Claims``: ``replace``, ``to_dict``)
    signature: str
    source: dict  # where it is called (URL, method, contract, the variables that gave headers)
    document: Optional[dict] = None  # where the contract came from, and how it differs from the built-in one


@dataclass
class Broken:
    """A broken promise: the smallest request that broke it, and how often one did."""

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
            self.broken[fam] = Broken(probe, v, reply)
        else:
            old.count += 1
            if probe.size < old.probe.size:
                old.probe, old.violation, old.reply = probe, v, reply


def check_service(service: Service, summary, corpora: list, sentences: list) -> None:
    """Check every promise; add the findings and ``summary.contract`` (the table).
    ``corpora``: (hypotheses, references) drawn for the corpus score, ``sentences``:
    (hypothesis, reference) drawn for the batched segment scores, one reference each."""
    contract, client = service.contract, service.client
    judge, run = Judge(contract), ContractRun()
    scored = score_probes(contract) + limit_probes(contract)
    replies = judge_all(run, judge, scored, client)
    _refusals(run, contract, client)
    state.check(run, judge, client, contract)
    for probes in drawn_probes(contract, corpora, sentences):
        judge_all(run, judge, probes, client)
    one_reading(run, judge)
    _minimize(run, judge, client, contract)
    summary.findings.extend(conformance.finding(service, fam, b, judge) for fam, b in _ordered(run.broken))
    summary.contract = conformance.table(service, run, summary, judge, scored, replies)


def _families_of(probe: Probe) -> list[str]:
    """The promises a scored probe's answer is judged on."""
    base = ["contract-corpus-score", "contract-segment-scores", "contract-score-rounding", "contract-fraction-reduced",
            "contract-word-tokens", "contract-response-schema"]
    return list(dict.fromkeys([probe.family] + base + (["contract-lowercase"] if probe.fields["lowercase"] else [])))


def judge_all(run: ContractRun, judge: Judge, probes: list[Probe], client) -> list:
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
        reply = client.confirmed(p.body, on_written=lambda p=p: judge.expected(p.fields))
        replies.append(reply)
        if reply.presumed:
            continue
        for fam in _families_of(p):
            run.note(p, fam)
        problems, reading = judge.verdict(p.fields, reply)
        answer = state.answer(reply)  # once: it serialises the whole answer
        replayed = state.replayed(run, p, problems, answer)
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


def _refusals(run: ContractRun, contract: Contract, client) -> None:
    """Each documented refusal: an error response is the only right answer."""
    for p in refusal_probes(contract):
        reply = client.confirmed(p.body)
        if reply.presumed:
            continue
        run.note(p, p.family)
        v = refusal_failure(reply, contract)
        if v is not None:
            run.add(p, v, reply)


def one_reading(run: ContractRun, judge: Judge) -> None:
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
                         actual=judge.field(reply.body, "score_fraction")), reply)


def _ordered(broken: dict):
    order = [p.family for p in PROMISES]
    return sorted(broken.items(), key=lambda kv: order.index(kv[0]) if kv[0] in order else 999)


def _minimize(run: ContractRun, judge: Judge, client, contract: Contract) -> None:
    """A segment-level violation found in a request of several segments: the one segment
    alone, when it breaks the same promise by itself (a smaller, clearer repro)."""
    for fam, b in list(run.broken.items()):
        seg, fields = b.violation.segment, b.probe.fields
        if fields is None or len(fields["hypotheses"]) == 1 or fam == "contract-request-independence":
            continue
        # the segment at stake, else (a corpus score) each of the first few segments
        for k in ([seg] if seg is not None else range(min(8, len(fields["hypotheses"])))):
            p = alone(contract, b.probe, k, fam)
            reply = client.confirmed(p.body)
            same = [v for v in judge.judge(p.fields, reply) if v.family == fam and not reply.presumed]
            if same:
                b.probe, b.violation, b.reply = p, same[0], reply
                break
