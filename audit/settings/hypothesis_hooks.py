"""Every private Hypothesis hook chrf-audit uses, in this one module (issue 34 item 4).

The public API does most of the job: ``settings`` (budget, phases, ``database=``,
``derandomize``, deadline, health checks), ``@seed``, ``target``, ``InMemoryExampleDatabase``.
What it cannot do is below, each hook with why; tests/test_hypothesis_hooks.py fails loudly
when a hook no longer exists or no longer takes effect, and pyproject.toml bounds Hypothesis
to the tested releases (constraints.txt pins the one CI runs).

* ``no_wall_clock``: Hypothesis stops shrinking after ``engine.MAX_SHRINKING_SECONDS`` of
  wall-clock time (lifted: a repro must not depend on the machine's speed), and mixes into
  generation the constants it mines from the "local" modules in ``sys.modules``
  (``providers._get_local_constants``; pinned to none: the inputs drawn for one seed changed
  with what the process had imported and where the package is installed).
* ``current_choices``: the choice sequence of the example being run
  (``current_build_context().data.choices``), recorded so that the shrink run starts from it.
* ``choices_to_bytes``: the database's encoding of a choice sequence.
* ``use_database``: ``@seed`` turns a test's database off; the shrink run needs its in-memory
  one (the recorded examples live there), under a key of ours, as ``hypothesis.find`` does.
* ``home_chosen``: whether a Hypothesis home directory was set (not the default), read from
  ``hypothesis.configuration`` (``private_storage`` leaves a chosen home alone).
"""

from __future__ import annotations

import contextlib
import math

__all__ = ["no_wall_clock", "current_choices", "choices_to_bytes", "use_database", "home_chosen"]

_UNSET = object()


@contextlib.contextmanager
def no_wall_clock():
    """Make the Hypothesis runs inside depend on the seed and the budget alone (see above)."""
    from hypothesis.internal.conjecture import engine, providers

    old_seconds = engine.MAX_SHRINKING_SECONDS  # gone: an AttributeError, not a silent no-op
    old_constants = providers._get_local_constants
    cache = getattr(getattr(providers, "CONSTANTS_CACHE", None), "cache", None)
    engine.MAX_SHRINKING_SECONDS = math.inf
    none = providers.Constants()
    providers._get_local_constants = lambda: none
    if cache is not None:
        cache.clear()  # it holds the local constants computed before
    try:
        yield
    finally:
        engine.MAX_SHRINKING_SECONDS = old_seconds
        providers._get_local_constants = old_constants
        if cache is not None:
            cache.clear()


def current_choices() -> tuple:
    """The choices drawn so far by the example being run (inside a ``@given`` test)."""
    from hypothesis.control import current_build_context

    return tuple(current_build_context().data.choices)


def choices_to_bytes(choices) -> bytes:
    from hypothesis.database import choices_to_bytes as encode

    return encode(choices)


def use_database(test, database, key: bytes):
    """``test`` (a ``@given`` test, after ``@seed``) reads its examples from ``database``
    under ``key`` (its reuse phase replays ``key + b".secondary"`` too)."""
    from hypothesis import settings

    test._hypothesis_internal_use_settings = settings(test._hypothesis_internal_use_settings, database=database)
    test._hypothesis_internal_database_key = key
    return test


def home_chosen() -> bool:
    """Whether Hypothesis's home directory was set to anything but its default."""
    from hypothesis import configuration as conf

    previous = getattr(conf, "__hypothesis_home_directory", _UNSET)
    default = getattr(conf, "__hypothesis_home_directory_default", None)
    return previous not in (None, _UNSET, default)


def home_directory():
    """The home directory set (None: Hypothesis's default applies), to restore it."""
    from hypothesis import configuration as conf

    return getattr(conf, "__hypothesis_home_directory", None)
