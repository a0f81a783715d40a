"""What a service's answers show about its state: the same request answered the same twice,
no answer replayed from an earlier request, no input mutated by a lowercased request
(``check``); ``answer`` and ``replayed``, the proof of a replay.  Every request goes through
the client's ``confirmed`` (a presumed reply is never judged).  Run by
``audit.contract.checks``."""

from __future__ import annotations

import json
from typing import Optional

from .judge import Judge, Violation
from .probes import Probe, score_probes, state_probes


def replayed(run, probe: Probe, problems: list, content: Optional[str]) -> Optional[Probe]:
    """The earlier probe whose right answer this wrong answer (``content``) is (None: no such
    proof)."""
    if not problems or content is None:
        return None
    earlier, right = run.answers.get(content, (None, False))
    return earlier if earlier is not None and right and earlier.body != probe.body else None


def answer(reply) -> Optional[str]:
    """An answer's content, for comparing two answers (None: no answer)."""
    if reply.kind != "json":
        return None
    return json.dumps(reply.body, sort_keys=True, ensure_ascii=True)


def _shows(*replies) -> bool:
    """Whether ``replies`` can show a promise kept or broken: none presumed, one an answer."""
    return not any(r.presumed for r in replies) and any(answer(r) is not None for r in replies)


def check(run, judge: Judge, client, contract) -> None:
    """The state promises, each noted only when answers could show it (a service that does not
    answer keeps no promise by it)."""
    seqs = state_probes(contract)
    # the same request twice
    first = next((p for p in score_probes(contract) if "example" in p.tags), seqs["independence"][0])
    a, b = client.confirmed(first.body), client.confirmed(first.body)
    if _shows(a, b):
        run.note(first, "contract-deterministic")
        if answer(a) is not None and answer(a) != answer(b):
            run.add(first, Violation("contract-deterministic", f"two answers to one request differ: {diff(a, b)}",
                                     expected=None), b)
    # no answer replayed from an earlier request, and the first request answered the same after
    # the others as before them (when it was answered the same twice in a row)
    seq = seqs["independence"]
    first = [client.confirmed(seq[0].body) for _ in range(2)]
    for p in seq:
        reply = first[0] if p is seq[0] else client.confirmed(p.body)
        if not _shows(reply):
            continue
        run.note(p, "contract-request-independence")
        problems = judge.judge(p.fields, reply)
        stale = replayed(run, p, problems, answer(reply))
        if stale is not None:
            run.add(p, Violation("contract-request-independence", f"the answer is the right answer to the earlier "
                                 f"request ({stale.name}), wrong here: {problems[0].detail}"), reply)
        else:
            run.answers.setdefault(answer(reply), (p, not problems))
    again = client.confirmed(seq[0].body)
    if None not in (answer(first[0]), answer(again)) and answer(first[0]) == answer(first[1]) != answer(again):
        run.add(seq[0], Violation("contract-request-independence", f"the same request, answered the same twice in a "
                                  f"row, is answered differently after {len(seq) - 1} other requests: "
                                  f"{diff(first[0], again)}"), again)
    # the same texts before and after a lowercased request on them
    before, lowered, after = (client.confirmed(p.body) for p in seqs["mutation"])
    p = seqs["mutation"][2]
    if _shows(before, lowered, after) and answer(before) is not None:
        run.note(p, "contract-inputs-not-mutated")
        if answer(after) != answer(before) and answer(after) != answer(lowered):
            run.add(p, Violation("contract-inputs-not-mutated", f"the answer changed after a lowercased request on "
                                 f"the same texts: {diff(before, after)}"), after)


def diff(a, b) -> str:
    if a.kind != "json" or b.kind != "json":
        return f"{a.detail} / {b.detail}"
    x, y = a.body, b.body
    if isinstance(x, dict) and isinstance(y, dict):
        for k in sorted(set(x) | set(y)):
            if x.get(k) != y.get(k):
                return f"{k}: {json.dumps(x.get(k))[:60]} then {json.dumps(y.get(k))[:60]}"
    return "the bodies differ"
