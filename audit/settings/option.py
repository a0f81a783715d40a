"""One row of the option table (``audit.settings.options``): what an option is, where it is
offered, how a value is converted from text, TOML or a keyword, and the checks the rows use.

A row's ``surfaces`` are the subcommands that offer it as a flag (``run``, ``check``,
``validate-patch``, ``impact``, ``stats``, ``versions``, ``report``) and the other surfaces:
``config`` (a key of ``[tool.chrf-audit]``), ``entry`` (a key of a
``[[tool.chrf-audit.implementations]]`` entry), ``plugin`` (``--chrf-audit-key`` of the pytest
plugin, and the fixture's keyword), ``api`` (a keyword of ``audit.collect.runner.run_audit``).
Where a subcommand (or the API) gives an option another default or needs other words for it
(``--timeout`` bounds a whole corpus's call in ``impact``), the row says so in ``variants``:
the difference is written in the table and named in the help.
"""

from __future__ import annotations

import datetime as _dt
import math
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Optional

from . import limits
from ..errors import UsageError

RUN, CHECK, PATCH, IMPACT, STATS, VERSIONS, REPORT, SURVEY = (
    "run", "check", "validate-patch", "impact", "stats", "versions", "report", "survey")
COMMANDS = (RUN, CHECK, PATCH, IMPACT, STATS, VERSIONS, REPORT, SURVEY)
CLI, CONFIG, ENTRY, PLUGIN, API = "cli", "config", "entry", "plugin", "api"  # CLI: any subcommand


def kind_name(v: Any) -> str:
    return {bool: "a boolean", int: "an integer", float: "a number", str: "a string",
            list: "an array", dict: "a table"}.get(type(v), type(v).__name__)


# -- checks: (value, label) -> value, UsageError naming the label ------------------------------

def any_value(value, label):
    return value


def integer(value, label):
    if isinstance(value, bool) or not isinstance(value, int):
        raise UsageError(f"{label} must be an integer, got {value!r}")
    return value


def examples(value, label):
    return limits.check_examples(value, label)


def resamples(value, label):
    return limits.check_resamples(value, label)


def tolerance(value, label):
    return limits.check_tolerance(value, label)


def timeout(value, label):
    return limits.check_timeout(value, label)


def profile_name(value, label):
    if not isinstance(value, str) or not value.strip():
        raise UsageError(f"{label} must be a profile name, got {value!r}")
    return value


def directory(value, label):
    path = Path(value)
    if path.is_dir():
        return path
    if path.exists():
        raise UsageError(f"{label} {path}: not a directory (expected a directory of regression cases)")
    raise UsageError(f"{label} {path}: no such directory")


def at_least(low: int):
    def check(value, label):
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise UsageError(f"{label} must be an integer >= {low}, got {value!r}")
        return value
    return check


def between(low, high):
    def check(value, label):
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise UsageError(f"{label} must be between {low} and {high}, got {value!r}")
        return value
    return check


def probability(value, label):
    """A significance level: strictly between 0 and 1."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < 1:
        raise UsageError(f"{label} must be between 0 and 1, got {value!r}")
    return value


def non_empty(what: str):
    def check(value, label):
        if not isinstance(value, str) or not value.strip():
            raise UsageError(f"{label} needs a non-empty {what}, got {value!r}")
        return value
    return check


def one_line(what: str):
    """A non-empty text shown in titles, headings, terminal lines and file names (``--name``):
    printable characters only, so no newline, tab, ESC or other control or format character
    (U+202E) can break the line it is shown on."""
    empty = non_empty(what)

    def check(value, label):
        empty(value, label)
        if not value.isprintable():
            raise UsageError(f"{label} must be one line of printable characters (no newline, tab or control "
                             f"character), got {value!r}")
        return value
    return check


def iso_date(value, label):
    try:
        _dt.date.fromisoformat(str(value))
    except ValueError:
        raise UsageError(f"{label}: {value!r} is not an ISO date (YYYY-MM-DD)") from None
    return value


def names_in(known: tuple, what: str):
    """A comma list of names from ``known`` (``-`` read as ``_``), given back canonical."""
    def check(value, label):
        names = parse_names(value)
        unknown = sorted(set(names) - set(known))
        if unknown or not names:
            raise UsageError(f"{label}: unknown {what} {', '.join(unknown) or repr(value)} "
                             f"(choose from {', '.join(known)})")
        return ",".join(names)
    return check


def parse_names(value) -> list[str]:
    """``"char-order, beta"`` (or an iterable of names) -> ``["char_order", "beta"]``."""
    items = value.split(",") if isinstance(value, str) else list(value)
    return [str(a).strip().replace("-", "_") for a in items if str(a).strip()]


def order(name: str, low: int = 0):
    def check(value, label):
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise UsageError(f"{label} must be an integer >= {low}, got {value!r}")
        limits.check_claims({name: value}, "")
        return value
    return check


def positive_number(value, label):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise UsageError(f"{label} must be > 0, got {value!r}")
    return value


def one_of(values):
    def check(value, label):
        if value not in values:
            raise UsageError(f"{label} must be {' or '.join(map(str, values))}, got {value!r}")
        return value
    return check


class Computed:
    """A default worked out where it is used (the replayed cases: ``./cases`` when it exists);
    ``describe`` is what the help and ``repr`` say."""

    def __init__(self, describe: str):
        self.describe = describe

    def __repr__(self) -> str:
        return f"<{self.describe}>"


@dataclass(frozen=True)
class Option:
    name: str  # the table's key: the Python name (argparse dest, keyword) unless ``dest`` says otherwise
    kind: type  # int, float, str, bool, Path, or list (a repeatable flag, a list of strings)
    default: Any  # None: not set (the help says what applies); a Computed: worked out where used
    help: str
    surfaces: frozenset  # subcommands offering it as a flag, CONFIG, ENTRY, PLUGIN
    check: Callable[[Any, str], Any] = any_value
    metavar: Optional[str] = None
    choices: Optional[tuple] = None
    group: str = ""  # the group of the --help it is listed in (options.GROUPS)
    dest: Optional[str] = None  # the attribute, when two rows share a flag (stats' --accepts)
    flag_key: Optional[str] = None  # the flag, when not the attribute's name (--from)
    required: bool = False
    variants: tuple = ()  # ((subcommand, {field: value}), ...): what differs there

    @property
    def attr(self) -> str:
        """The argparse dest and keyword: max_examples."""
        return self.dest or self.name

    @property
    def key(self) -> str:
        """The name in TOML and in flags: max-examples."""
        return self.flag_key or self.attr.replace("_", "-")

    @property
    def flag(self) -> str:
        return f"--{self.key}"

    @property
    def plugin_flag(self) -> str:
        return f"--chrf-audit-{self.key}"

    @property
    def commands(self) -> tuple:
        return tuple(c for c in COMMANDS if c in self.surfaces)

    def on(self, command: str) -> "Option":
        """This option as ``command`` offers it (its variant there, if any)."""
        for cmd, changes in self.variants:
            if cmd == command:
                return replace(self, variants=(), **changes)
        return self

    def validate(self, value, label: Optional[str] = None):
        """``value`` (already of ``kind``) checked; None (not set) and a computed default stay."""
        if value is None or isinstance(value, Computed):
            return value
        if self.kind is list:
            return [self.check(v, label or self.flag) for v in value]
        return self.check(value, label or self.flag)

    def parse(self, text: str, label: Optional[str] = None):
        """A value given as text (a pytest option), converted to ``kind`` and checked."""
        label = label or self.flag
        try:
            if self.kind is bool:
                low = text.strip().lower()
                if low not in ("true", "false", "1", "0", "yes", "no"):
                    raise ValueError(text)
                value = low in ("true", "1", "yes")
            else:
                value = self.kind(text)
        except (TypeError, ValueError, OverflowError):
            raise UsageError(f"{label} must be {kind_name(self.kind())}, got {text!r}") from None
        return self.validate(value, label)

    def from_toml(self, value, where: str, base: Path = Path(".")):
        """A TOML value of ``[tool.chrf-audit]`` (``where``: its file and table), type-checked,
        paths made relative to the configuration file, and checked."""
        label = f"{where}: {self.key}"
        if self.kind is bool:
            if not isinstance(value, bool):
                raise UsageError(f"{label} must be true or false, got {kind_name(value)} ({value!r})")
        elif self.kind is int:
            if isinstance(value, bool) or not isinstance(value, int):
                raise UsageError(f"{label} must be an integer, got {kind_name(value)} ({value!r})")
        elif self.kind is float:
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise UsageError(f"{label} must be a number, got {kind_name(value)} ({value!r})")
        elif not isinstance(value, str) or not value.strip():
            raise UsageError(f"{label} must be a non-empty string, got {kind_name(value)} ({value!r})")
        else:
            value = value.strip()
            if self.kind is Path:
                value = base / value
        return self.validate(value, label)

    def argparse_keywords(self) -> dict:
        """``add_argument``'s keywords for this row (as ``on(command)`` gave it)."""
        kw: dict = dict(dest=self.attr, help=self.help, default=self.default)
        if self.kind is bool:
            kw["action"] = "store_false" if self.default is True else "store_true"
        elif self.kind is list:
            kw.update(action="append", default=[], metavar=self.metavar)
        else:
            kw.update(type=_converter(self), metavar=self.metavar)
        if self.choices:
            kw["choices"] = list(self.choices)
        if self.required:
            kw["required"] = True
        return kw

    @property
    def flag_text(self) -> str:
        """The flag as typed: ``--no-impl-tests`` for a switch that is on by default."""
        return f"--no-{self.key}" if self.kind is bool and self.default is True and not self.flag_key else self.flag


def _converter(o: Option):
    """argparse's ``type=``: the text as ``o.kind``, refused in the table's words."""
    import argparse

    def convert(text: str):
        try:
            return o.kind(text)
        except (TypeError, ValueError, OverflowError):
            raise argparse.ArgumentTypeError(f"must be {kind_name(o.kind())}, got {text!r}") from None

    convert.__name__ = o.kind.__name__
    return convert
