"""The ``chrf-audit`` command line.

Each subcommand lives in ``audit.commands.<name>`` with a ``register(subparsers)`` that adds
its parser and sets ``func(args) -> int``.  Exit codes (DESIGN.md): 0 no (new) finding,
1 findings, 2 usage, configuration or input error (one line on stderr, no traceback).
"""

from __future__ import annotations

import argparse
import importlib
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


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except UsageError as exc:
        print(f"chrf-audit: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("chrf-audit: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
