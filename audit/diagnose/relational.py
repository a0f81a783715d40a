"""Naming a deviation from the implementation's own outputs, when a bug that no family
describes changes every score.

Exact confirmation (``audit.diagnose.classify``) asks a model to reproduce the implementation's
numbers; behind an unknown bug it never can, so the catalogued bugs beside it used to go
unnamed.  Two kinds of evidence survive any unknown bug that acts *after* the stage they
test (the score formula, the output, anything the implementation does with its statistics):

* **pairs** (text and layout stages): two inputs whose statistics under a model are
  identical get identical scores from an implementation built that way, whatever it does
  next; inputs whose statistics differ get (almost always) different scores.  Each pair is
  an input and a small edit of it (a whitespace character inserted, the case changed, a
  reference dropped, ...).  A stage variant is named when the implementation treats the
  pairs as equal or different exactly as the variant says and the model fitted so far does
  not;
* **identities** (reference selection, corpus aggregation): the score of an input is a
  fixed function of the implementation's own scores of its parts: the first reference's,
  the mean over references, the mean over segments.

Pure computation over the models; the implementation is reached through ``score_many``.
Everything is drawn from the trigger pools (``audit.diagnose.deviations.triggers``), so the evidence
is the same on every run.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, replace
from typing import Callable, Optional

from . import deviations
from .deviations.triggers import draw
from .deviations.triggers import pool as trigger_pool
from .models import ScoreVariant, TextVariant, predict, text_stats

#: Pairs (or identity inputs) a variant must get right where the fitted model gets them
#: wrong, how many of its "different" predictions may come out equal (an unknown bug that
#: caps or rounds scores can merge two different scores), and how many of its "equal" ones
#: different (an unknown bug of a later stage cannot split equal statistics; one of an
#: earlier stage can).
MIN_DECISIVE = 5
WEAK_SHARE = 0.2
STRONG_SHARE = 0.05
INPUTS_PER_FAMILY = 8

_WS = ["\x1c", "\x1f", "\t", "\n", "\x0b", "\x85", "\xa0", "\u2003", "\u3000", " "]
_FORMAT = ["\ufeff", "\u200c", "\u200e"]
_PUNCT = re.compile(r"([!-/:-@\[-`{-~])")
_RENAMES = {
    "ascii": "qrstuvwxyz",
    "two-byte": "\xe9\xe8\xfc\u0436\u0444\u0449\u03b1\u03b2\u03b3\u03b4",
    "three-byte": "\u4e2d\u6587\u5b57\u6f22\u65e5\u672c\u8a9e\ud55c\uad6d\uc5b4",
    "non-bmp": "\U0001F600\U0001F601\U0001F642\U00010400\U00020000\U0001D400\U0001F44D\U0001F680\U0001F431\U0001F436",
}


@dataclass
class RelationalFit:
    """A deviation named by relations: its family, its model change, and the evidence."""

    family: str
    stage: str  # "text" | "score"
    field: str
    value: object
    agreed: int  # pairs / identities the variant gets right
    total: int
    model_wrong: int  # of them, how many the model fitted before gets wrong
    example: list  # an input on which the deviation matters (segment list)
    partner: Optional[list] = None  # the pair's other input (pairs only)
    #: the evidence as a predicate on one input (segment list -> bool), to reduce the example
    holds: Optional[Callable] = None
    #: the input to report for a (reduced) example: the edited one, which holds the characters
    #: the deviation is about (text edits), or the example itself (layouts, identities)
    shown: Callable = lambda segs: segs

    @property
    def evidence(self) -> str:
        what = "input pairs as equal or different" if self.partner is not None else "inputs by the same identity"
        return (f"relations: the implementation scores {self.agreed} of {self.total} {what} exactly as this "
                f"deviation says, where the model fitted before it gets {self.model_wrong} wrong")


# ------------------------------------------------------------------------------ edits


def _mid(t: str) -> int:
    return max(1, len(t) // 2)


def _insert(t: str, ch: str) -> str:
    return t[:_mid(t)] + ch + t[_mid(t):]


def _on(segs, hyp: Optional[Callable] = None, ref: Optional[Callable] = None) -> list:
    return [((hyp(h) if hyp else h), [(ref(r) if ref else r) for r in rs]) for h, rs in segs]


def _rename(segs, target: str) -> Optional[list]:
    letters = sorted({c for h, rs in segs for t in [h, *rs] for c in t if c.isascii() and c.isalpha()})
    if not letters or len(letters) > len(target):
        return None
    table = str.maketrans(dict(zip(letters, target)))
    return _on(segs, lambda t: t.translate(table), lambda t: t.translate(table))


def _both(h=None, r=None):
    return lambda segs: _on(segs, h, r)


def _renamed(target):
    return lambda segs: _rename(segs, target)


def _normalized(form):
    return lambda t: unicodedata.normalize(form, t)


#: Edits of the text stage: each maps a segment list to another (None: does not apply).
TEXT_EDITS: list = []
for _ch in _WS + _FORMAT:
    TEXT_EDITS += [_both(lambda t, c=_ch: _insert(t, c)), _both(r=lambda t, c=_ch: _insert(t, c)),
                   _both(lambda t, c=_ch: _insert(t, c), lambda t, c=_ch: c + t)]
TEXT_EDITS += [_both(str.upper), _both(r=str.upper), _both(str.upper, str.upper), _both(str.swapcase),
               _both(lambda t: "\xdf" + t, lambda t: "ss" + t), _both(lambda t: "\u0130" + t, lambda t: "i\u0307" + t)]
TEXT_EDITS += [_both(_normalized(f), _normalized(f)) for f in ("NFC", "NFD", "NFKC")]
TEXT_EDITS += [_both(lambda t: "e\u0301" + t, lambda t: "\xe9" + t), _both(lambda t: "\ufb01" + t, lambda t: "fi" + t)]
TEXT_EDITS += [_renamed(target) for target in _RENAMES.values()]
TEXT_EDITS += [_both(lambda t: t[:-1] + "z" if t else t), _both(lambda t: "z" + t[1:] if t else t),
               _both(lambda t: t[:1] + t), _both(lambda t: t + t[-1:]),
               _both(lambda t: t.replace(" ", ". ", 1) + "."), _both(lambda t: "(" + t, lambda t: "(" + t),
               _both(lambda t: t + ".", lambda t: t + "."), _both(lambda t: " " + t + " "),
               _both(lambda t: _PUNCT.sub(r" \1 ", t), lambda t: _PUNCT.sub(r" \1 ", t)),
               _both(lambda t: _PUNCT.sub(r" \1", t))]


def _refs(f):
    return lambda segs: [(h, f(rs)) for h, rs in segs]


def _several(f):
    return lambda segs: f(segs) if len(segs) > 1 else None


def _columns(segs):
    columns = [list(c) for c in zip(*[rs for _, rs in segs])]
    return [(h, c) for h, c in zip([h for h, _ in segs], columns)]


#: Edits of how references and segments are read.
LAYOUT_EDITS = [
    _refs(lambda rs: rs[:1]), _refs(lambda rs: [rs[0][:1]]), _refs(lambda rs: list(rs[0]) or [""]),
    _refs(lambda rs: [" ".join(rs)]), _refs(lambda rs: [r for r in rs if r] or rs), _refs(lambda rs: rs + [""]),
    _refs(lambda rs: rs[::-1]), _refs(lambda rs: [rs[0][::-1]] + rs[1:]),
    _several(lambda segs: segs[:1]), _several(lambda segs: segs[-1:]), _several(lambda segs: segs[::-1]),
    _several(lambda segs: [segs[0]] + [("zz", rs) for _, rs in segs[1:]]),
    _several(lambda segs: segs[:-1] + [(h, rs + [""]) for h, rs in segs[-1:]]), _several(_columns),
]


def _moved(segs):
    """The last character of the second segment's hypothesis moved to the end of the first's:
    the corpus's hypothesis n-gram totals of every order stay the same."""
    if len(segs) < 2 or not segs[1][0]:
        return None
    (h0, r0), (h1, r1) = segs[0], segs[1]
    return [(h0 + h1[-1], r0), (h1[:-1], r1)] + segs[2:]


#: Edits of a corpus's segments that keep hypothesis n-gram totals.
CORPUS_EDITS = [_moved]


def _apply(edit, segs):
    y = edit(segs)
    return y if y is not None and y != segs and all(rs for _, rs in y) else None


#: TextVariant fields judged by pairs, and the edits that make their pairs.
TEXT_FIELDS = {
    "ws": TEXT_EDITS, "case": TEXT_EDITS, "units": TEXT_EDITS, "format_deleted": TEXT_EDITS,
    "words": TEXT_EDITS, "clip": TEXT_EDITS, "refs_layout": LAYOUT_EDITS, "corpus_layout": LAYOUT_EDITS,
    "hyp_where_no_ref": CORPUS_EDITS,
}


# ------------------------------------------------------------------------------ fitting


def _near(text: str) -> str:
    """``text`` with its last letter replaced by one it does not hold."""
    i = max((j for j, c in enumerate(text) if c.isalpha()), default=len(text) - 1)
    new = next(c for c in "zyxwvu" if c not in text) if any(c not in text for c in "zyxwvu") else "q"
    return text[:i] + new + text[i + 1:]


def _key(segs, params, tv: TextVariant, references: Optional[str] = None, summed: bool = False):
    """What an implementation with text variant ``tv`` computes its score from, whatever it
    does with it: per segment, the statistics of the references it reads that can decide
    its score -- the first one's (first reference only), all of them as a multiset (mean),
    else those that match (the best reference scores above 0 and does not depend on the
    order), or the first when none matches (a tie at 0), or nothing (a best-reference search
    that starts from 0).  ``summed`` (a corpus score from summed statistics): when every
    segment's choice is decided, their sum per order, which is all such a score sees."""
    out = []
    for seg in text_stats(segs, params, tv):
        stats = [(s.hyp, s.ref, s.match) for s in seg]
        matched = sorted(x for x in stats if any(x[2]))
        if references == "first":
            out.append(tuple(stats[:1]))
        elif references == "mean":
            out.append(tuple(sorted(stats)))
        elif matched:  # the best reference is one that matches (a score above 0), whichever
            out.append(tuple(matched))
        elif references != "sentinel-zero":  # none matches: a tie at 0, the first one wins
            out.append(tuple(stats[:1]))
        # (sentinel-zero: a segment that matches no reference adds nothing)
    if summed and references != "mean" and all(len(set(c)) == 1 for c in out):
        chosen = [c[0] for c in out]
        return ("sum",) + tuple(tuple(map(sum, zip(*parts))) for parts in zip(*chosen)) if chosen else ("sum",)
    return tuple(out)


def _pool(fields: set, params, level: str, nrefs: int, nsegs: int) -> list:
    """Trigger inputs of every family modelled by ``fields`` (deterministic)."""
    out, raw, seen = [], [], set()
    for dev in deviations.modelled("text"):
        if not any(f in fields for f, _ in dev.models) or dev.trigger is None:
            continue
        for segs in trigger_pool(dev.id, params, level, nrefs)[:INPUTS_PER_FAMILY]:
            # and a near copy: the hypothesis is its first reference with one letter changed,
            # so that every order has some matches and scores stay off the ends of the scale
            near = [(_near(rs[0]) if rs and len(rs[0]) > 2 else h, rs) for h, rs in segs]
            for cand, into in ((near, out), (segs, raw)):
                k = repr(cand)
                if k not in seen:
                    seen.add(k)
                    into.append(cand)
    if "clip" in fields:  # a hypothesis that holds its reference twice: every n-gram over-represented
        for segs in draw("relational-clip", "plain", params, level, 1)[:INPUTS_PER_FAMILY]:
            out.append([(rs[0] + rs[0], rs) for _, rs in segs])
    if "hyp_where_no_ref" in fields and level == "corpus":
        # a segment whose reference has one character, then one that holds its reference and
        # a letter more (whose last character the edit moves to the first segment)
        for segs in draw("relational-short-references", "segments", params, level, 1)[:INPUTS_PER_FAMILY]:
            (h0, r0), (_, r1) = segs[0], segs[1]
            out.append([(h0, [r0[0][:1]]), (r1[0] + "z", r1)] + segs[2:])
    if level == "corpus":  # layout families need several segments (and references)
        for segs in draw("relational-corpus", "segments", params, level, 1)[:INPUTS_PER_FAMILY]:
            out.append(segs)
        for segs in draw("relational-refs", "references", params, level, max(2, nrefs))[:INPUTS_PER_FAMILY]:
            out.append(segs + [(h + "b", rs[::-1]) for h, rs in segs])
    return out + raw  # the inputs made to score off the ends of the scale first


def _alternatives(field: str, model_tv: TextVariant, params, level, nrefs, nsegs, exclude) -> list:
    alts = []
    for fam_field, value in deviations.alternatives("text", params, level, nrefs, nsegs):
        fam = deviations.family_of("text", fam_field, value)
        if fam_field == field and fam not in exclude:
            alts.append((fam, value))
    return alts


def fit_text_fields(score_many, params, level: str, model: tuple, nrefs: int, nsegs: int,
                    tolerance: float, exclude=frozenset()) -> list[RelationalFit]:
    """Text and layout deviations named by pairs, one field at a time, each on top of the
    model fitted so far (``model``, and the fields named before it here).  How references
    are read competes with which reference is used: ``first-reference-only`` is a candidate
    of the reference layout (a reference string read as its characters also depends on the
    first reference alone; only pairs tell them apart).
    ``score_many(list of segment lists) -> list of float|None``."""
    tv0, sv0 = model
    fits = []
    for field, edits in TEXT_FIELDS.items():
        if getattr(tv0, field) != getattr(TextVariant(), field):
            continue  # fitted exactly already
        alts = [(fam, "text", field, v) for fam, v in _alternatives(field, tv0, params, level, nrefs, nsegs, exclude)]
        if field == "refs_layout" and nrefs > 1 and sv0.references is None and "first-reference-only" not in exclude:
            alts.append(("first-reference-only", "score", "references", "first"))
        if not alts:
            continue
        candidates = [(None, "text", field, getattr(tv0, field))] + alts
        # sums (coarser, so more exposed to an unfitted deviation of an earlier stage) only
        # where the deviation is one of how sums are made
        summed = level == "corpus" and not sv0.macro and field == "hyp_where_no_ref"
        variants = [(replace(tv0, **{f: v}), sv0.references, summed) if stage == "text" else (tv0, v, summed)
                    for _, stage, f, v in candidates]
        pairs = _pairs(_pool({field}, params, level, nrefs, nsegs), edits, params, variants, nrefs)
        if not pairs:
            continue
        inputs = [p[0] for p in pairs] + [p[1] for p in pairs]
        values = score_many(inputs)
        n = len(pairs)
        scored = [(x, y, eq, values[i], values[n + i], edit) for i, (x, y, eq, edit) in enumerate(pairs)
                  if _informative(values[i], values[n + i], tolerance)]
        best = _best(candidates, [row[:5] for row in scored], tolerance)
        if best is not None:
            (fam, stage, fld, value), agreed, wrong, example, i = best
            edit = next(row[5] for row in scored if row[0] is example[0] and row[1] is example[1])
            fits.append(RelationalFit(fam, stage, fld, value, agreed, len(scored), wrong, example[0], example[1],
                                      _pair_relation(score_many, params, variants[0], variants[i], edit, tolerance),
                                      _shown(params, variants[0], variants[i], edit)))
            tv0, refs, _ = variants[i]  # the next fields are judged on top of this one
            sv0 = replace(sv0, references=refs)
    return fits


#: Pairs kept per pattern of predictions (which candidates say "equal"), and in all: every
#: pattern that tells two candidates apart is represented, none crowds the others out.
PAIRS_PER_PATTERN = 10
MAX_PAIRS = 80
#: Inputs of a field's pool that pairs are made from (the ones made to score off the ends
#: of the scale come first).
POOL_PER_FIELD = 32


def _pairs(pool, edits, params, variants, nrefs: int) -> list:
    """Pairs (x, edit of x) that some candidates say are equal and others not, none with
    more than ``nrefs`` references in a segment (what the implementation takes)."""
    by_pattern: dict = {}
    pool = [x for x in pool if all(len(rs) <= nrefs for _, rs in x)]
    for x in pool[:POOL_PER_FIELD]:
        try:
            keys_x = [_key(x, params, *variant) for variant in variants]
        except Exception:  # noqa: BLE001 - an input a model cannot read (an empty layout)
            continue
        for edit in edits:
            y = _apply(edit, x)
            if y is not None and any(len(rs) > nrefs for _, rs in y):
                continue
            eq = _equalities_to(keys_x, y, params, variants) if y is not None else None
            if eq is not None and len(set(eq)) > 1:
                rows = by_pattern.setdefault(tuple(eq), [])
                if len(rows) < PAIRS_PER_PATTERN:
                    rows.append((x, y, eq, edit))
    pairs = []
    for i in range(PAIRS_PER_PATTERN):  # round robin over the patterns, in the order first met
        pairs += [rows[i] for rows in by_pattern.values() if i < len(rows)]
    return pairs[:MAX_PAIRS]


def _equalities_to(keys_x, y, params, variants) -> Optional[list[bool]]:
    try:
        return [kx == _key(y, params, *variant) for kx, variant in zip(keys_x, variants)]
    except Exception:  # noqa: BLE001
        return None


def _equalities(x, y, params, variants) -> Optional[list[bool]]:
    """Per variant ``(TextVariant, reference selection)``: does it compute the same
    statistics for ``x`` and ``y``?"""
    try:
        return [_key(x, params, *v) == _key(y, params, *v) for v in variants]
    except Exception:  # noqa: BLE001 - an input a model cannot read (an empty layout)
        return None


def _shown(params, before: tuple, after: tuple, edit):
    """Which input of a pair to report: the one whose statistics the deviation changes
    (the one holding the whitespace inserted, the one with repeated n-grams, ...)."""
    def pick(x):
        y = _apply(edit, x)
        for cand in (x, y) if y is not None else (x,):
            try:
                if _key(cand, params, *before) != _key(cand, params, *after):
                    return cand
            except Exception:  # noqa: BLE001
                continue
        return x
    return pick


def _pair_relation(score_many, params, before: tuple, after: tuple, edit, tolerance):
    """The evidence as a predicate on one input (to reduce it): the edit still makes a pair
    the two variants disagree on, and the implementation sides with ``after``."""
    def holds(x) -> bool:
        y = _apply(edit, x)
        eq = _equalities(x, y, params, [before, after]) if y is not None else None
        if eq is None or eq[0] == eq[1]:
            return False
        a, b = score_many([x, y])
        return _informative(a, b, tolerance) and (abs(a - b) <= tolerance) == eq[1]
    return holds


def _informative(a: Optional[float], b: Optional[float], tolerance: float) -> bool:
    """Two different scores always say the implementation told the inputs apart; two equal
    scores say it did not only away from the ends of the scale: an implementation that
    scores most inputs 0 (or 100) makes such pairs look "equal" whatever their statistics."""
    if a is None or b is None:
        return False
    return abs(a - b) > tolerance or tolerance < a < 100 - tolerance


def _best(candidates, scored, tolerance):
    """The alternative the implementation follows, or None (the fitted model's own value,
    an ambiguous pattern, or too little evidence)."""
    results = []
    for i, cand in enumerate(candidates):
        strong = weak = unequal = 0
        for x, y, eq, a, b in scored:
            same = abs(a - b) <= tolerance
            if eq[i] and not same:
                strong += 1
            elif not eq[i]:
                unequal += 1
                weak += same
        results.append((strong, weak, unequal))
    model_fail = results[0][0] + results[0][1]
    ok = []
    for i, (strong, weak, unequal) in enumerate(results[1:], 1):
        # An "equal" that comes out different can only be another unfitted deviation of an
        # earlier stage at work: a few are tolerated, where the model fitted so far fails
        # three times as often.
        if strong <= max(1, STRONG_SHARE * len(scored)) and weak <= max(1, WEAK_SHARE * unequal) \
                and model_fail >= 3 * (strong + weak) + MIN_DECISIVE:
            ok.append((strong + weak, i))
    if not ok:
        return None
    ok.sort()
    if len(ok) > 1 and ok[0][0] == ok[1][0]:
        return None  # two alternatives fit equally well: no name
    _, i = ok[0]
    agreed = len(scored) - ok[0][0]
    example = next((x, y) for x, y, eq, a, b in scored if eq[i] != eq[0] and (abs(a - b) <= tolerance) == eq[i])
    return candidates[i], agreed, model_fail, example, i


def fit_identities(score_many, params, level: str, model: tuple, nrefs: int, tolerance: float,
                   exclude=frozenset()) -> list[RelationalFit]:
    """Reference selection (first reference, mean over references) and corpus aggregation
    (mean of segment scores) named by identities over the implementation's own scores."""
    tv0, sv0 = model
    fits = []
    if level == "sentence" and nrefs > 1 and sv0.references is None:
        pool = [segs[:1] for segs in draw("relational-references", "references", params, level, max(2, nrefs))]
        rows = [(segs, _parts(level, segs)) for segs in pool[:2 * INPUTS_PER_FAMILY]]
        fits += _identity_fit(score_many, params, level, model, rows, tolerance, exclude, "sentence")
    if level == "corpus" and not sv0.macro and "corpus-macro-average" not in exclude:
        rows = [(segs, _parts(level, segs)) for segs in draw("relational-macro", "segments", params, level, 1)]
        fits += _identity_fit(score_many, params, level, model, rows, tolerance, exclude, "corpus")
    return fits


#: family -> (score field, value, identity over (whole, parts))
_IDENTITIES = {
    "sentence": [("references-averaged", "references", "mean", lambda w, ps: sum(ps) / len(ps))],
    "corpus": [("corpus-macro-average", "macro", True, lambda w, ps: sum(ps) / len(ps))],
}


def _identity_fit(score_many, params, level, model, rows, tolerance, exclude, kind) -> list[RelationalFit]:
    flat = []
    for whole, parts in rows:
        flat += [whole] + parts
    values = score_many(flat)
    fits, i = [], 0
    scored = []
    for whole, parts in rows:
        vals = values[i:i + 1 + len(parts)]
        i += 1 + len(parts)
        if all(v is not None for v in vals):
            scored.append((whole, parts, vals[0], vals[1:]))
    for fam, field, value, ident in _IDENTITIES[kind]:
        if fam in exclude:
            continue
        variant = (model[0], replace(model[1], **{field: value}))
        decisive = agreed = broken = 0
        example = None
        for whole, parts, w, ps in scored:
            # only inputs where the identity tells the deviation from the model fitted so far
            if not _decisive(whole, params, level, model, variant, tolerance):
                continue
            decisive += 1
            if abs(w - ident(w, ps)) <= tolerance:
                agreed += 1
                example = example or whole
            else:
                broken += 1
        if broken == 0 and agreed >= MIN_DECISIVE:
            fits.append(RelationalFit(fam, "score", field, value, agreed, decisive, decisive, example,
                                      holds=_identity_relation(score_many, params, level, model, variant, ident,
                                                               tolerance, lambda w: _parts(level, w))))
    return fits


def _decisive(whole, params, level, model, variant, tolerance) -> bool:
    try:
        return abs(float(predict(whole, params, level, variant)) - float(predict(whole, params, level, model))) > tolerance
    except Exception:  # noqa: BLE001
        return False


def _parts(level: str, whole) -> list:
    if level == "sentence":
        (h, refs), = whole
        return [[(h, [r])] for r in refs]
    return [[s] for s in whole]


def _identity_relation(score_many, params, level, model, variant, ident, tolerance, parts_of):
    def holds(whole) -> bool:
        parts = parts_of(whole)
        if len(parts) < 2 or not _decisive(whole, params, level, model, variant, tolerance):
            return False
        w, *ps = score_many([whole] + parts)
        return w is not None and None not in ps and abs(w - ident(w, ps)) <= tolerance
    return holds
