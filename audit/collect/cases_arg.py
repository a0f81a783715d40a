"""``--cases DIR`` (and ``cases`` in the configuration): a directory the user names must exist.

Why here and not in the runner: the runner treats a missing directory as "no curated cases",
which is right for the default ``cases/`` (most projects have none) but silently hid a typo in
a directory the user named, or a file given instead of a directory.  So the CLI decides:
the default may be missing; a named one must be a directory (or, with ``--save-cases``, a
path where one can be created).
"""

from __future__ import annotations

from pathlib import Path

from ..settings import options

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
    if getattr(args, "save_cases", False) and not path.exists():
        return  # created when the first case is saved
    options.OPTIONS["cases"].validate(path, "--cases")
