"""Progress reporting for the impact computations (the CLI implements it with rich).

A protocol, not a dependency: the computations call ``stage``/``advance`` and know nothing
of terminals; ``NoSteps`` is what they use when nobody watches.
"""

from __future__ import annotations

from typing import Protocol


class Steps(Protocol):
    def stage(self, description: str, total: int) -> None: ...
    def advance(self, n: int = 1) -> None: ...


class NoSteps:
    """Silent progress (also a context manager, so callers can ``with`` either kind)."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def stage(self, description: str, total: int) -> None:
        pass

    def advance(self, n: int = 1) -> None:
        pass
