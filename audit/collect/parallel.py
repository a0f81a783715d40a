"""Running the (implementation, level) units of an audit, here or in a pool of processes.

Each unit is independent (its own checker, its own seeds, see ``audit.collect.unit``), so running
them in ``jobs`` processes gives the same findings as running them one after the other.  A
child process re-creates an adapter from the spec ``audit.adapters.resolve`` gave it
(``adapter.spec``: the ``resolve`` call that made it, and its name), as a view claiming what
it claims here (``with_claims``), and keeps the adapters of
that call for its next units.
"""

from __future__ import annotations

import os
from typing import Callable, Optional

from ..findings import family_count


def default_jobs() -> int:
    """The cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


_CHILD_ADAPTERS: dict = {}


def _child_unit(spec: dict, claims, level: str, options: dict):
    """Runs in a pool process: one unit of one implementation, re-created from its spec."""
    from ..adapters import resolve
    from .unit import audit_level

    call = {k: v for k, v in spec.items() if k not in ("name", "given_name")}
    call = _narrowed(dict(call, name=spec.get("given_name")), spec["name"])
    key = repr(sorted(call.items()))
    if key not in _CHILD_ADAPTERS:  # one resolve per call: the adapters share their workers
        _CHILD_ADAPTERS[key] = {a.name: a for a in resolve(**call)}
    resolved = _CHILD_ADAPTERS[key][spec["name"]]
    # as audited in the parent (a view with other claims carries the spec of what it views)
    adapter = resolved if resolved.claims == claims else resolved.with_claims(claims)
    from ..settings.hypothesis_profiles import private_storage

    try:
        with private_storage():  # no ./.hypothesis from a pool process either
            return audit_level(adapter, level, **options)
    finally:
        if adapter is not resolved:
            adapter.close()


def _narrowed(call: dict, name: str) -> dict:
    """The built-ins of ``call`` that share a worker with ``name`` (nltk, or the sacreBLEU
    ones): a pool process then starts only the worker its units need."""
    from ..adapters.kinds import builtin_names
    from ..upstream import registry

    impl = call.get("impl")
    if call.get("external") or call.get("corpus_impl") or (impl and ":" in impl):
        return call
    if registry.builtin(name) is None:
        return call
    group = registry.group_of(name)
    return dict(call, impl=",".join(n for n in builtin_names(impl) if n in group))


def run_units(adapters: list, options: dict, *, jobs: int = 1, progress: Optional[Callable] = None,
              on_summary: Optional[Callable] = None) -> list:
    """AdapterSummary per adapter, in the adapters' order."""
    from .unit import audit_level, finish_summary, levels_of, summarize
    from .search import Progress

    units = [(i, level) for i, a in enumerate(adapters) for level in levels_of(a)]
    remote = jobs > 1 and len(units) > 1 and all(a.spec for a in adapters)
    done: dict[int, dict] = {i: {} for i in range(len(adapters))}
    summaries: dict[int, object] = {}

    def finished(i: int, unit) -> None:
        done[i][unit.level] = unit
        a = adapters[i]
        if remote and progress:
            progress(Progress(a.name, f"{unit.level} done", unit.examples, family_count(unit.findings), unit.elapsed))
        if len(done[i]) == len(levels_of(a)):
            summaries[i] = summarize(a, [done[i][lvl] for lvl in levels_of(a)])
            finish_summary(a, summaries[i], options)
            if progress:
                s = summaries[i]
                progress(Progress(a.name, "done", s.examples, family_count(s.findings), s.elapsed))
            if on_summary is not None:
                on_summary(summaries[i])

    if not remote:
        for i, level in units:
            finished(i, audit_level(adapters[i], level, progress=progress, **options))
        return [summaries[i] for i in range(len(adapters))]

    from collections import deque
    from concurrent.futures import FIRST_COMPLETED, wait

    from ..processes import owner as procs

    # This process is one of the ``jobs``: it audits with the adapters it already has while
    # jobs - 1 pool processes take the other units, one at a time (corpus units first: they
    # are the long ones, so the end is even).  Who runs a unit changes nothing in it.
    queue = deque(sorted(units, key=lambda u: (u[1] != "corpus", u[0])))
    in_flight: dict = {}

    def collect(block: bool) -> None:
        if not in_flight:
            return
        ready, _ = wait(in_flight, timeout=None if block else 0, return_when=FIRST_COMPLETED)
        for fut in sorted(ready, key=lambda f: in_flight[f]):
            i, _level = in_flight.pop(fut)
            finished(i, fut.result())

    # Ctrl-C or SIGTERM (procs.Terminated) ends the running units too; a failed unit starts no other
    with procs.process_pool(jobs - 1) as pool:
        while queue or in_flight:
            while queue and len(in_flight) < jobs - 1:
                i, level = queue.popleft()
                in_flight[pool.submit(_child_unit, adapters[i].spec, adapters[i].claims, level, options)] = (i, level)
            if queue:
                i, level = queue.popleft()
                finished(i, audit_level(adapters[i], level, **options))
                collect(block=False)
            else:
                collect(block=True)
    return [summaries[i] for i in range(len(adapters))]
