"""Reading what a cache holds: with the bounds of a file from outside (a regular file only, no
symbolic link followed, at most ``most`` bytes, ASCII JSON without NaN nested at most ``depth``
levels).  Anything else is None -- a miss, recomputed -- never an error: a cache only speeds
things up (docs/limits.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Optional


def _refuse(constant: str):
    raise ValueError(f"{constant} is not JSON")


def read_entry(path: Path, what: str, *, most: int, depth: int) -> Optional[Any]:
    """The JSON value of the entry at ``path`` (``what`` it is, for the reader's messages), or
    None when it is not a bounded, well-formed entry."""
    from ..errors import UsageError
    from .jsontext import nested_deeper
    from .textfiles import read_bytes

    try:
        data = read_bytes(path, what, follow_link=False, most=most)
        doc = json.loads(data.decode("ascii"), parse_constant=_refuse)
    except (UsageError, UnicodeDecodeError, ValueError, RecursionError):
        return None
    return None if nested_deeper(doc, depth) else doc
