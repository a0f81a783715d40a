"""Each repro replayed in a fresh worker before it is reported (issue 30, item 4).

The audit calls an implementation thousands of times in one warm process; an implementation
that keeps state between calls (a cache keyed on part of its input, a counter) can answer a
repro there with a value it never gives a fresh process.  So before the findings are built,
every observation a finding may be built from -- unexplained ones included -- is scored again
by freshly started implementations (``audit.adapters.resolve`` with the spec the adapter was
made from, in an isolated worker: nothing of the audit's process is shared), one batch in each
of two fresh workers under different ``PYTHONHASHSEED`` values (``HASH_SEEDS``); where a value
differs from the recorded one, that input is scored alone by two more fresh workers, one per
hash seed, the first of them called twice:

* a fresh worker crashes or hangs on it: a ``crash`` (``timeout``) finding with that
  outcome and its message, never ``stateful``: a process that dies gave no answer to compare;
* the fresh values all agree: the recorded value came from the state the audit's calls left
  behind: a ``stateful`` finding, with both values;
* the two fresh workers differ (under different hash seeds: a value that depends on the order
  of a set or dict of strings does), or the repeated call in one does: ``nondeterminism``
  (the same input, several values), with the values and seeds; where only the repetition
  differs, the detail says that a call counter and chance cannot be told apart.  Only two
  answers that differ beyond the tolerance are different values (``differ``), each shown whole
  (an exception with its message), so no such row shows two equal values.

A call the fault budget did not make (``presumed``) is no answer: its input is not judged.
Either way the finding the input stood for is folded into that row (it names it), never left
as a repro marked ``flaky: false``.  An adapter that cannot be started afresh (a service, a
callable defined in no importable module) is not replayed, and its findings say nothing more.
"""

from __future__ import annotations

import contextlib
import math
import os
from typing import Optional

#: Differing inputs scored alone in two fresh workers each, at most (each costs two starts).
MAX_ALONE = 3


def fresh_adapter(adapter, changes: Optional[dict] = None):
    """The same implementation in a new isolated worker (None: it cannot be started afresh)."""
    spec = adapter.spec
    if not spec:
        return None
    from ..adapters import resolve
    from ..errors import UsageError

    call = {k: v for k, v in spec.items() if k not in ("name", "given_name")}
    call = dict(call, isolate=True, name=spec.get("given_name"))
    try:
        made = resolve(**call)
    except (UsageError, OSError, ValueError):
        return None
    chosen = next((a for a in made if a.name == spec["name"]), None)
    for a in made:
        if a is not chosen:
            a.close()
    if chosen is None:
        return None
    original, chosen = chosen, chosen.with_claims(adapter.claims)  # the claims audited, in a view
    original.close()  # the view holds the fresh worker now
    if changes:
        try:
            variant = chosen.configure(**changes)
        except Exception:  # noqa: BLE001 - a configuration refused afresh: nothing to compare
            chosen.close()
            return None
        return _Owned(variant, chosen)
    return chosen


class _Owned:
    """A configured variant that closes its parent too."""

    def __init__(self, variant, parent):
        self.variant, self.parent = variant, parent

    def __getattr__(self, name):
        return getattr(self.variant, name)

    def close(self):
        self.variant.close()
        self.parent.close()


def _call(adapter, obs):
    inputs = obs.inputs
    if obs.level == "sentence":
        return adapter.sentence_scores([(inputs["hypothesis"], list(inputs["references"]))])[0]
    return adapter.corpus_scores([(list(inputs["hypotheses"]), [list(r) for r in inputs["references"]])])[0]


def _batch(adapter, observations):
    sent = [o for o in observations if o.level == "sentence"]
    corp = [o for o in observations if o.level == "corpus"]
    out = {}
    if sent:
        for o, r in zip(sent, adapter.sentence_scores([(o.inputs["hypothesis"], list(o.inputs["references"]))
                                                       for o in sent])):
            out[id(o)] = r
    if corp:
        for o, r in zip(corp, adapter.corpus_scores([(list(o.inputs["hypotheses"]),
                                                      [list(r) for r in o.inputs["references"]]) for o in corp])):
            out[id(o)] = r
    return [out[id(o)] for o in observations]


#: The PYTHONHASHSEED of the fresh workers, one per worker in turn: a value that depends on
#: the order of a set or dict of strings (hash randomization) differs between them.
HASH_SEEDS = ("1", "2")


@contextlib.contextmanager
def _hash_seed(value: str):
    """Children started inside get ``PYTHONHASHSEED=value`` (the fresh workers read the
    environment when they are made and started)."""
    before = os.environ.get("PYTHONHASHSEED")
    os.environ["PYTHONHASHSEED"] = value
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("PYTHONHASHSEED", None)
        else:
            os.environ["PYTHONHASHSEED"] = before


def _scored_fresh(adapter, changes: dict, seed: str, score):
    """``score(fresh adapter)`` in a fresh worker under hash seed ``seed`` (None: it cannot be
    started)."""
    with _hash_seed(seed):
        f = fresh_adapter(adapter, changes)
        if f is None:
            return None
        try:
            return score(f)
        finally:
            f.close()


def _alone(adapter, changes: dict, obs):
    """The input scored alone: (first call, second call) in one fresh worker and one call in
    another under another hash seed, or None when a worker cannot be started.  The repeated
    call tells a value that changes with repetition (nondeterminism) from one that depends on
    earlier inputs (state); the second seed, a value that depends on hash randomization."""
    calls = []
    for repeat, seed in zip((2, 1), HASH_SEEDS):
        got = _scored_fresh(adapter, changes, seed, lambda f: [_call(f, obs) for _ in range(repeat)])
        if got is None:
            return None
        calls.extend(got)
    return tuple(calls)


#: outcomes that are no answer: the process died or did not answer in time
NO_ANSWER = ("crash", "timeout")


def same(a, b, tolerance: float) -> bool:
    """Two outcomes of one input are the same answer: two values within the tolerance, or two
    failures of one kind."""
    if a.kind != b.kind:
        return False
    if a.kind != "value":
        return True
    return a.value is not None and b.value is not None and math.isfinite(a.value) and math.isfinite(b.value) and \
        abs(a.value - b.value) <= tolerance


def _text(outcome) -> str:
    """An outcome as a replay's detail shows it: a value whole (``repr``: two values that
    differ beyond the tolerance never read the same), anything else with its message."""
    if outcome.kind == "value":
        return repr(outcome.value)
    return f"{outcome.kind} ({outcome.detail})" if outcome.detail else outcome.kind


def judge(recorded, first, again, other, tolerance: float) -> Optional[tuple]:
    """(family, detail, outcome) of an input whose recorded answer the batch did not give, from
    its calls alone: ``first`` and ``again`` in one fresh worker, ``other`` in another; None
    when they give the recorded answer (the batch's state) or a call was not made.  The outcome
    is the finding's: a fresh worker's crash or hang, else the recorded one."""
    calls = (first, again, other)
    if any(c.presumed for c in calls):
        return None  # the fault budget presumed it: no answer to judge by
    died = next((c for c in calls if c.kind in NO_ANSWER), None)
    if died is not None:
        which = "a second call in a fresh worker" if died is again and first.kind not in NO_ANSWER else "a fresh worker"
        return died.kind, f"{which}: {died.detail or died.kind} (it scored {_text(recorded)} in the audit's process)", died
    if not same(first, other, tolerance):
        return ("nondeterminism", f"scored {_text(recorded)} in the audit's process, then {_text(first)} and "
                                  f"{_text(other)} in two fresh ones (PYTHONHASHSEED {HASH_SEEDS[0]} and "
                                  f"{HASH_SEEDS[1]})", recorded)
    if not same(first, again, tolerance):
        # Two fresh processes agree, yet the same input called again in one of them
        # changes: a call counter and per-call randomness both do this; named by what
        # was seen (the same input, different values), with the caveat, not as state.
        return ("nondeterminism", f"scored {_text(recorded)} in the audit's process, {_text(first)} in a fresh one "
                                  f"and {_text(again)} when called again there: the same input gives different values "
                                  f"(whether from a counter or chance, the calls cannot tell)", recorded)
    if not same(first, recorded, tolerance):
        return ("stateful", f"scored {_text(recorded)} in the audit's process and {_text(first)} in a fresh one "
                            f"(twice): the implementation keeps state between calls", recorded)
    return None  # alone in a fresh process it gives the recorded value: the batch's state


def replay(adapter, observations: list, tolerance: float) -> list[tuple]:
    """(observation, family, detail, outcome) for each observation whose recorded answer a
    fresh worker does not give (``judge``): ``crash`` or ``timeout`` (a fresh worker's, whose
    outcome is the finding's), ``stateful`` or ``nondeterminism``.  ``observations`` share the
    adapter's claims per ``changes`` group."""
    out: list[tuple] = []
    groups: dict = {}
    for o in observations:
        if o.outcome is not None and o.outcome.kind in ("value", "exception", "invalid") and not o.outcome.presumed:
            groups.setdefault(tuple(sorted((o.changes or {}).items())), []).append(o)
    for changes, obs in groups.items():
        # every repro in fresh workers under each hash seed: a value that depends on the seed
        # differs from the recorded one under one of them at least
        batches = [_scored_fresh(adapter, dict(changes), seed, lambda f: _batch(f, obs)) for seed in HASH_SEEDS]
        if any(b is None for b in batches):
            continue
        differing = [o for o, *answers in zip(obs, *batches)
                     if not any(a.presumed for a in answers) and not all(same(o.outcome, a, tolerance) for a in answers)]
        for o in differing[:MAX_ALONE]:
            alone = _alone(adapter, dict(changes), o)
            verdict = judge(o.outcome, *alone, tolerance) if alone is not None else None
            if verdict is not None:
                out.append((o, *verdict))
    return out
