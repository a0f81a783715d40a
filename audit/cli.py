"""The ``chrf-audit`` command line.

Each subcommand lives in ``audit.commands.<name>`` with a ``register(subparsers)`` that adds
its parser and sets ``func(args) -> int``.  Exit codes (docs/ci.md): 0 no (new) finding,
1 findings, 2 usage, configuration or input error (one line on stderr, no traceback).
"""

from __future__ import annotations

import argparse
import importlib
import re
import sys
import textwrap

from .errors import UsageError

COMMANDS = ["run", "impact", "check", "validate_patch", "stats", "report", "versions", "survey"]


class HelpFormatter(argparse.HelpFormatter):
    """Help wrapped to the terminal by argparse (``COLUMNS`` or the terminal's width), however
    the text is laid out in the source: a description's paragraphs (separated by blank
    lines) are refilled, an indented ``--flag  text`` list keeps its hanging indent, and
    the double backticks of docstrings (which serve as descriptions) are dropped."""

    _ITEM = re.compile(r"^(\s+)(\S+(?: \S+)?)(\s{2,})(\S.*)$")

    def _fill_text(self, text, width, indent):
        text = text.replace("``", "")
        width = max(width, 20)
        paragraphs = []
        for para in re.split(r"\n[ \t]*\n", text.strip("\n")):
            blocks: list[tuple[bool, list[str]]] = []  # (an item list?, lines)
            for line in para.splitlines():
                item = line[:1].isspace() and (self._ITEM.match(line) or (blocks and blocks[-1][0]))
                if not blocks or blocks[-1][0] != bool(item):
                    blocks.append((bool(item), []))
                blocks[-1][1].append(line)
            paragraphs.append("\n".join(self._fill_items(lines, width, indent) if items else
                                        self._fill(" ".join(" ".join(lines).split()), width, indent, indent)
                                        for items, lines in blocks))
        return "\n\n".join(paragraphs)

    @staticmethod
    def _fill(text: str, width: int, first: str, rest: str) -> str:
        return textwrap.fill(text, width, initial_indent=first, subsequent_indent=rest,
                             break_on_hyphens=False)

    def _fill_items(self, lines: list[str], width: int, indent: str) -> str:
        """``  --flag    text`` items (continuation lines indented further) with the text
        wrapped under its column; below the item when that column is past half the width."""
        items: list[list[str]] = []
        for line in lines:
            m = self._ITEM.match(line)
            if m and len(m.group(1)) == len(self._ITEM.match(lines[0]).group(1)):
                items.append([m.group(1), m.group(2), m.group(1) + m.group(2) + m.group(3), m.group(4)])
            elif items:
                items[-1][3] += " " + line.strip()
            else:
                items.append(["", "", "", line.strip()])
        out = []
        for lead, name, column, body in items:
            hang = " " * len(indent + column)
            if len(hang) > width // 2:
                out.append(indent + lead + name)
                hang = " " * len(indent + lead + "    ")
                out.append(self._fill(body, width, hang, hang))
            else:
                out.append(self._fill(body, width, indent + column, hang))
        return "\n".join(out)


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message):  # argparse's usage errors are exit 2 already; keep them one line
        self.print_usage(sys.stderr)
        print(f"chrf-audit: error: {_stderr_line(message)}", file=sys.stderr)
        raise SystemExit(2)


def _stderr_line(message) -> str:
    """An error message as stderr shows it: one line, no control character (it may quote a
    file, an argument, a program's stderr or a service's answer)."""
    from .render._text import terminal_line

    return terminal_line(message)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="chrf-audit", description=__doc__.splitlines()[0])
    from . import __version__

    parser.add_argument("--version", action="version", version=f"chrf-audit {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in COMMANDS:
        importlib.import_module(f"audit.commands.{name}").register(sub)
    return parser


def main(argv=None) -> int:
    from .processes import owner as procs

    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    from .files.outputs import guard_std_streams

    guard_std_streams()  # a closed stdout (``>&-``): no file of ours gets its descriptor
    procs.install()  # SIGTERM ends every child process tree and removes temporary directories
    procs.reopen()
    try:
        from .settings import limits
        from .settings.hypothesis_profiles import private_storage

        limits.check_environment()  # CHRF_AUDIT_MAX_*: a bad value is an error, not ignored
        with private_storage():  # Hypothesis's one home: no ./.hypothesis in the user's directory
            return int(args.func(args) or 0)
    except UsageError as exc:
        print(f"chrf-audit: error: {_stderr_line(exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as exc:  # Ctrl-C or SIGTERM (procs.Terminated)
        procs.stop_all(final=True)
        terminated = isinstance(exc, procs.Terminated)
        print(f"chrf-audit: {'terminated' if terminated else 'interrupted'}", file=sys.stderr)
        return 143 if terminated else 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
