"""The differential runner: audits each implementation level by level, one independent unit
per (implementation, level) (``audit.collect.unit``), in parallel processes when asked
(``jobs``, ``audit.collect.parallel``).

A unit has its own checker (so its own classifier memory) and its own seeds derived from the
user's seed, and nothing in it reads the clock: the findings of a unit are the same whether
it runs alone, after other units, in this process or in another (``--jobs 1`` and
``--jobs N`` give identical results), and on a machine of any speed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Optional, Union

from ..findings import AdapterSummary, AuditResult
from ..settings import options
from ..settings.hypothesis_profiles import private_storage
from ..settings.hypothesis_profiles import resolve as resolve_profile
from .cases import save_findings_as_cases
from .parallel import run_units
from .search import Progress

__all__ = ["run_audit"]


def run_audit(adapters, *, seed: int = options.default("seed"), max_examples: Optional[int] = None,
              tolerance: float = options.default("tolerance"),
              cases_dir: Optional[Path] = options.default("cases"), save_cases: Union[bool, Path] = False, derandomize: bool = False,
              progress: Optional[Callable[[Progress], None]] = None,
              on_summary: Optional[Callable[[AdapterSummary], None]] = None, jobs: int = 1,
              hypothesis_profile: Optional[str] = None) -> AuditResult:
    """Audit the adapters (stable entry point of the Python API).

    The search is always seeded from ``seed`` (``derandomize`` is accepted for compatibility:
    it changes nothing).  ``jobs`` > 1 runs the (implementation, level) units in that many
    processes, each re-creating its adapter from ``adapter.spec`` (given by
    ``audit.adapters.resolve``); adapters without a spec are audited here.  The findings do
    not depend on ``jobs``.  The pool starts processes with ``spawn``: a script that passes
    ``jobs`` > 1 needs the ``if __name__ == "__main__":`` guard.  ``on_summary`` is called as soon as each implementation is done
    (the CLI starts patch verification then).

    ``hypothesis_profile`` names the Hypothesis settings profile (default ``chrf-audit``, see
    ``audit.settings.hypothesis_profiles``); ``max_examples=None`` takes that profile's budget.  No
    ``./.hypothesis`` is left in the current directory.

    ``cases_dir``: the regression cases replayed first (default: the option table's,
    ``./cases`` when it exists, else chrf-audit's curated cases; None: none).  ``save_cases``:
    True saves each finding's minimal repro into ``cases_dir``; a directory, into that
    directory (the CLI saves into ``./cases``).
    """
    profile = resolve_profile(hypothesis_profile)
    if max_examples is None:
        from ..settings import limits

        max_examples = profile.max_examples
        limits.check_examples(max_examples, f"max_examples of the Hypothesis profile {profile.name!r}")
    cases_dir = options.replayed(cases_dir)
    result = AuditResult(seed=seed, max_examples=max_examples, tolerance=tolerance)
    unit_options = dict(seed=seed, max_examples=max_examples, tolerance=tolerance, cases_dir=cases_dir, profile=profile)
    with private_storage():
        result.adapters = run_units(list(adapters), unit_options, jobs=jobs, progress=progress, on_summary=on_summary)
    target = cases_dir if save_cases is True else save_cases or None  # a directory: saved there instead
    if target is not None:
        save_findings_as_cases(result, Path(target))
    return result
