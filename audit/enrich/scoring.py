"""The scorer of the scope sweeps: a built-in implementation called through its isolated
adapter (a warm worker process with a per-call timeout), like every other call the audit
makes, never in the audit's own process.

``AdapterScorer(timeout)`` resolves an adapter the first time an implementation is needed
(the adapters of one upstream share their worker) and keeps it until ``close()``.  Calling
``scorer(implementation)`` gives the ``score(claims, level, items)`` that
``audit.upstream.scope`` takes: the adapter is held to ``claims`` and scores the whole batch
in one round trip; an input the implementation gives no number for (exception, crash,
hang, NaN) scores None.
"""

from __future__ import annotations

from typing import Callable, Optional

from ..settings import options


def adapter_name(implementation: str, claims: dict) -> Optional[str]:
    """The built-in adapter that computes ``implementation``: itself when it is one
    ("sacrebleu-chrf++"), else (an upstream's name, "sacrebleu") the first of that upstream's
    adapters whose own definition is the claimed one; None for anything not built in."""
    from ..adapters import Claims
    from ..upstream import registry

    if registry.builtin(implementation) is not None:
        return implementation
    library = registry.library_of(implementation)
    if library is None:
        return None
    for declared in library.adapters:
        if Claims(**declared.claims).definition == claims.get("definition"):
            return declared.name
    return library.adapters[0].name if library.adapters else None


class AdapterScorer:
    """``specs``: implementation -> ``resolve()`` keywords, for implementations that are not
    built in (a ``package.module:function``); built-ins are found by name."""

    def __init__(self, timeout: float = options.default("timeout"), specs: Optional[dict[str, dict]] = None):
        self.timeout = timeout
        self.specs = dict(specs or {})
        self._adapters: dict[str, object] = {}  # adapter name -> adapter
        self._failed: dict[str, Exception] = {}  # adapter name -> why it could not be resolved
        self.calls = 0  # batches sent (diagnostics and tests)

    def _adapter(self, name: str):
        if name not in self._adapters:
            from ..adapters import resolve
            from ..upstream import registry

            if name in self._failed:  # (torchmetrics without torch): do not start it again
                raise self._failed[name]
            if name in self.specs:
                group, call = (name,), dict(self.specs[name], timeout=self.timeout)
            else:  # the whole upstream at once: its adapters share one worker
                group = registry.group_of(name)
                call = {"impl": ",".join(group), "timeout": self.timeout}
            try:
                made = resolve(**call)
            except Exception as exc:
                self._failed.update({n: exc for n in group})
                raise
            if name in self.specs:
                self._adapters[name] = made[0]
            else:
                self._adapters.update({a.name: a for a in made})
        return self._adapters[name]

    def __call__(self, implementation: str) -> Callable[[dict, str, list], list]:
        def score(claims: dict, level: str, items: list) -> list[Optional[float]]:
            from ..adapters import CLAIM_FIELDS, Claims

            name = implementation if implementation in self.specs else adapter_name(implementation, claims)
            if name is None:
                raise KeyError(f"no built-in adapter for {implementation!r}")
            with self._adapter(name).with_claims(Claims(**{k: claims[k] for k in CLAIM_FIELDS if k in claims})) as view:
                self.calls += 1
                run = view.sentence_scores if level == "sentence" else view.corpus_scores
                return [o.value if o.ok else None for o in run(items)]

        return score

    def close(self) -> None:
        adapters, self._adapters = list(self._adapters.values()), {}
        for a in adapters:
            a.close()

    def __enter__(self) -> "AdapterScorer":
        return self

    def __exit__(self, *exc) -> bool:
        self.close()
        return False
