"""A backend built from its spec, inside the process that will call it (the worker, or the
isolated adapter's own process): the one place that maps a spec's ``kind`` to a backend
class, and that turns a failed import into one line with the install hint of an optional
extra."""

from __future__ import annotations

from .backends import Backend, CallableBackend, NltkBackend, SacrebleuBackend, SpecError, exception_detail


def make_backend(spec: dict) -> Backend:
    kind = spec["kind"]
    if kind == "nltk":
        return NltkBackend()
    if kind == "sacrebleu":
        return SacrebleuBackend(bool(spec.get("eps_smoothing")))
    if kind == "callable":
        return CallableBackend(spec.get("sentence"), spec.get("corpus"), spec.get("accepts"))
    if kind == "torchmetrics":
        from .tm_backend import TorchmetricsBackend

        return TorchmetricsBackend()
    raise SpecError(f"unknown backend kind {kind!r}")


def load(spec: dict) -> tuple:
    """Build a backend: ("ok", backend, description) or ("error", message)."""
    try:
        backend = make_backend(spec)
        return ("ok", backend, backend.describe())
    except SpecError as e:
        return ("error", str(e))
    except BaseException as e:  # noqa: BLE001
        return ("error", f"cannot load {spec.get('kind')}: {exception_detail(e)}{_install_hint(spec, e)}")


#: built-in adapters whose library is an optional extra of chrf-audit (pyproject.toml)
EXTRAS = {"torchmetrics": ("torchmetrics", ("torch", "torchmetrics"))}


def _install_hint(spec: dict, exc: BaseException) -> str:
    """How to get a missing optional library: "; install it with: pip install ..."."""
    extra = EXTRAS.get(str(spec.get("kind")))
    missing = getattr(exc, "name", None) if isinstance(exc, ImportError) else None
    if extra is None or not missing or missing.split(".")[0] not in extra[1]:
        return ""
    return (f"; {spec.get('kind')} is an optional extra of chrf-audit: install it with "
            f"pip install 'chrf-audit[{extra[0]}]' (torch's CPU build is enough)")
