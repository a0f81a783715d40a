"""``--cases DIR`` (and ``cases`` in the configuration): a directory the user names must exist.

Why here and not in the runner: the runner treats a missing directory as "no curated cases",
which is right for the default ``cases/`` (most projects have none) but silently hid a typo in
a directory the user named, or a file given instead of a directory.  So the CLI decides:
the default may be missing; a named one must be a directory (or, with ``--save-cases``, a
path where one can be created).
"""

from __future__ import annotations

from pathlib import Path

from .errors import UsageError

DEFAULT = Path("cases")


def check_cases_arg(args) -> None:
    """Validate ``args.cases`` in place; None (not given) becomes the default ``cases``."""
    if not hasattr(args, "cases"):
        return
    explicit = getattr(args, "cases_explicit", args.cases is not None)
    if args.cases is None:
        args.cases = DEFAULT
    if not explicit:
        return
    path = Path(args.cases)
    if path.is_dir():
        return
    if path.exists():
        raise UsageError(f"--cases {path}: not a directory (expected a directory of regression cases)")
    if getattr(args, "save_cases", False):
        return  # created when the first case is saved
    raise UsageError(f"--cases {path}: no such directory")
