"""The ``chrf-audit`` command line.

Each subcommand lives in ``audit.commands.<name>`` with a ``register(subparsers)`` that adds
its parser and sets ``func(args) -> int``.  Exit codes (DESIGN.md): 0 no (new) finding,
1 findings, 2 usage, configuration or input error (one line on stderr, no traceback).
"""

from __future__ import annotations

import argparse
import atexit
import importlib
import os
import sys

from .errors import UsageError

COMMANDS = ["run", "impact", "check", "validate_patch", "stats"]


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # argparse's usage errors are exit 2 already; keep them one line
        self.print_usage(sys.stderr)
        print(f"chrf-audit: error: {message}", file=sys.stderr)
        raise SystemExit(2)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="chrf-audit", description=__doc__.splitlines()[0])
    from . import __version__

    parser.add_argument("--version", action="version", version=f"chrf-audit {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in COMMANDS:
        importlib.import_module(f"audit.commands.{name}").register(sub)
    return parser


_hypothesis_home = None


def _private_hypothesis_storage() -> None:
    """Hypothesis caches the constants it mines from source files in ``./.hypothesis``, even
    with ``database=None``: every run left that directory in the user's current directory.
    Unless the user chose a place (HYPOTHESIS_STORAGE_DIRECTORY), it goes into a temporary
    directory removed at exit."""
    global _hypothesis_home
    if _hypothesis_home is not None or os.environ.get("HYPOTHESIS_STORAGE_DIRECTORY"):
        return
    try:
        from hypothesis.configuration import set_hypothesis_home_dir
    except ImportError:  # pragma: no cover - a hypothesis without it: its default applies
        return
    from .processes import scratch

    _hypothesis_home = scratch.make("chrf-audit-hypothesis-")  # a killed run's is removed here
    set_hypothesis_home_dir(_hypothesis_home)
    atexit.register(scratch.release, _hypothesis_home)


def main(argv=None) -> int:
    from .processes import owner as procs

    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    procs.install()  # SIGTERM ends every child process tree and removes temporary directories
    procs.reopen()
    _private_hypothesis_storage()
    try:
        from .settings import limits

        limits.check_environment()  # CHRF_AUDIT_MAX_*: a bad value is an error, not ignored
        return int(args.func(args) or 0)
    except UsageError as exc:
        print(f"chrf-audit: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as exc:  # Ctrl-C or SIGTERM (procs.Terminated)
        procs.stop_all(final=True)
        terminated = isinstance(exc, procs.Terminated)
        print(f"chrf-audit: {'terminated' if terminated else 'interrupted'}", file=sys.stderr)
        return 143 if terminated else 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
