"""One upstream library as one object (``Upstream``): everything chrf-audit knows about it.

A library module (``nltk.py``, ``sacrebleu.py``, ``torchmetrics.py``) ends with one
``UPSTREAM = Upstream(...)``: its built-in adapter names with their claims, the backend class
the worker builds to call it, where its source lives (for root causes and patches), its
repro snippets and patches.  ``registry.LIBRARIES`` lists them; the adapters' name
resolution, the worker's backend loading, the enrich stage, ``validate-patch`` and the
reports all read that one list, so the next library is one module plus one registry line.
Its root-cause patterns stay in the deviation registry (one line per family and library,
keyed by ``name``); its sweeps are the registry's, per family.

Plain data: nothing here imports the adapters (they import this), so the built-in claims
are the ``Claims`` fields that differ from the reference's defaults, as a dict.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Optional

#: what a built-in adapter accepts by default: every claim its library exposes
ALL_CLAIMS = frozenset({"char_order", "word_order", "beta", "lowercase", "whitespace"})


@dataclass(frozen=True)
class BuiltinAdapter:
    """One name ``--impl`` accepts for the library, e.g. ``sacrebleu-chrf++-eps``."""

    name: str
    #: ``Claims`` fields that differ from the defaults (the definition it is held to, its scale, ...)
    claims: Mapping
    #: keywords of the library's backend class beyond the library itself ({"eps_smoothing": True})
    backend_options: Mapping = None
    #: claim names it is called with (and the audit varies)
    accepts: frozenset = ALL_CLAIMS
    #: takes several references per segment
    multi_reference: bool = True
    #: part of the default audit (``chrf-audit run`` with no implementation)
    default: bool = False

    def backend_spec(self, library: str) -> dict:
        """The picklable spec the worker builds the backend from (``adapters.backend_loader``)."""
        return {"kind": library, **dict(self.backend_options or {})}


@dataclass(frozen=True)
class Upstream:
    #: the library's key: ``--impl NAME`` (all its adapters), its root-cause patterns in the
    #: deviation registry, the backend spec's ``kind``
    name: str
    distribution: str
    #: the module searched for root causes and patched (its top-level package is copied)
    module: str
    #: the claims of its built-in adapters where they differ from the reference's, for
    #: probes, sweeps and repro snippets
    default_claims: Mapping
    adapters: tuple
    #: the class the worker instantiates (``backend(**adapter.backend_options)``): it has
    #: ``describe()``, ``sentence(claims, hyp, refs)``, ``corpus(claims, hyps, refs)`` and
    #: optionally ``signature(claims)``
    backend: type
    repro_snippet: Callable
    #: family -> (relative file, original text, patched text) or None
    patched_source: Callable
    patch_descriptions: Mapping
    #: the adapter's signature is the library's own (sacreBLEU's)
    native_signature: bool = False
    #: an optional extra of chrf-audit: (extra name, top-level packages it installs)
    extra: Optional[tuple] = None
    #: families -> (relative file, original text, text fixing all of them that have a patch,
    #: those families) or None: the combined patch (``audit.upstream.combined_patch``)
    combined_source: Callable = lambda families: None
    #: (families, level) -> the keyword arguments that turn on what their opt-in patches add
    #: (a definition difference's patch keeps the default), those the level's function takes:
    #: the patched copy is audited called with them (the backend class takes them as keywords)
    patch_options: Callable = lambda families, level="corpus": {}
    #: what its documentation claims, each family's standing against it, its tracker's related
    #: issues and pull requests, the gates its repository runs (``records.Knowledge``)
    knowledge: Any = None
    #: family -> the families the patch that fixes it fixes (itself alone by default): one
    #: patch, one issue
    patch_group: Callable = lambda family: (family,)

    @property
    def package(self) -> str:
        """The top-level package holding the implementation (what validate-patch copies)."""
        return self.module.split(".")[0]

    def adapter_names(self) -> tuple:
        return tuple(a.name for a in self.adapters)

    def adapter(self, name: str) -> Optional[BuiltinAdapter]:
        return next((a for a in self.adapters if a.name == name), None)


# -- helpers of the backend classes (they run inside the worker) ---------------------------


def plain_beta(beta):
    return int(beta) if float(beta).is_integer() else float(beta)


def source_of(func) -> tuple:
    """(module, qualname, file, line) of a function, best effort."""
    func = inspect.unwrap(func)
    module = getattr(func, "__module__", None) or "?"
    qualname = getattr(func, "__qualname__", None) or getattr(func, "__name__", "?")
    try:
        file = inspect.getsourcefile(func)
    except (TypeError, OSError):
        file = None
    try:
        line = inspect.getsourcelines(func)[1]
    except (TypeError, OSError):
        line = None
    return (module, qualname, file, line)


def installed_version(distribution: str) -> Optional[str]:
    """An installed distribution's version from its metadata (running none of its code);
    None when it is not installed (or a local module without metadata)."""
    try:
        from importlib.metadata import version

        return version(distribution)
    except Exception:  # noqa: BLE001
        return None
