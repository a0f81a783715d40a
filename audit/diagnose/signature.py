"""What an unexplained divergence needs: the behavioural signature that keeps two unknown bugs
two findings and one unknown bug one (docs/naming.md, "Unexplained")."""

from __future__ import annotations

from typing import Optional

from reference_impl.text import ASCII_PUNCTUATION

from .families import SIGNATURE_PREFIX
from .fitted import CLAIMED
from .models import agrees, predict
from .oracle import score_many

#: Character classes an unexplained divergence may need: (name, test).  (The classes do not
#: overlap, so that one bug about, say, case gets one signature whether its input has "A" or
#: "É"; and "punctuation" is every character that is neither a letter, a digit nor whitespace
#: -- ASCII marks, other symbols, control characters, lone surrogates -- so that one bug about
#: non-word characters, met once on "&", once on U+0000 and once on U+D800, is one finding.)
CLASSES = [
    ("digits", str.isdigit),
    ("punctuation", lambda c: c in ASCII_PUNCTUATION or not c.isalnum() and not c.isspace()),
    ("uppercase", str.isupper),
    ("non-ascii", lambda c: not c.isascii() and c.isalnum() and not c.isupper() and not c.isdigit()),
]


#: Letters a class's characters are replaced by, ASCII first (a long text uses most of those):
#: lowercase, no digit, mark or space, none changed by lowercasing or normalization.
_SPARE = "zyxwvutsrqponmlkjihgfedcba" + "".join(chr(c) for c in range(0x0430, 0x0450)) + \
    "".join(chr(c) for c in range(0x03b1, 0x03ca) if c != 0x03c2)


def _no_ngrams(segments, params) -> bool:
    """No segment has an n-gram on either side under the definition (an empty input): a
    divergence there is its own behaviour, whatever else the implementation gets wrong."""
    from reference_impl import TextProfile

    return all(not any(TextProfile(t, params).totals) for h, rs in segments for t in (h, *rs))


def signature(adapter, level: str, segments, params, tolerance: float, model: tuple = CLAIMED) -> tuple[str, ...]:
    """The character classes an unexplained divergence needs: replacing each distinct
    character of the class by a distinct letter the input does not use (which keeps the
    n-gram structure, so the definition's score is unchanged) makes the implementation
    agree with the fitted ``model`` (the definition and the deviations accepted so far).  A
    bug about digits needs digits on every input; a bug in the arithmetic needs no class; a
    divergence on an input without any n-gram is grouped apart ("no-n-grams").  One batch of
    calls, deterministic."""
    texts = [h for h, _ in segments] + [r for _, rs in segments for r in rs]
    used = set("".join(texts))
    if _no_ngrams(segments, params):
        return (SIGNATURE_PREFIX + "no-n-grams",)
    spare = [c for c in _SPARE if c not in used]
    probes = []
    for name, test in CLASSES:
        if name == "uppercase" and params.lowercase:
            continue
        chars = sorted({c for t in texts for c in t if test(c)})
        if not chars or len(chars) > len(spare):
            continue
        table = str.maketrans(dict(zip(chars, spare)))
        probes.append((name, [(h.translate(table), [r.translate(table) for r in rs]) for h, rs in segments]))
    if not probes:
        return ()
    values = score_many(adapter, level, [p for _, p in probes])
    needed = [name for (name, segs), value in zip(probes, values) if value is not None and _agrees(segs, params, level,
                                                                                                   model, value, adapter.claims.scale, tolerance)]
    if "punctuation" in needed:
        mark = _specific_mark(adapter, level, segments, params, tolerance, model, texts, used)
        if mark is not None:
            return (SIGNATURE_PREFIX + "punctuation:" + mark,)
    return (SIGNATURE_PREFIX + "+".join(needed),) if needed else ()


#: Marks a bug about any mark (or any non-word character) treats like the ones they replace,
#: and a bug about particular sequences (an HTML entity, a tag, a hyphen at a line break) does
#: not.
_OTHER_MARKS = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"
_OTHER_SYMBOLS = "\u00a7\u00a4\u00b6\u00a9\u00ae\u00b0\u00b1\u00b7\u00bf\u00d7\u00f7\u00ac\u00a6"


def _specific_mark(adapter, level, segments, params, tolerance, model, texts, used) -> Optional[str]:
    """For a divergence that needs punctuation: when replacing its marks by other marks of
    their kind (ASCII marks by ASCII marks, other symbols by other symbols) makes it go away
    too, the bug is about particular characters, and the first mark (in the text) whose
    replacement by a letter alone makes it go away names the group ("punctuation:&"); None
    when the other marks keep it (one bug about the whole class)."""
    test = CLASSES[1][1]
    marks = list(dict.fromkeys(c for t in texts for c in t if test(c)))
    ascii_marks = [c for c in _OTHER_MARKS if c not in used]
    symbols = [c for c in _OTHER_SYMBOLS if c not in used]
    spare = [c for c in _SPARE if c not in used]
    table = {}
    for m in marks:  # each mark by an unused one of its kind (the definition splits ASCII marks off words)
        pool = ascii_marks if m in ASCII_PUNCTUATION else symbols
        if not pool:
            return None
        table[m] = pool.pop(0)
    if not marks or not spare:
        return None

    def swapped(table):
        return [(h.translate(table), [r.translate(table) for r in rs]) for h, rs in segments]

    probes = [swapped(str.maketrans(table))] + \
        [swapped(str.maketrans({m: spare[0]})) for m in marks[:8]]
    values = score_many(adapter, level, probes)
    agree = [v is not None and _agrees(p, params, level, model, v, adapter.claims.scale, tolerance)
             for p, v in zip(probes, values)]
    if not agree[0]:
        return None
    return next((m for m, ok in zip(marks, agree[1:]) if ok), None)


def _agrees(segs, params, level, model, value, scale, tolerance) -> bool:
    try:
        return agrees(predict(segs, params, level, model), model[1], value, scale, tolerance)
    except Exception:  # noqa: BLE001 - a model that cannot read this input
        return False
