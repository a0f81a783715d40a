"""The Hypothesis settings chrf-audit searches with: three named settings profiles that users
select and override, and the settings the search's determinism forces whatever a profile says.

Profiles (``hypothesis.settings`` profiles, registered when this module is imported, each only
if no profile of that name is registered yet: a ``conftest.py`` that registers one first keeps
its own, and one registered later replaces chrf-audit's, as ``register_profile`` always does)::

    profile          max_examples  verbosity  for
    chrf-audit       100           quiet      the default of run, check, validate-patch and the plugin
    chrf-audit-ci    300           quiet      a CI job with time for a deeper search
    chrf-audit-dev   25            verbose    a quick edit-and-rerun loop that shows every input

Selected with ``--hypothesis-profile NAME`` (run, check, validate-patch), ``hypothesis-profile`` in
``[tool.chrf-audit]``, ``--chrf-audit-hypothesis-profile`` / ``hypothesis_profile=`` (pytest
plugin) or ``run_audit(hypothesis_profile=...)``; any registered profile may be named.

What chrf-audit reads from the selected profile (``TUNABLE``):

* ``max_examples``: the budget per (implementation, level) when neither ``--max-examples`` nor
  the configuration's ``max-examples`` gives one (the budget decides the findings: write a
  baseline with the profile the gate uses);
* ``verbosity``: ``verbose`` prints every input tried, ``debug`` the engine's steps too;
  ``quiet`` and ``normal`` print nothing (the probes never let a failure reach Hypothesis's
  reporter: the generate phase records divergences, the shrink runs catch theirs);
* ``suppress_health_check``: health checks suppressed on top of ``ALWAYS_SUPPRESSED``.

What chrf-audit forces (``forced_settings``), because the findings must depend on the seed and
the budget alone: see the comments there.  ``print_blob`` is not read: Hypothesis attaches the
``@reproduce_failure`` blob only to an error reported to the user, and chrf-audit's repro is
the shrunk input itself.  A resolved profile (``SearchProfile``) is plain data, so the units
audited in pool processes use the profile the parent resolved (a profile registered in the
parent's ``conftest.py`` reaches them).
"""

from __future__ import annotations

import contextlib
import inspect
import os
from dataclasses import dataclass
from typing import Optional

from hypothesis import HealthCheck, Verbosity, settings

from . import options
from ..errors import UsageError

DEFAULT_PROFILE = "chrf-audit"
PROFILES = {
    "chrf-audit": dict(max_examples=options.PROFILE_BUDGETS["chrf-audit"], verbosity=Verbosity.quiet),
    "chrf-audit-ci": dict(max_examples=options.PROFILE_BUDGETS["chrf-audit-ci"], verbosity=Verbosity.quiet),
    "chrf-audit-dev": dict(max_examples=options.PROFILE_BUDGETS["chrf-audit-dev"], verbosity=Verbosity.verbose),
}
TUNABLE = ("max_examples", "verbosity", "suppress_health_check")

#: Health checks suppressed whatever the profile says, each with why.  The others are on:
#: data_too_large, filter_too_much and large_base_example depend on the seed and the
#: strategies alone (none fires on chrf-audit's strategies: tests/test_hypothesis_profiles.py);
#: function_scoped_fixture and differing_executors concern @given test functions and methods,
#: which the probes are not; nested_given is judged by Hypothesis against the *outer* @given's
#: settings (calling chrf-audit inside your own @given test): suppress it there.
ALWAYS_SUPPRESSED = {
    HealthCheck.too_slow: "it compares the wall-clock time of the first inputs' generation with "
                          "a limit, so whether it fires depends on the machine and its load: the "
                          "same seed would give an audit on one machine and an error on another",
}


class HealthCheckFailed(UsageError):
    """A Hypothesis health check failed during the search: one line, exit 2."""


def register() -> None:
    """Register chrf-audit's profiles, each only where no profile of that name exists yet.
    The first registration may happen inside a user's @settings test (the plugin imports this
    module on first use), where Hypothesis warns about registering: not a user mistake."""
    import warnings

    from hypothesis.errors import HypothesisDeprecationWarning

    for name, values in PROFILES.items():
        try:
            settings.get_profile(name)
        except Exception:  # InvalidArgument: not registered
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", HypothesisDeprecationWarning)
                settings.register_profile(name, **_independent(), **values)


def _independent() -> dict:
    """Hypothesis's own defaults for the settings the profiles leave out, so that a profile
    does not inherit whatever profile was loaded when it was registered (Hypothesis loads its
    "ci" profile, derandomize=True, when the CI variable is set)."""
    return dict(suppress_health_check=(), print_blob=False, derandomize=False, deadline=None)


@dataclass(frozen=True)
class SearchProfile:
    """What the search reads of a profile, resolved in the process that starts the audit."""

    name: str = DEFAULT_PROFILE
    max_examples: int = options.BUDGET
    verbosity: str = "quiet"  # a Verbosity name
    suppress_health_check: tuple = ()  # HealthCheck names, beyond ALWAYS_SUPPRESSED


def resolve(name: Optional[str] = None) -> SearchProfile:
    """The profile ``name`` (default ``chrf-audit``) as plain data; UsageError when no such
    profile is registered."""
    from .option import profile_name

    register()
    name = profile_name(DEFAULT_PROFILE if name is None else name, "--hypothesis-profile")
    try:
        s = settings.get_profile(name)
    except Exception:
        raise UsageError(f"unknown Hypothesis profile {name!r} (chrf-audit's: {', '.join(PROFILES)}; or one "
                         f"registered with hypothesis.settings.register_profile before the audit)") from None
    return SearchProfile(name=name, max_examples=int(s.max_examples), verbosity=s.verbosity.name,
                         suppress_health_check=tuple(sorted(h.name for h in s.suppress_health_check
                                                            if h not in ALWAYS_SUPPRESSED)))


_BACKEND = "backend" in inspect.signature(settings.__init__).parameters


def forced_settings(profile: Optional[SearchProfile], *, max_examples: int, phases, database,
                    report_multiple_bugs: bool = True) -> settings:
    """The settings of one probe: the profile's tunable values and chrf-audit's forced ones.
    Every setting is given, so none is inherited from the profile loaded at the time."""
    profile = profile or SearchProfile()
    suppressed = set(ALWAYS_SUPPRESSED) | {HealthCheck[n] for n in profile.suppress_health_check}
    kw = dict(
        max_examples=max_examples,  # a pass's share of the budget (audit.collect.runner)
        verbosity=Verbosity[profile.verbosity],
        suppress_health_check=sorted(suppressed, key=lambda h: h.name),
        # Forced.  derandomize would replace chrf-audit's per-unit seed (derived from --seed)
        # with a hash of the probe function: --seed would change nothing.
        derandomize=False,
        # None while generating (a database would replay what earlier runs saved, so findings
        # would depend on history), an in-memory one holding the recorded examples to shrink.
        database=database,
        # generate+target, then reuse+shrink: the two-phase search (audit.collect.search).
        phases=phases,
        # A deadline fails an input whose call was slow: findings would depend on the clock.
        # Slow calls are the adapters' --timeout's business.
        deadline=None,
        # A shrink run shrinks one key: the first failure is the one.
        report_multiple_bugs=report_multiple_bugs,
        print_blob=False,
        stateful_step_count=50,
    )
    if _BACKEND:
        kw["backend"] = "hypothesis"  # other backends (crosshair) do not follow the seed
    return settings(**kw)


# -- ./.hypothesis -----------------------------------------------------------------------------
@contextlib.contextmanager
def private_storage():
    """Hypothesis writes its caches (the Unicode table, mined constants) under ``./.hypothesis``
    even with ``database=None``, so every audit left that directory in the user's current
    directory.  Inside this context they go to a temporary directory (removed afterwards);
    Hypothesis's previous home is restored on exit, so the user's own Hypothesis tests keep
    their example database.  A home the user chose (``HYPOTHESIS_STORAGE_DIRECTORY``, or
    ``set_hypothesis_home_dir`` to anywhere but the default) is left alone."""
    try:
        from hypothesis import configuration as conf
    except ImportError:  # pragma: no cover
        yield
        return
    from .hypothesis_hooks import home_chosen, home_directory

    previous = home_directory()
    if home_chosen() or os.environ.get("HYPOTHESIS_STORAGE_DIRECTORY") or not hasattr(conf, "set_hypothesis_home_dir"):
        yield
        return
    from ..processes import scratch

    home = scratch.make("chrf-audit-hypothesis-")  # a killed run's is removed here
    conf.set_hypothesis_home_dir(home)
    try:
        yield
    finally:
        conf.set_hypothesis_home_dir(previous)
        scratch.release(home)


register()
