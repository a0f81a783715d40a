"""The registry of chrF implementations the survey audits: ``registry.json`` beside this module,
loaded and validated here (the one place), as ``Implementation`` records.

An implementation is a package release on the index (``package``, ``version``) installed into an
environment of its own (``python``: the interpreters it may use, ``requirements``: what is
installed beside it), called in one of two ways:

* ``builtin``: a library chrf-audit knows (``audit.upstream.registry``), each configuration one
  of its adapters (``sacrebleu-chrf``, ``nltk``, ...);
* expressions: ``setup`` (Python run once in the environment) and, per configuration, a
  ``sentence`` and/or ``corpus`` expression over ``hypothesis``/``hypotheses`` and
  ``references`` (segment-major) giving the score on the configuration's ``scale``; the same
  text is the repro snippet of its issue files.

Each configuration (``chrF``, ``chrF++``) carries the claims it is audited against.  An
implementation that cannot run here has a one-line ``skip`` reason.  docs/survey.md documents
the fields.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from ..adapters.base import Claims
from ..errors import UsageError

PATH = Path(__file__).with_name("registry.json")
KINDS = ("control", "own", "wrapper")
CONFIGURATIONS = ("chrF", "chrF++")
_NAME = re.compile(r"^[a-z0-9][a-z0-9-]*$")
_PYTHON = re.compile(r"^3\.\d+$")


class RegistryError(ValueError):
    """The registry file is wrong (one line naming the entry and the field)."""


@dataclass(frozen=True)
class Configuration:
    name: str  # "chrF" | "chrF++"
    claims: dict  # every claim, defaults filled in
    adapter: Optional[str] = None  # a built-in library's adapter
    sentence: Optional[str] = None
    corpus: Optional[str] = None
    max_refs: Optional[int] = None


@dataclass(frozen=True)
class Implementation:
    name: str
    package: str
    version: str
    kind: str
    licence: str
    tracker: str
    docs_claim: str
    configurations: tuple = ()
    builtin: Optional[str] = None
    setup: str = ""
    source: Optional[str] = None
    python: tuple = ()  # "3.N" it may be installed with; () = any
    requirements: tuple = ()
    shadows: Optional[str] = None
    wraps: Optional[str] = None
    skip: Optional[str] = None
    note: Optional[str] = None  # why its requirements (or its timeout) are what they are
    timeout: Optional[float] = None  # seconds per call at least (slow imports: a restarted worker's start)
    extra: dict = field(default_factory=dict)

    @property
    def runtime(self) -> str:
        return "python" + ("" if not self.python else " " + "/".join(self.python))


def _need(entry: dict, key: str, kind, where: str, required: bool = True):
    value = entry.get(key)
    if value is None:
        if required:
            raise RegistryError(f"{where}: {key!r} is missing")
        return None
    if not isinstance(value, kind):
        raise RegistryError(f"{where}: {key!r} must be {getattr(kind, '__name__', kind)}, got {type(value).__name__}")
    return value


def _expression(text: Optional[str], where: str, mode: str = "eval") -> None:
    if text is None:
        return
    try:
        compile(text, where, mode)
    except SyntaxError as exc:
        raise RegistryError(f"{where}: not Python ({exc.msg})") from None


def _configuration(raw: dict, impl: dict, where: str) -> Configuration:
    name = _need(raw, "name", str, where)
    if name not in CONFIGURATIONS:
        raise RegistryError(f"{where}: configuration {name!r} is not one of {', '.join(CONFIGURATIONS)}")
    where = f"{where} {name}"
    if impl.get("builtin"):
        from ..upstream.registry import libraries

        adapter = _need(raw, "adapter", str, where)
        lib = libraries().get(impl["builtin"])
        if lib is None or adapter not in lib.adapter_names():
            raise RegistryError(f"{where}: {adapter!r} is not an adapter of the built-in {impl['builtin']!r}")
        return Configuration(name=name, claims=Claims(**lib.adapter(adapter).claims).to_dict(), adapter=adapter)
    claims = _need(raw, "claims", dict, where)
    try:
        full = Claims(**claims).to_dict()
    except (TypeError, ValueError) as exc:
        raise RegistryError(f"{where}: claims: {exc}") from None
    if (full["word_order"] > 0) != (name == "chrF++"):
        raise RegistryError(f"{where}: word_order {full['word_order']} does not make a {name}")
    sentence, corpus = _need(raw, "sentence", str, where, False), _need(raw, "corpus", str, where, False)
    if sentence is None and corpus is None:
        raise RegistryError(f"{where}: neither a sentence nor a corpus expression")
    _expression(sentence, f"{where} sentence")
    _expression(corpus, f"{where} corpus")
    max_refs = _need(raw, "max_refs", int, where, False)
    if max_refs is not None and max_refs < 1:
        raise RegistryError(f"{where}: max_refs must be >= 1")
    return Configuration(name=name, claims=full, sentence=sentence, corpus=corpus, max_refs=max_refs)


def _implementation(raw: dict, index: int) -> Implementation:
    if not isinstance(raw, dict):
        raise RegistryError(f"implementations[{index}] must be an object")
    name = _need(raw, "name", str, f"implementations[{index}]")
    where = f"implementation {name!r}"
    if not _NAME.match(name):
        raise RegistryError(f"{where}: a name is lowercase letters, digits and '-'")
    kind = _need(raw, "kind", str, where)
    if kind not in KINDS:
        raise RegistryError(f"{where}: kind {kind!r} is not one of {', '.join(KINDS)}")
    python = tuple(_need(raw, "python", list, where, False) or ())
    if any(not isinstance(p, str) or not _PYTHON.match(p) for p in python):
        raise RegistryError(f"{where}: python lists versions like \"3.12\"")
    requirements = tuple(_need(raw, "requirements", list, where, False) or ())
    if any(not isinstance(r, str) or not r.strip() for r in requirements):
        raise RegistryError(f"{where}: requirements are requirement strings")
    timeout = _need(raw, "timeout", (int, float), where, False)
    if timeout is not None and (isinstance(timeout, bool) or not 0 < timeout <= 600):
        raise RegistryError(f"{where}: timeout is seconds per call, above 0 and at most 600")
    setup = _need(raw, "setup", str, where, False) or ""
    _expression(setup, f"{where} setup", "exec")
    skip = _need(raw, "skip", str, where, False)
    configurations = tuple(_configuration(c, raw, f"{where}") for c in _need(raw, "configurations", list, where))
    if not configurations and not skip:
        raise RegistryError(f"{where}: no configuration and no skip reason")
    if len({c.name for c in configurations}) != len(configurations):
        raise RegistryError(f"{where}: a configuration is listed twice")
    known = {"name", "package", "version", "kind", "licence", "tracker", "docs_claim", "configurations", "builtin",
             "setup", "source", "python", "requirements", "shadows", "wraps", "skip", "note", "timeout"}
    return Implementation(
        name=name, package=_need(raw, "package", str, where), version=_need(raw, "version", str, where), kind=kind,
        licence=_need(raw, "licence", str, where), tracker=_need(raw, "tracker", str, where),
        docs_claim=_need(raw, "docs_claim", str, where), configurations=configurations,
        builtin=_need(raw, "builtin", str, where, False), setup=setup, source=_need(raw, "source", str, where, False),
        python=python, requirements=requirements, shadows=_need(raw, "shadows", str, where, False),
        wraps=_need(raw, "wraps", str, where, False), skip=skip, note=_need(raw, "note", str, where, False),
        timeout=float(timeout) if timeout is not None else None,
        extra={k: v for k, v in raw.items() if k not in known})


def parse(doc: dict) -> tuple[Implementation, ...]:
    """The registry's implementations, validated (RegistryError: the first problem)."""
    if not isinstance(doc, dict) or not isinstance(doc.get("implementations"), list):
        raise RegistryError("the registry is an object with an 'implementations' list")
    out = tuple(_implementation(raw, i) for i, raw in enumerate(doc["implementations"]))
    names = [i.name for i in out]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise RegistryError(f"implementation {twice[0]!r} is listed twice")
    return out


def load(path: Path = PATH) -> tuple[Implementation, ...]:
    """A registry file's implementations (RegistryError or UsageError: one line naming the
    problem; a registry file is a user's file like any other: ``files.textfiles``)."""
    from ..files.textfiles import read_json

    return parse(read_json(path, "a survey registry (JSON)"))


def searched(path: Path = PATH) -> dict:
    """Where else the registry looked for implementations and found none (``searched``)."""
    from ..files.textfiles import read_json

    found = read_json(path, "a survey registry (JSON)").get("searched")
    return {str(k): str(v) for k, v in found.items()} if isinstance(found, dict) else {}


def select(names=(), registry: Optional[tuple] = None) -> tuple[Implementation, ...]:
    """The implementations named (all of them when none is); UsageError for an unknown name."""
    registry = load() if registry is None else registry
    if not names:
        return registry
    known = {i.name: i for i in registry}
    unknown = [n for n in names if n not in known]
    if unknown:
        raise UsageError(f"{unknown[0]!r} is not in the survey's registry (known: {', '.join(known)})")
    return tuple(known[n] for n in dict.fromkeys(names))
