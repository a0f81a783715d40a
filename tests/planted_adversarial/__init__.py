"""Adversarial planted implementations (issue 30): each is built to fool one rule of naming --
the rival mechanism a family's evidence must rule out, written in a style unlike the
project's other planted code -- and has several bugs at once.  Held-out material: the rules
(``audit.diagnose.judge``, the registry's rivals and distinguishing inputs) were not tuned on
these modules; ``tests/test_precision_rules.py`` audits them and
``benchmarks/precision.py`` measures them beside the other planted sets.

Each module follows ``tests/planted_multibug``'s conventions (``CLAIMS``, ``BUGS``,
``UNCATALOGUED``, ``ALLOWED``, ``PERVASIVE``, ``WITNESSES``, ``_make``, ``sentence``,
``corpus``; ``tests/test_planted_multibug_material.py`` checks both packages), plus
``FOOLS``: the family (or rule) it is built to be wrongly named as, and why it could be.
"""

import pkgutil


def modules() -> list[str]:
    """The implementation modules' names (``tests.planted_adversarial.<name>``)."""
    return sorted(m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_"))
