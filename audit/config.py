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

Paths are relative to the directory of the configuration file.  No implementation
configured means the default audit of ``chrf-audit run`` (nltk and sacreBLEU).  Any mistake
(unknown key, wrong type, invalid value) is a ``UsageError`` naming the key: one line, exit 2.
"""

from __future__ import annotations

import difflib
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from .errors import UsageError
from .textfiles import read_text

try:  # Python 3.11+
    import tomllib as _toml
except ModuleNotFoundError:  # pragma: no cover - Python 3.10
    try:
        import tomli as _toml  # type: ignore[no-redef]
    except ModuleNotFoundError:
        _toml = None

DEFAULT_BASELINE = "chrf-audit-baseline.json"
DEFAULT_MAX_EXAMPLES = 100
DEFAULT_TIMEOUT = 5.0

#: claim keys of an implementation entry -> attribute name (audit.adapters.CLAIM_FIELDS)
CLAIM_KEYS = {
    "char-order": "char_order", "word-order": "word_order", "beta": "beta", "lowercase": "lowercase",
    "whitespace": "whitespace", "definition": "definition", "scale": "scale",
}
IMPL_KEYS = ("impl", "corpus-impl", "external", "http", "contract", "max-requests", "timeout", "max-refs",
             "name", "accepts") + tuple(CLAIM_KEYS)
PATH_KEYS = ("cases", "baseline", "json", "markdown", "junit", "reports-dir")
TOP_KEYS = ("implementations", "max-examples", "seed", "hypothesis-profile", "tolerance", "timeout", "strict") + PATH_KEYS


@dataclass
class ImplConfig:
    """One ``[[tool.chrf-audit.implementations]]`` entry."""

    impl: Optional[str] = None
    corpus_impl: Optional[str] = None
    external: Optional[str] = None
    timeout: Optional[float] = None
    claims: dict = field(default_factory=dict)  # CLAIM_FIELDS names -> values
    max_refs: Optional[int] = None  # references per segment it takes (1: single-reference)
    name: Optional[str] = None  # its name in reports
    accepts: Optional[list] = None  # claims the callable takes as keyword arguments
    http: Optional[str] = None  # a scoring service's URL (with contract)
    contract: Optional[str] = None  # NAME@VERSION or a contract file (relative to the configuration)
    max_requests: Optional[int] = None  # the service's request budget


@dataclass
class Config:
    """The parsed ``[tool.chrf-audit]`` table (None: not set, the default applies)."""

    path: Optional[Path] = None  # the file read (None: no file)
    implementations: list[ImplConfig] = field(default_factory=list)
    max_examples: Optional[int] = None
    seed: Optional[int] = None
    hypothesis_profile: Optional[str] = None
    tolerance: Optional[float] = None
    timeout: Optional[float] = None
    strict: Optional[bool] = None
    cases: Optional[Path] = None
    baseline: Optional[Path] = None
    json: Optional[Path] = None
    markdown: Optional[Path] = None
    junit: Optional[Path] = None
    reports_dir: Optional[Path] = None


def _unknown(where: str, key: str, known) -> UsageError:
    hint = difflib.get_close_matches(str(key), list(known), n=1)
    also = f" (did you mean {hint[0]!r}?)" if hint else ""
    return UsageError(f"{where}: unknown key {key!r}{also}; known keys: {', '.join(known)}")


def _type_name(v: Any) -> str:
    return {bool: "a boolean", int: "an integer", float: "a number", str: "a string",
            list: "an array", dict: "a table"}.get(type(v), type(v).__name__)


def _int(where: str, key: str, v: Any, minimum: Optional[int] = None) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise UsageError(f"{where}: {key} must be an integer, got {_type_name(v)} ({v!r})")
    if minimum is not None and v < minimum:
        raise UsageError(f"{where}: {key} must be >= {minimum}, got {v}")
    return v


def _number(where: str, key: str, v: Any, *, positive: bool = False) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise UsageError(f"{where}: {key} must be a number, got {_type_name(v)} ({v!r})")
    if not math.isfinite(v) or v < 0 or (positive and v == 0):
        raise UsageError(f"{where}: {key} must be {'> 0' if positive else '>= 0'}, got {v!r}")
    return v


def _bool(where: str, key: str, v: Any) -> bool:
    if not isinstance(v, bool):
        raise UsageError(f"{where}: {key} must be true or false, got {_type_name(v)} ({v!r})")
    return v


def _str(where: str, key: str, v: Any) -> str:
    if not isinstance(v, str) or not v.strip():
        raise UsageError(f"{where}: {key} must be a non-empty string, got {_type_name(v)} ({v!r})")
    return v.strip()


def _implementation(where: str, entry: Any) -> ImplConfig:
    if not isinstance(entry, dict):
        raise UsageError(f"{where} must be a table, got {_type_name(entry)}")
    out = ImplConfig()
    for key, v in entry.items():
        if key not in IMPL_KEYS:
            raise _unknown(where, key, IMPL_KEYS)
        if key in ("impl", "corpus-impl", "external", "name", "http", "contract"):
            setattr(out, key.replace("-", "_"), _str(where, key, v))
        elif key == "max-requests":
            out.max_requests = _int(where, key, v, minimum=1)
        elif key == "max-refs":
            out.max_refs = _int(where, key, v, minimum=1)
        elif key == "accepts":
            if not isinstance(v, list) or not all(isinstance(x, str) and x.strip() for x in v):
                raise UsageError(f"{where}: accepts must be an array of parameter names, got {_type_name(v)} ({v!r})")
            out.accepts = [x.strip() for x in v]
        elif key == "timeout":
            out.timeout = _number(where, key, v, positive=True)
        elif key in ("char-order", "word-order", "scale"):
            out.claims[CLAIM_KEYS[key]] = _int(where, key, v)
        elif key == "beta":
            out.claims["beta"] = _number(where, key, v)
        elif key in ("lowercase", "whitespace"):
            out.claims[CLAIM_KEYS[key]] = _bool(where, key, v)
        else:  # definition
            out.claims["definition"] = _str(where, key, v)
    if not (out.impl or out.corpus_impl or out.external or out.http):
        raise UsageError(f"{where}: needs impl, corpus-impl, external or http")
    if bool(out.http) != bool(out.contract):
        raise UsageError(f"{where}: http and contract go together")
    if out.claims:
        from .adapters import Claims

        try:
            Claims().replace(**out.claims)
        except (TypeError, ValueError) as exc:
            raise UsageError(f"{where}: invalid claim: {exc}") from None
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
            cfg.implementations = [_implementation(f"{name}: [[tool.chrf-audit.implementations]] #{i}", e)
                                   for i, e in enumerate(v, start=1)]
            from .contract import builtin_names

            for entry in cfg.implementations:  # a contract file is relative to the configuration
                if entry.contract and entry.contract not in builtin_names():
                    entry.contract = str(base / entry.contract)
        elif key == "max-examples":
            cfg.max_examples = _int(where, key, v, minimum=1)
        elif key == "seed":
            cfg.seed = _int(where, key, v)
        elif key == "hypothesis-profile":
            cfg.hypothesis_profile = _str(where, key, v)
        elif key == "tolerance":
            cfg.tolerance = _number(where, key, v)
        elif key == "timeout":
            cfg.timeout = _number(where, key, v, positive=True)
        elif key == "strict":
            cfg.strict = _bool(where, key, v)
        else:  # paths
            setattr(cfg, key.replace("-", "_"), base / _str(where, key, v))
    return cfg


def load(path: Optional[Path] = None) -> Config:
    """Read ``[tool.chrf-audit]`` from ``path`` (an explicit ``--config``: it must exist) or
    from ``./pyproject.toml`` (absent file or table: an empty Config, all defaults)."""
    explicit = path is not None
    path = Path(path) if explicit else Path("pyproject.toml")
    if not path.is_file():
        if explicit:
            raise UsageError(f"{path}: no such configuration file")
        return Config()
    if _toml is None:  # pragma: no cover - Python 3.10 without tomli
        raise UsageError("reading pyproject.toml needs Python 3.11 or the tomli package")
    text = read_text(path, "a TOML configuration file")
    try:
        data = _toml.loads(text)
    except _toml.TOMLDecodeError as exc:
        raise UsageError(f"{path}: invalid TOML: {exc}") from None
    tool = data.get("tool", {})
    if not isinstance(tool, dict) or "chrf-audit" not in tool:
        if explicit and path.name != "pyproject.toml" and "tool" not in data and data:
            # a standalone file (chrf-audit.toml): its top level is the table
            return parse(data, path)
        return Config(path=path)
    return parse(tool["chrf-audit"], path)
