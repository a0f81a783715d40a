"""Planted-bug chrF implementations: the rows of ``catalogue.py``, one per family, plus correct
ones (see README.md).

Each row is reachable as an attribute of this package, so the callable adapter resolves
``tests.planted:<name>.sentence`` / ``tests.planted:<name>.corpus`` (``row.spec(op)``).
"""

from .catalogue import BY_NAME, ROWS, Row, Trigger

__all__ = ["ROWS", "Row", "Trigger", "names", "get", "planted"]


def names() -> list[str]:
    """Names of all planted and correct implementations."""
    return sorted(BY_NAME)


def get(name: str) -> Row:
    return BY_NAME[name]


def planted() -> dict[str, Row]:
    """family id -> row, for every planted bug."""
    return {r.family: r for r in ROWS if r.family}


def __getattr__(name: str) -> Row:
    """``tests.planted.<row name>``: the row (what a ``package:row.op`` spec reaches)."""
    try:
        return BY_NAME[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
