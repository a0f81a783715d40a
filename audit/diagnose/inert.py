"""Where a pervasive unexplained deviation is inert (issue 41, item 4): catalogued families
judged behind a bug no family describes.

A bug no family describes that changes almost every score (the highest order alone, geometric
means over the orders, an arithmetic F) leaves no catalogued family an exact prediction to be
held to: every distinguishing input carries it too.  But such a bug is a function of the
statistics, and many are inert on inputs of a known *shape*: with one n-gram order effective
(n-grams on both sides), the highest order alone, a geometric and an arithmetic mean over the
orders all are that order; with as many hypothesis as reference n-grams in every order
(P = R), a weighted arithmetic F is the harmonic one.  Each ``Region`` here is such a shape:

* ``holds``: does an input (its statistics under a model) have the shape;
* ``probes``: plain inputs of the shape (lowercase letters, nothing a text family reads), whose
  definition score lies strictly between 0 and 100.

Its support is learnt, not assumed: a region is *inert* for the unit when the implementation
gives the fitted model's score on every probe (``inert_regions``).  The catalogued families are
then judged by the judge's ordinary rules on their distinguishing inputs *projected* onto that
region (``project``: each trigger input kept when it has the shape, else its first reduction to
one that has it -- a substring of the hypothesis and of each reference -- on which the family
still changes the score); what no region reaches stays hidden, and the fit says behind what.
"""

from __future__ import annotations

import random
import zlib
from dataclasses import dataclass
from typing import Callable

from .models import predict
from .text_model import text_stats

#: Evidence prefix of a family judged behind an unexplained deviation, on inputs of a region
#: where it is inert (``audit.collect.fitting.judge_behind``): judged again there, never elsewhere.
BEHIND_EVIDENCE = "behind the unexplained deviation, on inputs where it is inert ("
#: Probes per region, and the longest hypothesis / reference of a projected input.
PROBES = 8
_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def _effective(s) -> int:
    return sum(1 for h, r in zip(s.hyp, s.ref) if h and r)


def _one_order(raw) -> bool:
    """At most one order with n-grams on both sides, per pair and over the whole input."""
    stats = [c for seg in raw for c in seg]
    if not stats or any(_effective(s) > 1 for s in stats):
        return False
    orders = len(stats[0].hyp)
    both = sum(1 for i in range(orders) if any(s.hyp[i] for s in stats) and any(s.ref[i] for s in stats))
    return both <= 1


def _balanced(raw) -> bool:
    """As many hypothesis as reference n-grams in every order, per pair."""
    stats = [c for seg in raw for c in seg]
    return bool(stats) and all(s.hyp == s.ref and any(s.hyp) for s in stats)


def _distinct(rng, n: int) -> str:
    return "".join(rng.sample(_LETTERS, n))


def _one_order_probe(rng, params, level):
    hyp = _distinct(rng, rng.randint(2, 5))
    ref = rng.choice(hyp) if rng.random() < 0.8 else rng.choice(_LETTERS)
    return [(hyp, [ref])]


def _balanced_probe(rng, params, level):
    ref = _distinct(rng, rng.randint(3, 9))
    k = rng.randrange(len(ref))
    spare = [c for c in _LETTERS if c not in ref]
    hyp = ref[:k] + rng.choice(spare) + ref[k + 1:]
    return [(hyp, [ref])]


def _substrings(t: str, n: int) -> list:
    return list(dict.fromkeys(t[i:i + k] for k in range(1, min(n, len(t)) + 1) for i in range(len(t) - k + 1)))


def _one_order_reductions(hyp: str, refs: list):
    """The hypothesis, then one of its substrings of at most 5 characters (those holding a
    character other than a lowercase ASCII letter first: what a text family reads), against a
    first reference of one character
    -- one of its own, then one of the first reference's that it holds in some case -- the
    others cut to their first character; then against substrings of the references."""
    plain = lambda t: all(c in _LETTERS for c in t)  # noqa: E731
    # the whole hypothesis first (a long text too: a bug that acts on long texts only is met),
    # then its short substrings
    subs = list(dict.fromkeys([hyp] + sorted(_substrings(hyp, 5), key=lambda h: (plain(h), len(h)))))
    rest = [r[:1] for r in refs[1:]]
    own = refs[0] if refs else ""
    for h in subs:
        mine = [c for c in dict.fromkeys(h) if c.isalnum()][:2]
        theirs = [c for c in dict.fromkeys(own) if c.isalnum() and c not in mine and c.lower() in h.lower()][:2]
        for c in mine + theirs:
            yield h, [c] + rest
    ref_subs = [_substrings(r, 2) or [r] for r in refs]
    for k in range(max(map(len, ref_subs))):
        reduced = [rs[min(k, len(rs) - 1)] for rs in ref_subs]
        for h in subs:
            yield h, reduced


def _balanced_reductions(hyp: str, refs: list):
    """Hypothesis and references cut to one length (prefixes, then suffixes)."""
    n = min(len(t) for t in (hyp, *refs))
    for length in range(n, 0, -1):
        yield hyp[:length], [r[:length] for r in refs]
        yield hyp[-length:], [r[-length:] for r in refs]


@dataclass(frozen=True)
class Region:
    id: str
    title: str
    holds: Callable  # raw statistics (per segment, per reference) -> bool
    probe: Callable  # (rng, params, level) -> segments
    reductions: Callable  # (hypothesis, references) -> candidate (hypothesis, references), in order


REGIONS = (
    Region("one-order", "one n-gram order with n-grams on both sides", _one_order, _one_order_probe,
           _one_order_reductions),
    Region("balanced", "as many hypothesis as reference n-grams in every order (P = R)", _balanced, _balanced_probe,
           _balanced_reductions),
)
#: Reductions of one input tried at most when projecting it.
MAX_REDUCTIONS = 60


def has_shape(region: Region, segments, params, model: tuple) -> bool:
    try:
        return region.holds(text_stats(segments, params, model[0]))
    except Exception:  # noqa: BLE001 - a model that cannot read this input
        return False


def probes(region: Region, params, level: str, model: tuple) -> list:
    """The region's probes under ``model``: of its shape there, definition score strictly
    between 0 and 100 (deterministic: seeded by the region's id)."""
    from reference_impl import corpus_score, sentence_score

    rng = random.Random(zlib.crc32(region.id.encode()))
    out, tries = [], 0
    while len(out) < PROBES and tries < 40 * PROBES:
        tries += 1
        segs = region.probe(rng, params, level)
        if not has_shape(region, segs, params, model) or segs in out:
            continue
        kw = params.kwargs()
        score = sentence_score(*segs[0], **kw).score if level == "sentence" else \
            corpus_score([h for h, _ in segs], [r for _, r in segs], **kw).score
        if 0 < score < 100:
            out.append(segs)
    return out


def _plain_probe(rng, params, level):
    """A plain input with every order effective and P != R: 8 to 16 letters of "abcdefgh"
    against the same with one to three letters changed and one or two more at its end."""
    ref = "".join(rng.choice(_LETTERS[:8]) for _ in range(rng.randint(8, 16)))
    hyp = list(ref)
    for _ in range(rng.randint(1, 3)):
        hyp[rng.randrange(len(hyp))] = rng.choice(_LETTERS[:8])
    hyp += [rng.choice(_LETTERS[:8]) for _ in range(rng.randint(1, 2))]
    return [("".join(hyp), [ref])]


def pervasive(scores: Callable, params, level: str, model: tuple, agrees: Callable) -> bool:
    """Does the unexplained deviation change the score of most plain inputs (half of
    ``PROBES`` or more, inputs outside every region: ``_plain_probe``)?  Only then can it hide
    the catalogued families, and only then are they judged behind it (a deviation of a few
    inputs hides nothing the search's own inputs do not show)."""
    from reference_impl import corpus_score, sentence_score

    rng = random.Random(zlib.crc32(b"pervasive"))
    batch: list = []
    for _ in range(40 * PROBES):
        if len(batch) == PROBES:
            break
        segs = _plain_probe(rng, params, level)
        kw = params.kwargs()
        score = sentence_score(*segs[0], **kw).score if level == "sentence" else \
            corpus_score([h for h, _ in segs], [r for _, r in segs], **kw).score
        if 0 < score < 100 and segs not in batch:
            batch.append(segs)
    answers = scores(batch)
    return 2 * sum(1 for s, a in zip(batch, answers) if a is None or not agrees(s, a)) >= len(batch)


def inert_regions(scores: Callable, params, level: str, model: tuple, agrees: Callable) -> list[Region]:
    """The regions on whose every probe the implementation gives ``model``'s score
    (``scores(inputs)`` -> its answers; ``agrees(segments, answer)``): where the unexplained
    deviation does nothing."""
    out = []
    for region in REGIONS:
        batch = probes(region, params, level, model)
        if len(batch) < PROBES:
            continue
        answers = scores(batch)
        if all(a is not None and agrees(s, a) for s, a in zip(batch, answers)):
            out.append(region)
    return out


def project(pool: list, region: Region, params, level: str, model: tuple, matters: Callable) -> list:
    """``pool`` projected onto ``region`` under ``model`` (the candidate with what is fitted):
    each input kept when it has the shape, else replaced by its first reduction not met yet
    that has it and on which ``matters(segments)`` (the candidate changes the definition's
    score, or tells it from a rival); inputs with neither are left out."""
    out, seen = [], set()
    for segs in pool:
        chosen = segs if has_shape(region, segs, params, model) else _reduced(segs, region, params, model, matters,
                                                                              seen)
        if chosen is not None and repr(chosen) not in seen:
            seen.add(repr(chosen))
            out.append(chosen)
    return out


def _reduced(segs, region: Region, params, model: tuple, matters: Callable, seen: set):
    """The first reduction of a one-segment input not in ``seen`` that has the region's shape
    and on which the candidate matters (None: none among the first ``MAX_REDUCTIONS``)."""
    if len(segs) != 1:
        return None
    (hyp, refs), = segs
    for k, (h, rs) in enumerate(region.reductions(hyp, list(refs))):
        if k == MAX_REDUCTIONS:
            return None
        cand = [(h, list(rs))]
        if repr(cand) not in seen and has_shape(region, cand, params, model) and matters(cand):
            return cand
    return None


def differs_from(params, level: str, model: tuple, others: list, tolerance: float) -> Callable:
    """``matters``: does ``model`` predict another score than one of ``others`` (the
    definition, the rivals' models) on an input?"""

    def matters(segs) -> bool:
        try:
            mine = float(predict(segs, params, level, model))
            return any(abs(mine - float(predict(segs, params, level, o))) > tolerance for o in others)
        except Exception:  # noqa: BLE001
            return False

    return matters


def named_behind(evidence: dict, level: str) -> dict:
    """family -> the region it was named behind an unexplained deviation on, read from a fitted
    model's evidence ((level, families) -> evidence) at ``level``."""
    by_id = {r.id: r for r in REGIONS}
    out = {}
    for (lv, fams), ev in evidence.items():
        if lv == level and len(fams) == 1 and str(ev).startswith(BEHIND_EVIDENCE):
            region = str(ev)[len(BEHIND_EVIDENCE):].split(")", 1)[0]
            if region in by_id:
                out[fams[0]] = by_id[region]
    return out
