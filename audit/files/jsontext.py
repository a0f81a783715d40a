r"""The one serialiser of every JSON file chrf-audit writes: audit.json, ``validate-patch
--json``, ``impact --json``, stats.json, baselines, saved cases, report manifests.

Why one, and why ASCII: the search feeds implementations every string a Python ``str`` can
hold, lone surrogates (U+D800..U+DFFF, what ``surrogateescape`` makes of undecodable bytes),
NUL and the C0/C1 controls included, and a repro must reach the report as exactly that
string.  UTF-8 cannot encode a lone surrogate (``json.dumps(..., ensure_ascii=False)`` then
fails on writing, after the audit), and replacing it would make the repro a different input.
With ``ensure_ascii=True`` every non-ASCII code point is written as a ``\uXXXX`` escape: the
file is plain ASCII, valid UTF-8 whatever it holds, free of raw control characters, and any
JSON reader gives back the very string the implementation was given, so the stable schema's
``repro`` stays a repro.  The one thing JSON cannot tell apart: a high surrogate directly
followed by a low one reads back as the single character that pair encodes.

Files people edit by hand (the baseline: its reasons are prose) are written ``readable``:
printable non-ASCII characters stay as they are, everything invisible or unencodable (controls,
surrogates, separators, NBSP ...) is escaped all the same.

Non-finite floats are not JSON (``NaN`` would make the file unreadable to strict readers):
they are written as ``null``.
"""

from __future__ import annotations

import json
import math
from typing import Any, Optional


def finite(x: Any) -> Any:
    """JSON-safe numbers: non-finite floats become None, recursively (tuples become lists)."""
    if isinstance(x, float):
        return x if math.isfinite(x) else None
    if isinstance(x, dict):
        return {k: finite(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [finite(v) for v in x]
    return x


def _u(ch: str) -> str:
    cp = ord(ch)
    if cp <= 0xFFFF:
        return f"\\u{cp:04x}"
    cp -= 0x10000  # JSON escapes are UTF-16 code units: a pair
    return f"\\u{0xD800 + (cp >> 10):04x}\\u{0xDC00 + (cp & 0x3FF):04x}"


def dumps(doc: Any, *, indent: Optional[int] = 2, sort_keys: bool = False, readable: bool = False) -> str:
    """``doc`` as JSON text ending in a newline, non-finite numbers as null: ASCII only, or
    (``readable``) printable characters as themselves and every other one escaped."""
    text = json.dumps(finite(doc), indent=indent, ensure_ascii=not readable, allow_nan=False, sort_keys=sort_keys)
    if readable and not text.isprintable():
        # outside strings the text holds only printable ASCII and the newlines of ``indent``
        text = "".join(ch if ch.isprintable() or ch == "\n" else _u(ch) for ch in text)
    return text + "\n"


def nested_deeper(doc: Any, most: int) -> bool:
    """Whether the parsed JSON ``doc`` nests arrays and objects deeper than ``most`` levels
    (level by level, no recursion: a document too deep for Python's stack is measured all the
    same; ~0.7 ms for a 256-segment answer of a scoring service)."""
    level = [doc] if type(doc) is list or type(doc) is dict else []
    depth = 0
    while level:
        depth += 1
        if depth > most:
            return True
        nxt: list = []
        for v in level:
            nxt += [x for x in (v.values() if type(v) is dict else v) if type(x) is list or type(x) is dict]
        level = nxt
    return False
