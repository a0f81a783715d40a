"""Where chrf-audit keeps what it builds once and reuses: ``$CHRF_AUDIT_CACHE``, else
``~/.cache/chrf-audit`` (evaluatio's venv under ``stats/``, the release environments and the
last result per package of ``chrf-audit versions`` under ``versions/``).  Never committed."""

from __future__ import annotations

import os
from pathlib import Path


def cache_root() -> Path:
    """The cache directory (not created here)."""
    root = os.environ.get("CHRF_AUDIT_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "chrf-audit")
    return Path(root)


def versions_result(package: str) -> Path:
    """Where ``chrf-audit versions`` keeps its last result about ``package`` (its name in file
    names), and where ``run`` looks for it when no ``--versions-from`` is given."""
    return cache_root() / "versions" / f"{package}.json"
