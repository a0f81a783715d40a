"""Where chrf-audit keeps what it builds once and reuses: ``$CHRF_AUDIT_CACHE``, else
``~/.cache/chrf-audit`` (evaluatio's venv under ``stats/``, the release environments under
``versions/``, the patch verifications under ``verify/``, the tools of a library's gates under
``gates/``).  Never committed, and never what a
report's facts depend on: a verification read from it says so, and versions results are the
project's (``audit.enrich.versions``)."""

from __future__ import annotations

import os
from pathlib import Path


def cache_root() -> Path:
    """The cache directory (not created here)."""
    root = os.environ.get("CHRF_AUDIT_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "chrf-audit")
    return Path(root)

