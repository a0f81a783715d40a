"""Adapters for Python implementations: the built-in libraries (``audit.upstream.registry``)
and ``package.module:function``.

They all run through a client (``WorkerClient`` for isolation, ``InProcessClient`` with
``isolate=False``) that hosts the backend; views with other claims (``with_claims``) share it.
"""

from __future__ import annotations

from typing import Optional

from .base import Adapter, Claims, SourceLocation, Support
from .supervisor import Tenant


class PythonAdapter(Tenant, Adapter):
    #: A Python callable takes any ``str``, lone surrogates included (what ``surrogateescape``
    #: decoding makes of bad bytes); the worker's pickles carry them.
    accepts_surrogates = True

    def __init__(
        self,
        *,
        name: str,
        client,
        bid: int,
        claims: Claims,
        supports: Support,
        accepts: frozenset,
        description: dict,
        native_signature: bool = False,
        spec: Optional[dict] = None,
    ):
        self.name = name
        self.client = self._occupy(client)
        self.bid = bid
        self.claims = claims
        self.supports = supports
        self.accepts = frozenset(accepts)
        self._description = description
        self.version: Optional[str] = description.get("version")
        self.sources = {
            key: SourceLocation(*loc) for key, loc in (description.get("sources") or {}).items()
        }
        self._native_signature = native_signature
        self._signature: Optional[str] = None
        self.spec = spec

    @property
    def signature(self) -> str:
        if self._signature is None:
            sig = None
            if self._native_signature:
                sig = self.client.signature(self.bid, self.claims.to_dict())
            self._signature = sig or f"{self.name}|{self.version or 'unknown'}|{self.claims.text()}"
        return self._signature

    def with_claims(self, claims: Claims) -> "PythonAdapter":
        return PythonAdapter(
            name=self.name, client=self.client, bid=self.bid, claims=claims,
            supports=self.supports, accepts=self.accepts, description=self._description,
            native_signature=self._native_signature, spec=self.spec,
        )

    def _score(self, op: str, items: list) -> list[tuple]:
        return self._open_host().run(self.bid, op, self.claims.to_dict(), items)
