"""What is audited in each release of a package: one or more implementations, each described
as the protocol server of the release's environment will present it (``server.py``).

A built-in upstream (``nltk``, ``sacrebleu``, ``torchmetrics``: ``audit.upstream.registry``)
brings its adapters, their claims and what they accept; ``--impl NAME`` narrows it to some of
them.  Any other package is audited through ``--impl package.module:function`` (and/or
``--corpus-impl``), with the claim flags of ``run`` (``--char-order``, ``--beta``, ...); the
claim flags override a built-in adapter's claims too, as in ``run``.
"""

from __future__ import annotations

from typing import Optional

from ..adapters import backends as B
from ..adapters.base import Claims
from ..adapters.kinds import builtin_names, callable_name
from ..adapters.resolver import check_overrides, with_overrides
from ..errors import UsageError
from ..settings import options
from ..settings.option import parse_names
from ..upstream import registry
from . import envs


def library(package: str):
    """The built-in upstream whose distribution (or name) ``package`` is, else None."""
    key = package.strip().lower().replace("_", "-")
    for lib in registry.LIBRARIES:
        if key in (lib.name, lib.distribution.lower()):
            return lib
    return None


def targets(package: str, *, impl: Optional[str] = None, corpus_impl: Optional[str] = None,
            overrides: Optional[dict] = None, max_refs: Optional[int] = None, name: Optional[str] = None,
            accepts: Optional[str] = None) -> tuple[Optional[str], list[dict]]:
    """(the distribution to install, [server spec per implementation]); UsageError for a
    combination that says nothing auditable."""
    package = envs.distribution_name(package)  # before pip, or a file name, sees it
    overrides = check_overrides(overrides)
    options.validate({"max_refs": max_refs, "name": name, "accepts": accepts})  # the checks of the option table
    accepted = frozenset(parse_names(accepts or ""))
    lib = library(package)
    callable_given = bool(impl and ":" in impl) or bool(corpus_impl)
    if lib is not None and not callable_given:
        wanted = lib.adapter_names() if impl is None else builtin_names(impl)
        foreign = [n for n in wanted if n not in lib.adapter_names()]
        if foreign:
            raise UsageError(f"--impl {impl}: not an adapter of {lib.name} (its adapters: "
                             f"{', '.join(lib.adapter_names())})")
        for value, flag in ((max_refs, "--max-refs"), (name, "--name"), (accepts, "--accepts")):
            if value is not None:
                raise UsageError(f"{flag} describes a package.module:function implementation; "
                                 f"{lib.name}'s adapters have their own")
        out = []
        for adapter_name in wanted:
            a = lib.adapter(adapter_name)
            claims = with_overrides(Claims(**a.claims), overrides, a.name)
            out.append({"name": a.name, "backend": a.backend_spec(lib.name), "claims": claims.to_dict(),
                        "supports": {"sentence": True, "corpus": True, "multi_reference": a.multi_reference},
                        "accepts": sorted(a.accepts)})
        return lib.distribution, out
    if impl is not None and ":" not in impl:
        raise UsageError(f"--impl {impl}: with a package that is not built in, --impl is package.module:function")
    if not callable_given:
        known = ", ".join(lib.name for lib in registry.LIBRARIES)
        raise UsageError(f"{package} is not a built-in upstream ({known}): say what to call with "
                         "--impl package.module:function (and/or --corpus-impl)")
    for spec, flag in ((impl, "--impl"), (corpus_impl, "--corpus-impl")):
        if spec is not None:
            try:
                B.parse_callable_spec(spec, flag)
            except B.SpecError as e:
                raise UsageError(str(e)) from None
    claims = with_overrides(Claims(), overrides, package)
    label = (name or "").strip() or callable_name(impl, corpus_impl)
    return package.strip(), [{
        "name": label,
        "backend": {"kind": "callable", "sentence": impl, "corpus": corpus_impl, "accepts": sorted(accepted)},
        "claims": claims.to_dict(),
        "supports": {"sentence": impl is not None, "corpus": corpus_impl is not None,
                     "multi_reference": max_refs is None or max_refs > 1, "max_refs": max_refs},
        "accepts": sorted(accepted),
    }]
