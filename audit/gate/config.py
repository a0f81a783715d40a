"""``[tool.chrf-audit]`` in pyproject.toml: the configuration of ``chrf-audit check``.

Every key is the long name of a ``check`` flag (kebab-case); command-line flags override it.

.. code-block:: toml

    [tool.chrf-audit]
    max-examples = 100                     # Hypothesis examples per level and implementation
    seed = 0
    hypothesis-profile = "chrf-audit"      # or chrf-audit-ci, chrf-audit-dev (docs/hypothesis.md)
    tolerance = 1e-9                       # absolute, on the 0..100 scale
    timeout = 5.0                          # per call, seconds
    cases = "cases"                        # curated regression cases replayed first
    baseline = "chrf-audit-baseline.json"  # accepted findings
    strict = false                         # stale or expired baseline entries fail too
    json = "reports/audit.json"            # reports (all optional)
    markdown = "reports"
    junit = "reports/junit.xml"
    reports-dir = "reports"

    [[tool.chrf-audit.implementations]]
    impl = "mypkg.chrf:sentence_chrf"      # or nltk, sacrebleu, sacrebleu-chrf, ...
    corpus-impl = "mypkg.chrf:corpus_chrf"
    # external = "./my-scorer --jsonl"
    # http = "https://scoring.example/chrf"  # a service, held to its contract (docs/http.md)
    # contract = "chrf-plus-plus-compute@1.0.0"
    # max-requests = 5000
    beta = 3
    scale = 1
    definition = "sacrebleu"
    # char-order, word-order, lowercase, whitespace, timeout

The keys, their types, defaults and checks are those of ``audit.settings.options`` (the same table the
flags and the pytest plugin are built from).  Paths are relative to the directory of the
configuration file.  No implementation
configured means the default audit of ``chrf-audit run`` (nltk and sacreBLEU).  Any mistake
(unknown key, wrong type, invalid value) is a ``UsageError`` naming the key: one line, exit 2.
"""

from __future__ import annotations

import difflib
from dataclasses import field, make_dataclass
from pathlib import Path
from typing import Any, Optional

from ..settings import options
from ..errors import UsageError
from ..files.textfiles import read_text

try:  # Python 3.11+
    import tomllib as _toml
except ModuleNotFoundError:  # pragma: no cover - Python 3.10
    try:
        import tomli as _toml  # type: ignore[no-redef]
    except ModuleNotFoundError:
        _toml = None

DEFAULT_BASELINE = "chrf-audit-baseline.json"

#: the keys of the table and of an implementation entry: audit.settings.options (name, type, check)
TOP_KEYS = ("implementations",) + tuple(options.keys(options.CONFIG))
IMPL_KEYS = tuple(options.keys(options.ENTRY))
#: claim keys of an implementation entry -> attribute name (audit.adapters.CLAIM_FIELDS)
CLAIM_KEYS = {options.OPTIONS[n].key: n for n in options.CLAIMS}


def _fields(surface: str) -> list:
    """(name, type, None) of every option of ``surface`` but the claims: a dataclass field each
    (None: not set, the default applies)."""
    return [(o.name, Optional[o.kind], field(default=None)) for o in options.on(surface)
            if o.name not in options.CLAIMS]


#: One ``[[tool.chrf-audit.implementations]]`` entry: a field per entry key of the option table
#: (``claims``: the claim keys, CLAIM_FIELDS names -> values).
ImplConfig = make_dataclass("ImplConfig", _fields(options.ENTRY) + [("claims", dict, field(default_factory=dict))])

#: The parsed ``[tool.chrf-audit]`` table: a field per configuration key of the option table
#: (``path``: the file read, None: no file).
Config = make_dataclass("Config", [("path", Optional[Path], field(default=None)),
                                   ("implementations", list, field(default_factory=list))] + _fields(options.CONFIG))


def _unknown(where: str, key: str, known) -> UsageError:
    hint = difflib.get_close_matches(str(key), list(known), n=1)
    also = f" (did you mean {hint[0]!r}?)" if hint else ""
    return UsageError(f"{where}: unknown key {key!r}{also}; known keys: {', '.join(known)}")


def _type_name(v: Any) -> str:
    return {bool: "a boolean", int: "an integer", float: "a number", str: "a string",
            list: "an array", dict: "a table"}.get(type(v), type(v).__name__)


def _option(key: str):
    return options.OPTIONS[key.replace("-", "_")]


def _implementation(where: str, entry: Any, base: Path) -> ImplConfig:
    if not isinstance(entry, dict):
        raise UsageError(f"{where} must be a table, got {_type_name(entry)}")
    out = ImplConfig()
    for key, v in entry.items():
        if key not in IMPL_KEYS:
            raise _unknown(where, key, IMPL_KEYS)
        opt = _option(key)
        value = opt.from_toml(v, where, base)
        if opt.name in options.CLAIMS:
            out.claims[opt.name] = value
        else:
            setattr(out, opt.name, value)
    from ..adapters.kinds import problem

    wrong = problem({o.name: getattr(out, o.name) for o in options.on(options.ENTRY)
                     if o.name in options.IMPLEMENTATION}, out.claims)
    if wrong:
        raise UsageError(f"{where}: {wrong}")
    return out


def parse(table: Any, path: Optional[Path] = None) -> Config:
    """Validate a ``[tool.chrf-audit]`` table (a dict as tomllib returns it)."""
    name = path.name if path is not None else "configuration"
    where = f"{name}: [tool.chrf-audit]"
    cfg = Config(path=path)
    if not isinstance(table, dict):
        raise UsageError(f"{where} must be a table, got {_type_name(table)}")
    base = path.parent if path is not None else Path(".")
    for key, v in table.items():
        if key not in TOP_KEYS:
            raise _unknown(where, key, TOP_KEYS)
        if key == "implementations":
            if isinstance(v, dict):
                v = [v]
            if not isinstance(v, list):
                raise UsageError(f"{where}: implementations must be an array of tables "
                                 f"([[tool.chrf-audit.implementations]]), got {_type_name(v)}")
            cfg.implementations = [_implementation(f"{name}: [[tool.chrf-audit.implementations]] #{i}", e, base)
                                   for i, e in enumerate(v, start=1)]
            from ..contract import builtin_names

            for entry in cfg.implementations:  # a contract file is relative to the configuration
                if entry.contract and entry.contract not in builtin_names() and entry.contract != "auto" and \
                        not entry.contract.startswith(("http://", "https://")):  # a document's URL is a URL
                    entry.contract = str(base / entry.contract)
        else:
            opt = _option(key)
            setattr(cfg, opt.name, opt.from_toml(v, where, base))
    return cfg


def load(path: Optional[Path] = None) -> Config:
    """Read ``[tool.chrf-audit]`` from ``path`` (an explicit ``--config``: it must exist) or
    from ``./pyproject.toml`` (absent file or table: an empty Config, all defaults)."""
    explicit = path is not None
    path = Path(path) if explicit else Path("pyproject.toml")
    if not path.exists():  # (a directory, a FIFO ... is refused by read_text, naming what it is)
        if explicit:
            raise UsageError(f"{path}: no such configuration file")
        return Config()
    if _toml is None:  # pragma: no cover - Python 3.10 without tomli
        raise UsageError("reading pyproject.toml needs Python 3.11 or the tomli package")
    text = read_text(path, "a TOML configuration file")
    try:
        data = _toml.loads(text)
    except _toml.TOMLDecodeError as exc:
        if text.startswith("\ufeff"):  # what some Windows editors write first
            raise UsageError(f"{path}: invalid TOML: it starts with a byte-order mark (BOM, U+FEFF), which TOML "
                             "does not allow: save it as UTF-8 without BOM") from None
        raise UsageError(f"{path}: invalid TOML: {exc}") from None
    tool = data.get("tool", {})
    if not isinstance(tool, dict) or "chrf-audit" not in tool:
        if explicit and path.name != "pyproject.toml" and "tool" not in data and data:
            # a standalone file (chrf-audit.toml): its top level is the table
            return parse(data, path)
        return Config(path=path)
    return parse(tool["chrf-audit"], path)
