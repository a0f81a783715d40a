"""The one list of upstream libraries chrf-audit knows (``LIBRARIES``) and the lookups every
other part uses: the names ``--impl`` accepts, the default audit, which library a name
belongs to.  Adding a library: its module (ending in ``UPSTREAM = Upstream(...)``, see
``library.py``) and one line in ``LIBRARIES``."""

from __future__ import annotations

from typing import Optional

from . import nltk, sacrebleu, torchmetrics
from .library import BuiltinAdapter, Upstream

LIBRARIES: tuple[Upstream, ...] = (
    nltk.UPSTREAM,
    sacrebleu.UPSTREAM,
    torchmetrics.UPSTREAM,
)


def libraries() -> dict[str, Upstream]:
    """name -> library, in registry order."""
    return {u.name: u for u in LIBRARIES}


def groups() -> dict[str, tuple]:
    """library name -> its built-in adapter names (``--impl sacrebleu`` is all four)."""
    return {u.name: u.adapter_names() for u in LIBRARIES}


def adapter_names() -> tuple:
    """Every built-in adapter name, in registry order."""
    return tuple(a.name for u in LIBRARIES for a in u.adapters)


def default_impls() -> tuple:
    """The adapters of ``chrf-audit run`` with no implementation given."""
    return tuple(a.name for u in LIBRARIES for a in u.adapters if a.default)


def builtin(name: str) -> Optional[tuple[Upstream, BuiltinAdapter]]:
    """(library, adapter) of a built-in adapter name; None for anything else."""
    for u in LIBRARIES:
        a = u.adapter(name)
        if a is not None:
            return u, a
    return None


def group_of(name: str) -> tuple:
    """The adapter names of the library a built-in adapter belongs to (they share a worker);
    ``(name,)`` for anything else."""
    found = builtin(name)
    return found[0].adapter_names() if found else (name,)


def library_of(implementation: str) -> Optional[Upstream]:
    """The library a name belongs to: a library's own name ("nltk", "sacrebleu") and
    ``<library>-chrf...`` ("sacrebleu-chrf++-eps", "torchmetrics-chrf").  Callables
    (``pkg.mod:fn``), external programs and names given with ``--name`` belong to none, even
    when they start like one."""
    name = (implementation or "").lower()
    libs = libraries()
    if name in libs:
        return libs[name]
    head, sep, tail = name.partition("-")
    if sep and head in libs and tail.startswith("chrf") and ":" not in tail and " " not in tail:
        return libs[head]
    return None
