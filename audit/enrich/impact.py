"""The impact study as an enrich fact (``--impact-data``): what each implementation's findings
do to real systems' corpus scores, ranks and significance calls (``audit.impact.study``).

Computed with the audit's own adapters (not resolved a second time): the command keeps them
open until the enrich stage is done, and the study raises their per-call timeout to the
generous ``--impact-timeout`` (a corpus of thousands of segments is one call).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

from ..settings import options


@dataclass(frozen=True)
class ImpactRequest:
    """What ``--impact-data`` asks for (checked by the command before the audit)."""

    data: Path
    systems: Optional[int] = None  # study only the N closest systems (None: all)
    resamples: int = options.RESAMPLES
    alpha: float = options.ALPHA
    timeout: float = options.default("impact_timeout")
    seed: int = options.default("seed")


def impact_studies(result, adapters: list, request: ImpactRequest, *, steps: Optional[Callable] = None,
                   say: Callable[[str], None] = lambda line: None) -> dict:
    """implementation -> its study record (``skipped_record`` for one without findings).
    ``steps()``: a fresh progress display per study; ``say(line)``: one line per study done."""
    import time

    from ..impact import NoSteps, load_impact_data, skipped_record, study

    systems, references = load_impact_data(request.data)
    out: dict = {}
    by_name = {a.name: a for a in adapters}
    cache: dict = {}
    for summary in result.adapters:
        if not summary.findings:
            out[summary.implementation] = skipped_record(
                summary.implementation, "no finding, so its scores are the reference's on this data")
            continue
        adapter = by_name.get(summary.implementation)
        if adapter is None:
            out[summary.implementation] = skipped_record(summary.implementation, "no adapter to score the data with")
            continue
        adapter.raise_timeout(request.timeout)
        families = list(dict.fromkeys(f.family for f in summary.findings))  # a family may show at both levels
        start = time.perf_counter()
        progress = steps() if steps else NoSteps()
        with progress:
            rec = study(adapter, families, systems, references, data=str(request.data), n_systems=request.systems,
                        resamples=request.resamples, alpha=request.alpha, seed=request.seed, steps=progress,
                        reference_cache=cache)
        out[summary.implementation] = rec
        say(f"impact of {adapter.name} on {rec['systems_studied']} of {rec['systems_total']} systems "
            f"({time.perf_counter() - start:.1f} s): {rec['verdict']}")
    return out
