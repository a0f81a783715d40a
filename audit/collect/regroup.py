"""Keys regrouped once the model is fitted (``explain_again``): an example met before the
deviation that explains it was accepted, or grouped under a model fitted since, joins the key
it gets now -- example by example, so that a key standing for two mechanisms keeps the one
nothing explains (issue 30: every uncatalogued bug an ``unexplained`` row whose repro
activates it)."""

from __future__ import annotations

from .search import SEEDS_PER_KEY, _Collected, _rank


def explain_again(found: dict, recheck, dropped=frozenset()) -> dict:
    """Unexplained (and out-of-range) keys whose examples the explanations accepted *later* in
    the unit now explain (an input met before the implementation's other deviations were
    confirmed) or group otherwise (their signature is taken against the model fitted now),
    and keys naming a deviation the model has ``dropped`` (``audit.collect.fitting.prune``,
    ``settle``).  Every recorded example of such a key (its repro, the shrink run's seeds,
    its largest) is classified again, and each joins the key it gets now: a key that stood
    for two mechanisms (one the model explains now, one nothing explains) keeps the examples
    that still fall into it, with their seeds, and gives up only the others -- one example
    does not decide for all (nothing is left out).  ``recheck(obs)`` re-classifies one input."""
    found = dict(found)
    for key in [k for k in found if k[0] in ("unexplained", "out-of-range") or set(k) & set(dropped)]:
        c = found.get(key)
        if c is None:
            continue
        seeds = [(name, s) for name, ss in c.seeds.items() for s in ss]
        examples = list({id(o): o for o in [c.minimal, *(s[-1] for _, s in seeds), c.largest] if o is not None}.values())
        if not examples:
            continue
        again = {id(o): _again(o, recheck(o)) for o in examples}
        moved = {i: a for i, a in again.items() if a.key is not None and a.key != key}
        if not moved:
            continue  # each agrees with the definition now (a flaky input) or falls into the key still
        stays = len(moved) < len(examples)
        targets = list(dict.fromkeys(a.key for a in moved.values()))
        first = c.minimal or min(examples, key=_rank)
        main = None if stays else again[id(first)].key  # all move: the rest goes with the smallest
        for new in targets:
            mine = [o for o in examples if id(o) in moved and moved[id(o)].key == new]
            share = c.count - sum(1 for a in moved.values() if a.key != new) if new == main else len(mine)
            _join(found, new, c, [again[id(o)] for o in mine],
                  [(n, s[:-1] + (again[id(s[-1])],)) for n, s in seeds if id(s[-1]) in moved and moved[id(s[-1])].key == new],
                  max(share, 1), whole=new == main)
        if stays:
            c.count = max(1, c.count - len(moved))
            c.seeds = {n: [s for s in ss if id(s[-1]) not in moved] for n, ss in c.seeds.items()}
            if c.minimal is not None and id(c.minimal) in moved:
                c.minimal = None  # the shrink run finds the key's repro again, from the seeds it kept
            if c.largest is not None and id(c.largest) in moved:
                c.largest = max((o for o in examples if id(o) not in moved), key=lambda o: o.difference)
        else:
            del found[key]
    return found


def _again(old, new):
    """``new`` (a re-classified example) keeps what the search drew (for its shrink run)."""
    new.changes, new.replay_case = old.changes, old.replay_case
    return new


def _join(found: dict, key: tuple, c, examples: list, seeds: list, count: int, whole: bool) -> None:
    """Examples of ``c`` re-classified into ``key`` join it (``whole``: the rest of ``c``
    -- its count, absorbed groups and relations -- comes along)."""
    target = found.get(key)
    if target is None:
        target = found[key] = _Collected(origin=c.origin, flaky=c.flaky)
        target.minimal = examples[0] if c.minimal is not None and examples[0].inputs == c.minimal.inputs else None
    target.count += count
    best = max(examples, key=lambda o: o.difference)
    if target.largest is None or best.difference > target.largest.difference:
        target.largest = best
    for name, s in seeds:
        ss = target.seeds.setdefault(name, [])
        ss.append(s)
        ss.sort(key=lambda x: x[:2])
        del ss[SEEDS_PER_KEY:]
    if target.minimal is None and not target.seeds:
        target.minimal = min(examples, key=lambda o: o.size)
    if whole:
        target.absorbs = sorted(set(target.absorbs) | set(c.absorbs))
        target.relations.update(c.relations)
