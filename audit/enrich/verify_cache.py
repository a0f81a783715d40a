"""A suggested patch's verification kept between runs, under ``$CHRF_AUDIT_CACHE/verify/``.

A verification is a pure function of what it is given and of the code that runs it: the
diff, the family, the audit's findings, chrf-audit's own source and packaged cases, the
installed library's files (its ``RECORD``: every file with its hash), Hypothesis, pytest
(the library's doctests) and the interpreter.  The key is a hash of all of them, so the same
verification is never computed twice on the same machine, and anything that could change its
verdict computes it again.  A library without a ``RECORD`` (a source checkout) is never
cached.

The cache is an accelerator, never an authority (docs/limits.md: who may write it, what a
planted entry can change).  An entry is read as any file from outside is: a regular file
only, through no symbolic link, at most ``ENTRY_BYTES``, ASCII JSON nested at most
``ENTRY_DEPTH`` deep, with exactly the fields ``{"key", "chrf_audit", "result"}``: the key it
is stored under, this chrf-audit's version, and a result the caller's ``accept``
(``audit.patches.summary_shape.valid``) takes.  Anything else is a miss, computed again,
never an error.  A result read from the cache says so: ``from_cache: {"chrf_audit": VERSION}``
(the reports show it).
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
from functools import lru_cache
from pathlib import Path
from typing import Callable, Optional

from ..settings.cache import cache_root

_PACKAGE = Path(__file__).resolve().parents[2]


@lru_cache(maxsize=1)
def _own_fingerprint() -> str:
    """chrf-audit's sources (``audit/``, ``reference_impl/``) and the curated cases a
    verification replays."""
    from ..settings.options import packaged_cases

    h = hashlib.sha256()
    cases = packaged_cases()
    for root in (_PACKAGE / "audit", _PACKAGE / "reference_impl", *([cases] if cases else [])):
        for path in sorted(p for p in root.rglob("*") if p.is_file() and p.suffix in (".py", ".json")):
            h.update(f"{root.name}/{path.relative_to(root)}".encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def _distribution_record(name: str) -> Optional[str]:
    from importlib import metadata

    try:
        return metadata.distribution(name).read_text("RECORD")
    except Exception:  # not installed, no metadata
        return None


def key(implementation: str, family: str, diff: str, before_findings: list[dict]) -> Optional[str]:
    """The verification's cache key, or None when it cannot be cached (an implementation
    that is no installed library with a RECORD)."""
    from ..upstream.registry import builtin

    found = builtin(implementation)
    record = _distribution_record(found[0].distribution) if found else None
    if record is None:
        return None
    tools = {name: _distribution_record(name) for name in ("hypothesis", "pytest")}
    payload = json.dumps({"implementation": implementation, "family": family, "diff": diff,
                          "findings": before_findings, "own": _own_fingerprint(), "library": record,
                          "tools": tools, "python": sys.version},
                         sort_keys=True, default=str)
    return hashlib.sha256(payload.encode()).hexdigest()


def _path(k: str) -> Path:
    return cache_root() / "verify" / f"{k}.json"


#: the most bytes an entry may hold (a verification's summary is a few kilobytes)
ENTRY_BYTES = 1 << 20
#: how deep an entry's JSON may nest (a summary's corpus repro nests 7 levels)
ENTRY_DEPTH = 10


def _read(path: Path, k: str) -> Optional[dict]:
    """The result an entry holds when it is a well-formed entry of key ``k`` written by this
    chrf-audit, else None (whatever the file is)."""
    from .. import __version__
    from ..files.cache_entry import read_entry

    doc = read_entry(path, "a verification cache entry", most=ENTRY_BYTES, depth=ENTRY_DEPTH)
    if not isinstance(doc, dict) or set(doc) != {"key", "chrf_audit", "result"}:
        return None
    return doc["result"] if doc["key"] == k and doc["chrf_audit"] == __version__ else None


def _write(path: Path, k: str, result: dict) -> None:
    """Keep ``result`` under key ``k`` (atomically; not kept when the disk is full, the cache
    read-only, or the entry larger than an entry may be)."""
    from .. import __version__

    text = json.dumps({"key": k, "chrf_audit": __version__, "result": result}, sort_keys=True, allow_nan=False)
    if len(text) > ENTRY_BYTES:
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".verify-")
        with os.fdopen(fd, "w", encoding="ascii") as f:
            f.write(text)
        os.replace(tmp, path)
    except OSError:
        pass


def cached(implementation: str, family: str, diff: str, before_findings: list[dict],
           compute: Callable[[], dict], accept: Callable[[dict], bool]) -> dict:
    """The verification's result from the cache when its entry is one (see the module doc)
    whose result ``accept`` takes, marked ``from_cache``; else ``compute()``, kept for next
    time when ``accept`` takes it (the same JSON values, in the same order, whether computed now
    or read back: the reports differ only by ``from_cache``)."""
    from .. import __version__
    from ..files.jsontext import finite

    k = key(implementation, family, diff, before_findings)
    if k is None:
        return compute()
    path = _path(k)
    found = _read(path, k)
    if found is not None and accept(found):
        return {**found, "from_cache": {"chrf_audit": __version__}}
    result = compute()
    try:
        result = json.loads(json.dumps(finite(result), allow_nan=False, sort_keys=True))
    except (TypeError, ValueError):
        return result
    if accept(result):
        _write(path, k, result)
    return result
