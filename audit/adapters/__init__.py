"""Adapters: how chrf-audit calls an implementation under audit (see base.Adapter).

Built in: nltk and the four sacreBLEU adapters; generic: a Python callable
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
from .pyimpl import BUILTINS, SACREBLEU_NAMES, PythonAdapter
from .resolve import DEFAULT_IMPLS, resolve

__all__ = [
    "Adapter", "AdapterError", "Claims", "Outcome", "Support", "SourceLocation", "resolve",
    "PythonAdapter", "ExternalAdapter", "BUILTINS", "SACREBLEU_NAMES", "DEFAULT_IMPLS",
    "CLAIM_FIELDS", "PARAM_FIELDS", "OUTCOME_KINDS",
]
