"""The one table of chrf-audit's settings: name, type, default, validation and help of every
option that can be given on the command line, in ``[tool.chrf-audit]`` or to the pytest plugin.

Why one table: each surface used to declare its options itself, and they drifted.  The budget
of 100 examples was written in four places; the pytest plugin took ``--chrf-audit-timeout=inf``
(an OverflowError deep in ``select``), ``--chrf-audit-max-examples=-5`` (Hypothesis's
InvalidArgument), ``--chrf-audit-tolerance=nan`` (a false finding on a correct
implementation) and ``--chrf-audit-cases=/nonexistent`` (silently nothing) that the CLI
refuses.  Here every option is declared once; ``commands/`` build their flags from it,
``config`` its keys and ``pytest_plugin`` its options, and all of them validate a value with
the same ``check``: a bad value is the same one-line error (exit 2) everywhere.

Surfaces (``Option.surfaces``): ``cli`` (a ``--key`` flag), ``config`` (a key of
``[tool.chrf-audit]``), ``entry`` (a key of a ``[[tool.chrf-audit.implementations]]`` entry),
``plugin`` (``--chrf-audit-key`` of the pytest plugin, and the fixture's keyword).  A default
of None means "not set": what applies then is said in the help (the profile's budget, the
project's ``cases/``).  Resource bounds (how large a timeout or an order may be) are in
``audit.settings.limits``; the option table calls them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional

from . import limits
from ..errors import UsageError

CLI, CONFIG, ENTRY, PLUGIN = "cli", "config", "entry", "plugin"

#: The search budget (inputs per implementation and level) of chrf-audit's Hypothesis profiles
#: (audit.settings.hypothesis_profiles; the default profile is the first): the one place they are written.
PROFILE_BUDGETS = {"chrf-audit": 100, "chrf-audit-ci": 300, "chrf-audit-dev": 25}
BUDGET = PROFILE_BUDGETS["chrf-audit"]
DEFINITIONS = ("sacrebleu", "sacrebleu-eps", "chrfpp")


def _kind_name(v: Any) -> str:
    return {bool: "a boolean", int: "an integer", float: "a number", str: "a string",
            list: "an array", dict: "a table"}.get(type(v), type(v).__name__)


# -- checks: (value, label) -> value, UsageError naming the label ------------------------------

def _any(value, label):
    return value


def _seed(value, label):
    if isinstance(value, bool) or not isinstance(value, int):
        raise UsageError(f"{label} must be an integer, got {value!r}")
    return value


def _examples(value, label):
    return limits.check_examples(value, label)


def _tolerance(value, label):
    return limits.check_tolerance(value, label)


def _timeout(value, label):
    return limits.check_timeout(value, label)


def _profile(value, label):
    if not isinstance(value, str) or not value.strip():
        raise UsageError(f"{label} must be a profile name, got {value!r}")
    return value


def _cases(value, label):
    path = Path(value)
    if path.is_dir():
        return path
    if path.exists():
        raise UsageError(f"{label} {path}: not a directory (expected a directory of regression cases)")
    raise UsageError(f"{label} {path}: no such directory")


def _positive_int(value, label):
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise UsageError(f"{label} must be an integer >= 1, got {value!r}")
    return value


def _range(low, high):
    def check(value, label):
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise UsageError(f"{label} must be between {low} and {high}, got {value!r}")
        return value
    return check


#: Claims a Python callable may take as keyword arguments (``definition`` and ``scale`` say
#: what it is; they are not parameters of one call).
ACCEPTABLE = ("char_order", "word_order", "beta", "lowercase", "whitespace")


def _accepts(value, label):
    names = [a.strip().replace("-", "_") for a in str(value).split(",") if a.strip()]
    unknown = sorted(set(names) - set(ACCEPTABLE))
    if unknown or not names:
        raise UsageError(f"{label}: unknown parameter {', '.join(unknown) or repr(value)} "
                         f"(choose from {', '.join(ACCEPTABLE)})")
    return ",".join(names)


def _order(name, low=0):
    def check(value, label):
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise UsageError(f"{label} must be an integer >= {low}, got {value!r}")
        limits.check_claims({name: value}, "")
        return value
    return check


def _beta(value, label):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise UsageError(f"{label} must be > 0, got {value!r}")
    return value


def _choice(values):
    def check(value, label):
        if value not in values:
            raise UsageError(f"{label} must be {' or '.join(map(str, values))}, got {value!r}")
        return value
    return check


@dataclass(frozen=True)
class Option:
    name: str  # the Python name (argparse dest, keyword): max_examples
    kind: type  # int, float, str, bool or Path: the type of its value
    default: Any  # None: not set (the help says what applies)
    help: str
    surfaces: frozenset
    check: Callable[[Any, str], Any] = _any
    metavar: Optional[str] = None
    choices: Optional[tuple] = None

    @property
    def key(self) -> str:
        """The name in TOML and in flags: max-examples."""
        return self.name.replace("_", "-")

    @property
    def flag(self) -> str:
        return f"--{self.key}"

    @property
    def plugin_flag(self) -> str:
        return f"--chrf-audit-{self.key}"

    def validate(self, value, label: Optional[str] = None):
        """``value`` (already of ``kind``) checked; None stays None (not set)."""
        return None if value is None else self.check(value, label or self.flag)

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
            raise UsageError(f"{label} must be {_kind_name(self.kind())}, got {text!r}") from None
        return self.validate(value, label)

    def from_toml(self, value, where: str, base: Path = Path(".")):
        """A TOML value of ``[tool.chrf-audit]`` (``where``: its file and table), type-checked,
        paths made relative to the configuration file, and checked."""
        label = f"{where}: {self.key}"
        if self.kind is bool:
            if not isinstance(value, bool):
                raise UsageError(f"{label} must be true or false, got {_kind_name(value)} ({value!r})")
        elif self.kind is int:
            if isinstance(value, bool) or not isinstance(value, int):
                raise UsageError(f"{label} must be an integer, got {_kind_name(value)} ({value!r})")
        elif self.kind is float:
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise UsageError(f"{label} must be a number, got {_kind_name(value)} ({value!r})")
        elif not isinstance(value, str) or not value.strip():
            raise UsageError(f"{label} must be a non-empty string, got {_kind_name(value)} ({value!r})")
        else:
            value = value.strip()
            if self.kind is Path:
                value = base / value
        return self.validate(value, label)


def _opt(name, kind, default, help, surfaces, check=_any, metavar=None, choices=None) -> Option:
    return Option(name, kind, default, help, frozenset(surfaces), check, metavar, choices)


_SEARCH = (CLI, CONFIG, PLUGIN)
_TABLE = (
    # -- the search (run, check, validate-patch; [tool.chrf-audit]; the pytest plugin) ---------
    _opt("seed", int, 0, "search seed (default 0): the same seed gives the same inputs and findings, another "
         "seed other inputs", _SEARCH, _seed, "N"),
    _opt("max_examples", int, None, "Hypothesis examples per level and implementation (default: the Hypothesis "
         f"profile's max_examples, {BUDGET} for chrf-audit)", _SEARCH, _examples, "N"),
    _opt("hypothesis_profile", str, None, "Hypothesis settings profile: chrf-audit (default; "
         f"{PROFILE_BUDGETS['chrf-audit']} examples), chrf-audit-ci ({PROFILE_BUDGETS['chrf-audit-ci']} examples), "
         f"chrf-audit-dev ({PROFILE_BUDGETS['chrf-audit-dev']} examples, prints every input tried), or one registered "
         "with hypothesis.settings.register_profile; see docs/hypothesis.md", _SEARCH, _profile, "NAME"),
    _opt("tolerance", float, 1e-9, "absolute tolerance on the 0..100 scale (default 1e-9)", _SEARCH, _tolerance, "X"),
    _opt("timeout", float, 5.0, "per-call timeout in seconds (default 5)", _SEARCH + (ENTRY,), _timeout, "SECONDS"),
    _opt("cases", Path, None, "regression cases replayed first (default: cases/ when it exists, else "
         "chrf-audit's curated cases, also for the pytest plugin; a named DIR must exist)", _SEARCH, _cases, "DIR"),
    # -- the gate and its outputs (check; [tool.chrf-audit]) --------------------------------
    _opt("strict", bool, False, "stale entries (accepted findings that no longer reproduce) and expired ones "
         "fail too", (CLI, CONFIG)),
    _opt("baseline", Path, None, "accepted findings (default chrf-audit-baseline.json beside the configuration)",
         (CLI, CONFIG), metavar="FILE"),
    _opt("json", Path, None, "write the JSON report here", (CLI, CONFIG), metavar="PATH"),
    _opt("markdown", Path, None, "write markdown bug reports (and charts) into DIR", (CLI, CONFIG), metavar="DIR"),
    _opt("junit", Path, None, "write a JUnit XML file here", (CLI, CONFIG), metavar="PATH"),
    _opt("reports_dir", Path, None, "write every report into DIR (run: default reports/ when no implementation "
         "is given)", (CLI, CONFIG), metavar="DIR"),
    _opt("versions_from", Path, None, "a result of chrf-audit versions --json: the issues say which release "
         "introduced each family (default: the cached result of the audited library, when there is one)",
         (CLI,), metavar="FILE"),
    _opt("related", Path, None, "a JSON list of related upstream issues and pull requests (repository, number, "
         "kind, title, state, families) that the issue files cite", (CLI,), metavar="FILE"),
    # -- the implementation (flags; implementation entries) ------------------------------------
    _opt("impl", str, None, "nltk | sacrebleu | sacrebleu-chrf[++][-eps] | torchmetrics | torchmetrics-chrf[++] "
         "| package.module:function (sentence level: function(hypothesis, references) -> float)",
         (CLI, ENTRY), metavar="SPEC"),
    _opt("corpus_impl", str, None, "package.module:function (corpus level: function(hypotheses, "
         "references_per_segment) -> float)", (CLI, ENTRY), metavar="SPEC"),
    _opt("external", str, None, "an external program speaking the JSON-lines protocol (docs/external-protocol.md)",
         (CLI, ENTRY), metavar="COMMAND"),
    _opt("http", str, None, "a scoring service: the URL its contract's requests are sent to (with --contract; "
         "docs/http.md)", (CLI, ENTRY), metavar="URL"),
    _opt("contract", str, None, "the service's contract: built in chrf-plus-plus-compute@1.0.0, a contract "
         "file, a URL of a contract document, or auto (the service's versioned contract path)", (CLI, ENTRY),
         metavar="NAME@VERSION|FILE|URL|auto"),
    _opt("max_requests", int, None, "--http: send at most N requests (retries not counted); more is a one-line "
         "error", (CLI, ENTRY), _positive_int, "N"),
    _opt("http_concurrency", int, 4, "--http: requests in flight at once (default 4)", (CLI,), _range(1, 64), "N"),
    _opt("http_retries", int, 3, "--http: retries of a request answered 429/5xx or dropped, with backoff and "
         "Retry-After (default 3)", (CLI,), _range(0, 64), "N"),
    _opt("mcp", str, None, "an MCP server (streamable HTTP) whose tool is audited by its contract (with --tool; "
         "docs/http.md)", (CLI,), metavar="URL"),
    _opt("tool", str, None, "--mcp: the tool's contract, NAME@VERSION (built in: chrf-plus-plus-compute@1.0.0)",
         (CLI,), metavar="NAME@VERSION"),
    _opt("max_refs", int, None, "the most references per segment the callable or program takes (1: a "
         "single-reference library); the search never sends more", (CLI, ENTRY), _positive_int, "N"),
    _opt("name", str, None, "name of the callable or program in reports and report file names",
         (CLI, ENTRY), metavar="NAME"),
    _opt("accepts", str, None, "claims the callable takes as keyword arguments, comma-separated (char_order, "
         "word_order, beta, lowercase, whitespace): it is called with them, and the audit varies them to find "
         "parameters it ignores", (CLI, ENTRY), _accepts, "NAMES"),
    # -- what the implementation claims to compute (flags; entries; the plugin's keywords) ----
    _opt("char_order", int, None, "character n-gram order claimed (default the implementation's, 6)",
         (CLI, ENTRY), _order("char_order", 1), "N"),
    _opt("word_order", int, None, "word n-gram order claimed (0 chrF, 2 chrF++)", (CLI, ENTRY),
         _order("word_order"), "N"),
    _opt("beta", float, None, "beta claimed (recall weight)", (CLI, ENTRY), _beta, "B"),
    _opt("lowercase", bool, None, "the implementation lowercases", (CLI, ENTRY)),
    _opt("whitespace", bool, None, "whitespace is kept in character n-grams", (CLI, ENTRY)),
    _opt("definition", str, None, "the chrF definition claimed (docs/definitions.md)", (CLI, ENTRY),
         _choice(DEFINITIONS), choices=DEFINITIONS),
    _opt("scale", int, None, "output scale of the implementation", (CLI, ENTRY), _choice((1, 100)),
         choices=(1, 100)),
)
OPTIONS: dict[str, Option] = {o.name: o for o in _TABLE}
CLAIMS = ("char_order", "word_order", "beta", "lowercase", "whitespace", "definition", "scale")


def default(name: str):
    """The default of option ``name`` (None: not set)."""
    return OPTIONS[name].default


def on(surface: str) -> list[Option]:
    """The options of one surface, in table order."""
    return [o for o in _TABLE if surface in o.surfaces]


def keys(surface: str) -> list[str]:
    return [o.key for o in on(surface)]


def _converter(o: Option):
    """argparse's ``type=``: the text as ``o.kind``, refused in the table's words."""
    import argparse

    def convert(text: str):
        try:
            return o.kind(text)
        except (TypeError, ValueError, OverflowError):
            raise argparse.ArgumentTypeError(f"must be {_kind_name(o.kind())}, got {text!r}") from None

    convert.__name__ = o.kind.__name__
    return convert


def add_argument(group, name: str, **override) -> None:
    """The argparse flag of option ``name`` (``override``: e.g. ``default=None`` where a
    configuration fills what the command line leaves out)."""
    o = OPTIONS[name]
    kw: dict = dict(dest=o.name, help=o.help, default=o.default)
    if o.kind is bool:
        kw.update(action="store_true", default=None if o.default is False else o.default)
    else:
        kw.update(type=_converter(o), metavar=o.metavar)
        if o.choices:
            kw["choices"] = list(o.choices)
    kw.update(override)
    group.add_argument(o.flag, **kw)


def validate(values: dict, *, label: Callable[[Option], str] = lambda o: o.flag) -> dict:
    """Check every option value in ``values`` (name -> value; None: not set) with the table;
    ``label`` names an option in the messages (its flag by default)."""
    return {name: OPTIONS[name].validate(v, label(OPTIONS[name])) if name in OPTIONS else v
            for name, v in values.items()}
