"""A suggested patch's verification kept between runs, under ``$CHRF_AUDIT_CACHE/verify/``.

A verification is a pure function of what it is given and of the code that runs it: the
diff, the family, the audit's findings, chrf-audit's own source and packaged cases, the
installed library's files (its ``RECORD``: every file with its hash), Hypothesis, pytest
(the library's doctests) and the interpreter.  The key is a hash of all of them, so the same
verification is never computed twice on the same machine, and anything that could change its
verdict computes it again.  A library without a ``RECORD`` (a source checkout) is never
cached.  A cache file that cannot be read is a miss, never an error.
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


def cached(implementation: str, family: str, diff: str, before_findings: list[dict],
           compute: Callable[[], dict]) -> dict:
    """The verification's result from the cache, else ``compute()`` (kept for next time)."""
    k = key(implementation, family, diff, before_findings)
    if k is None:
        return compute()
    path = _path(k)
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(found, dict) and found.get("key") == k and isinstance(found.get("result"), dict):
            return found["result"]
    except (OSError, ValueError):
        pass
    result = compute()
    try:  # the same JSON values whether computed now or read back
        text = json.dumps({"key": k, "result": result}, sort_keys=True)
    except (TypeError, ValueError):
        return result
    result = json.loads(text)["result"]
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".verify-")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except OSError:  # a full disk or a read-only cache: not kept
        pass
    return result
