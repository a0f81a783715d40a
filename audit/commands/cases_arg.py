"""``--cases DIR`` (and ``cases`` in the configuration): a directory the user names must exist;
without one, the curated cases replayed are the same from any directory.

Why here and not in the runner: the runner treats a missing directory as "no curated cases",
which is right for the default (most projects have none) but silently hid a typo in a
directory the user named, or a file given instead of a directory.  So the command line
decides: the default may be missing; a named one must be a directory (or, with
``--save-cases``, a path where one can be created).

The default is the option table's (``audit.settings.options.default_cases``: ``./cases`` when
the current directory has one, else chrf-audit's curated cases).  ``--save-cases`` without
``--cases`` saves into ``./cases`` (never into chrf-audit's own).
"""

from __future__ import annotations

from pathlib import Path

from ..settings import options

#: where ``--save-cases`` writes when no directory is named
SAVED = Path("cases")


def check_cases_arg(args, base: Path = Path(".")) -> None:
    """Validate ``args.cases`` in place; not given (None or the table's computed default)
    becomes the default directory (``options.default_cases(base)``), and
    ``args.save_cases_to`` the directory ``--save-cases`` writes."""
    if not hasattr(args, "cases"):
        return
    given = args.cases is not None and args.cases is not options.DEFAULT_CASES
    explicit = getattr(args, "cases_explicit", given)
    if not given:
        args.cases = options.default_cases(base)
        args.save_cases_to = Path(base) / SAVED
    else:
        args.save_cases_to = Path(args.cases)
    if not explicit:
        return
    path = Path(args.cases)
    if getattr(args, "save_cases", False) and not path.exists():
        return  # created when the first case is saved
    options.OPTIONS["cases"].validate(path, "--cases")
