"""The small edits that make input pairs: a character inserted, the case changed, a reference
dropped or moved, text renamed into another script; and which text field each edit tests."""

from __future__ import annotations

import re
import unicodedata
from typing import Callable, Optional

_WS = ["\x1c", "\x1f", "\t", "\n", "\x0b", "\x85", "\xa0", "\u2003", "\u3000", " "]
_FORMAT = ["\ufeff", "\u200c", "\u200e"]
_PUNCT = re.compile(r"([!-/:-@\[-`{-~])")
_RENAMES = {
    "ascii": "qrstuvwxyz",
    "two-byte": "\xe9\xe8\xfc\u0436\u0444\u0449\u03b1\u03b2\u03b3\u03b4",
    "three-byte": "\u4e2d\u6587\u5b57\u6f22\u65e5\u672c\u8a9e\ud55c\uad6d\uc5b4",
    "non-bmp": "\U0001F600\U0001F601\U0001F642\U00010400\U00020000\U0001D400\U0001F44D\U0001F680\U0001F431\U0001F436",
}



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

