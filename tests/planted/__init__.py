"""Planted-bug chrF implementations: one module per family id ('-' -> '_'), plus correct ones.

Each module exposes ``sentence(hypothesis, references) -> float`` and/or
``corpus(hypotheses, references_per_segment) -> float`` on the 0..100 scale, and the
module-level ``FAMILY`` (the family id it plants; None for the correct ones), ``LEVEL``
("sentence" or "corpus": where the bug shows) and ``CLAIMS`` (the parameters it claims).
See README.md for the table of modules, families and triggering inputs.
"""

import importlib
import pkgutil


def modules() -> list[str]:
    """Names of all planted and correct implementation modules (not ``base``)."""
    return sorted(m.name for m in pkgutil.iter_modules(__path__) if m.name != "base")


def planted() -> dict[str, object]:
    """family id -> module, for every planted bug."""
    out = {}
    for name in modules():
        mod = importlib.import_module(f"{__name__}.{name}")
        if getattr(mod, "FAMILY", None):
            out[mod.FAMILY] = mod
    return out
