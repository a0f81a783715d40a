"""``--cases DIR`` (and ``cases`` in the configuration): a directory the user names must exist;
without one, the curated cases replayed are the same from any directory.

Why here and not in the runner: the runner treats a missing directory as "no curated cases",
which is right for the default (most projects have none) but silently hid a typo in a
directory the user named, or a file given instead of a directory.  So the CLI decides:
the default may be missing; a named one must be a directory (or, with ``--save-cases``, a
path where one can be created).

The default: ``./cases`` when the current directory has one (the project's own curated
cases), else chrf-audit's (``audit.collect.cases.default_cases_dir``: the checkout's
``cases/``, or the copy a wheel installs), as the pytest plugin and ``validate-patch`` replay.
It used to be ``./cases`` or nothing, so the README's first command printed other fit counts
and another family order from the clone root (where ``./cases`` is chrf-audit's) than from
any other directory.  ``--save-cases`` without ``--cases`` saves into ``./cases`` (never into
chrf-audit's own).
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from ..settings import options

DEFAULT = Path("cases")


def default_replayed() -> Optional[Path]:
    """The cases replayed when no directory is named (see the module docstring)."""
    from .cases import default_cases_dir

    return DEFAULT if DEFAULT.is_dir() else default_cases_dir()


def check_cases_arg(args) -> None:
    """Validate ``args.cases`` in place; None (not given) becomes the default
    (``default_replayed``), and ``args.save_cases_to`` the directory ``--save-cases`` writes."""
    if not hasattr(args, "cases"):
        return
    explicit = getattr(args, "cases_explicit", args.cases is not None)
    if args.cases is None:
        args.cases = default_replayed()
        args.save_cases_to = DEFAULT
    else:
        args.save_cases_to = Path(args.cases)
    if not explicit:
        return
    path = Path(args.cases)
    if getattr(args, "save_cases", False) and not path.exists():
        return  # created when the first case is saved
    options.OPTIONS["cases"].validate(path, "--cases")
