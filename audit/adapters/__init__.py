"""Adapters: how chrf-audit calls an implementation under audit (see base.Adapter).

Built in: the adapters of the libraries in ``audit.upstream.registry`` (nltk, the four
sacreBLEU adapters, torchmetrics); generic: a Python callable
(``package.module:function``) and an external program (docs/external-protocol.md).
Implementations run in warm worker processes with a per-call timeout (``isolate=True``).
"""

from .base import (
    CLAIM_FIELDS,
    OUTCOME_KINDS,
    PARAM_FIELDS,
    Adapter,
    AdapterError,
    Claims,
    Outcome,
    SourceLocation,
    Support,
)
from .external import ExternalAdapter
from .pyimpl import PythonAdapter
from .resolve import resolve

__all__ = [
    "Adapter", "AdapterError", "Claims", "Outcome", "Support", "SourceLocation", "resolve",
    "PythonAdapter", "ExternalAdapter",
    "CLAIM_FIELDS", "PARAM_FIELDS", "OUTCOME_KINDS",
]
