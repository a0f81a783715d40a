"""Each fitted deviation's own repro (``audit.diagnose.reduce``): reduced from its trigger
inputs by Hypothesis's shrinker, alone where the model's other deviations can be inert."""

from __future__ import annotations

from typing import Callable, Optional

from hypothesis import strategies as st

from ..diagnose import reduce
from .checker import Observation
from .search import Pass, derived_seed, record, shrink


def reduce_repros(u) -> dict[str, Observation]:
    """family -> its repro observation, for every family the model fitted at this level
    that a trigger input shows (alone where possible).  Families it cannot show keep the
    search's shrunk example."""
    from ..diagnose.deviations.triggers import pool as trigger_pool

    from ..diagnose import inert
    from ..diagnose.fitted import CLAIMED

    params, level, tol = u.params, u.level, u.checker.tolerance
    model = u.model.variant()
    behind = inert.named_behind(u.model.evidence, u.level)
    out: dict[str, Observation] = {}
    for fam in u.model.families():
        if fam.startswith("parameter-ignored-"):
            continue
        start_level = repro_level(fam, level)
        pool = [s for s in trigger_pool(fam, params, start_level, u.refs_taken) if u.takes(s)]
        if fam in behind:  # named where an unexplained deviation is inert: its repro is from there too
            mine = reduce.alone(fam, model)
            pool = inert.project(pool, behind[fam], params, level, model,
                                 inert.differs_from(params, level, mine, [CLAIMED], tol))
        values = u.checker.classifier.scores(u.adapter, level, pool) if pool else []
        tiers = [reduce.tier(s, v, fam, model, params, level, u.scale, tol) for s, v in zip(pool, values)]
        best = min((t for t in tiers if t is not None), default=None)
        if best is None:
            continue
        # the start: in the best tier, the input where the fewest other deviations matter
        ranked = sorted((reduce.others_mattering(s, fam, model, params, level, tol), i)
                        for i, (s, t) in enumerate(zip(pool, tiers)) if t == best)
        others, start = ranked[0][0], pool[ranked[0][1]]
        obs = _reduce(u, fam, model, best, start, others, seed_level=start_level)
        if obs is not None:
            out[fam] = obs
            if not any(fam in key for key in u.found):  # fitted on targeted inputs alone
                record(u.found, obs, origin="search")
    return out


def repro_level(family: str, level: str) -> str:
    """The level whose trigger inputs (and reduction seed) start ``family``'s repro at
    ``level``.  A family whose triggers are one-segment inputs starts from the sentence
    level's at both levels, so its corpus repro is, wherever the family shows alike on one
    segment, the sentence repro as a one-segment corpus: the two levels show the same
    hypothesis and reference, not two mirror-image inputs drawn apart (issue 29, item 16)."""
    from ..diagnose.deviations.triggers import one_segment

    return "sentence" if one_segment(family) else level


def _reduce(u, family: str, model: tuple, wanted: int, start, others: int, *,
            seed_level: Optional[str] = None) -> Optional[Observation]:
    """``start`` reduced while it stays in tier ``wanted`` (``audit.diagnose.reduce.tier``) with no
    more of the model's other deviations mattering than on ``start``; the reduction's seed is
    derived from ``seed_level`` (default: the unit's level)."""
    from ..diagnose.oracle import score_many

    params, level, tol = u.params, u.level, u.checker.tolerance

    def predicate(segs) -> bool:
        if wanted and reduce.others_mattering(segs, family, model, params, level, tol) > others:
            return False
        value = score_many(u.adapter, level, [segs])[0]
        return reduce.tier(segs, value, family, model, params, level, u.scale, tol) == wanted

    inputs = reduced(u, family, predicate, start, "reduce", seed_level=seed_level)
    obs = u.checker.check(level, inputs, repeat=False)
    return obs if obs.key else None


def reduced(u, name: str, predicate: Callable, start, tag: str, *, seed_level: Optional[str] = None) -> dict:
    """The smallest reduction of ``start`` (a segment list) that Hypothesis's shrinker finds
    keeping ``predicate``; ``start`` itself when nothing smaller keeps it.  Its seed is derived
    from ``seed_level`` (default: the unit's level)."""
    key = ("reduce", name)
    level = u.level

    def examine(inputs, changes):
        return Observation(level, None, inputs, None, None, key if predicate(reduce.segments_of(level, inputs)) else None)

    p = Pass(f"reduce {name}", examine, reduce.strategy(start, level), st.just({}), 2)
    choices = reduce.start_choices(start, level)
    found, _ = shrink(p, key, [(None, 0, choices, None)], seed=derived_seed(u.seed, seed_level or level, tag, name), tick=u.tick,
                      profile=u.profile)
    return found.inputs if found is not None else reduce.inputs_of(level, start)


#: Calls the reduction of one unexplained row's repro makes at most (a count, not a clock), and
#: the size (``Observation.size``) below which a repro is left as the pass's shrink made it.
UNEXPLAINED_CALLS = 160
UNEXPLAINED_FLOOR = 16 * 12


def reduce_unexplained(u, key: tuple, obs: Observation) -> Optional[Observation]:
    """An unexplained row's repro reduced character by character (each character dropped or
    replaced by "a", each reference and segment dropped: ``audit.diagnose.reduce.strategy``)
    while the input stays in the row's key: a real-text class draws whole sentences, which its
    pass's own shrink can only swap for other sentences (issue 41, item 2).  None when nothing
    smaller keeps the key."""
    from reference_impl import corpus_score, sentence_score

    from ..diagnose.oracle import score_many

    level, params, tol = u.level, u.params, u.checker.tolerance
    calls = [0]

    def predicate(segs) -> bool:
        if calls[0] >= UNEXPLAINED_CALLS:
            return False
        calls[0] += 1
        value = score_many(u.adapter, level, [segs])[0]
        if value is None:
            return False
        kw = params.kwargs()
        expected = sentence_score(*segs[0], **kw).score if level == "sentence" else \
            corpus_score([h for h, _ in segs], [r for _, r in segs], **kw).score
        if abs(value - float(expected)) <= tol:
            return False
        ex = u.checker.classify(level, segs, params, value)
        if ex is not None and ex.families:
            return False
        return ("unexplained",) + u.checker.classifier.signature(u.adapter, level, segs, params) == key

    inputs = reduced(u, "|".join(key), predicate, u.segments_of(obs.inputs), "unexplained")
    if inputs == obs.inputs:
        return None
    again = u.checker.check(level, inputs, repeat=False)
    if again.key != key:
        return None
    again.changes, again.replay_case = {}, None
    return again
