"""A backend built from its spec, inside the process that will call it (the worker, or the
isolated adapter's own process): a callable's, a survey registry's expressions, or a built-in library's (``kind`` is the
library's name in ``audit.upstream.registry``: its ``Upstream.backend`` class); a failed
import becomes one line, with the install hint of an optional extra."""

from __future__ import annotations

from ..upstream.registry import libraries
from .backends import Backend, CallableBackend, ExpressionBackend, LibraryBackend, SpecError, exception_detail


def make_backend(spec: dict) -> Backend:
    kind = spec["kind"]
    if kind == "callable":
        return CallableBackend(spec.get("sentence"), spec.get("corpus"), spec.get("accepts"))
    if kind == "expression":
        return ExpressionBackend(spec.get("setup") or "", spec.get("sentence"), spec.get("corpus"),
                                 spec["distribution"], spec.get("source"), spec.get("name") or "expression")
    library = libraries().get(kind)
    if library is None:
        raise SpecError(f"unknown backend kind {kind!r}")
    return LibraryBackend(library.backend(**{k: v for k, v in spec.items() if k != "kind"}))


def load(spec: dict) -> tuple:
    """Build a backend: ("ok", backend, description) or ("error", message)."""
    try:
        backend = make_backend(spec)
        return ("ok", backend, backend.describe())
    except SpecError as e:
        return ("error", str(e))
    except BaseException as e:  # noqa: BLE001
        return ("error", f"cannot load {spec.get('kind')}: {exception_detail(e)}{_install_hint(spec, e)}")


def _install_hint(spec: dict, exc: BaseException) -> str:
    """How to get a missing optional library: "; install it with: pip install ..."."""
    library = libraries().get(str(spec.get("kind")))
    extra = library.extra if library is not None else None
    missing = getattr(exc, "name", None) if isinstance(exc, ImportError) else None
    if extra is None or not missing or missing.split(".")[0] not in extra[1]:
        return ""
    return (f"; {spec.get('kind')} is an optional extra of chrf-audit: install it with "
            f"pip install -e '.[{extra[0]}]' in the chrf-audit checkout (torch's CPU build is enough)")
