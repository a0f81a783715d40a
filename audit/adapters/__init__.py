"""Adapters: how chrf-audit calls an implementation under audit (see base.Adapter).

Built in: the adapters of the libraries in ``audit.upstream.registry`` (nltk, the four
sacreBLEU adapters, torchmetrics); generic: a Python callable
(``package.module:function``) and an external program (docs/external-protocol.md).
Implementations run in warm worker processes with a per-call timeout (``isolate=True``).

The names below are imported on first use: a worker process (``audit.adapters.worker``)
imports this package too, and every restart after a crash or a hang pays for what it
imports (the adapters, the resolver and the registry are half a second on a loaded machine).
"""

import importlib

_WHERE = {
    "CLAIM_FIELDS": "base", "OUTCOME_KINDS": "base", "PARAM_FIELDS": "base", "Adapter": "base",
    "AdapterError": "base", "Claims": "base", "Outcome": "base", "SourceLocation": "base", "Support": "base",
    "ExternalAdapter": "external", "PythonAdapter": "pyimpl", "resolve": "resolver",
}

__all__ = [
    "Adapter", "AdapterError", "Claims", "Outcome", "Support", "SourceLocation", "resolve",
    "PythonAdapter", "ExternalAdapter",
    "CLAIM_FIELDS", "PARAM_FIELDS", "OUTCOME_KINDS",
]


def __getattr__(name: str):
    if name in _WHERE:
        value = getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
