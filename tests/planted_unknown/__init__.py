"""Planted bugs that no family describes (out of the catalogue): each module is a chrF
implementation with one such bug.  The audit must report each as exactly one finding, named
``unexplained`` or a family in the module's ``TRUTHFUL`` set -- never a wrong name.

Each module has ``BUG`` (what it does), ``LEVEL`` (where it shows), ``CLAIMS``, ``TRUTHFUL``
(family ids that would be a true description, usually none) and ``sentence``/``corpus``.
They are ``tests/planted/base.py``'s correct float chrF with one method overridden.
"""

import pkgutil


def modules() -> list[str]:
    return sorted(m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_"))
