"""Impact of an implementation's deviations on system-level conclusions.

Two users, one computation:

* ``chrf-audit impact`` (``audit.commands.impact``) compares the reference's and an
  implementation's corpus scores, rankings and pairwise significance calls on the files it
  is given: ``compare.run_impact``, with the implementation's side in ``implementation``;
* ``chrf-audit run --impact-data DIR`` adds, for each implementation with findings, a study
  of the same comparison on a real corpus plus an exact per-family attribution:
  ``study.study`` (which uses ``compare`` and ``attribution``).

Modules: ``data`` reads segment files, ``progress`` is the progress protocol, ``compare``
the comparison, ``implementation`` the adapter calls, ``attribution`` the exact bug models
per family, ``study`` the study and its report record.  No module reaches into another's
private names (a test holds this); the names below are the package's public interface.
"""

from __future__ import annotations

from .attribution import MODEL_TOLERANCE, PROFILE_CACHE_LIMIT, attribute_families, family_model, merge_models, order_flips
from .compare import (SCHEMA_VERSION, ImpactResult, PairCall, SystemImpact, change_of, pair_call, ranks,
                      reference_corpus_results, run_impact)
from .data import load_impact_data, load_system_files, system_names
from .implementation import DECOMPOSABLE_TOLERANCE, corpus_outcomes, outcome_value, segment_scores
from .progress import NoSteps, Steps
from .study import STUDY_KIND, STUDY_VERSION, closest_systems, skipped_record, study, study_record, verdict

__all__ = [
    "DECOMPOSABLE_TOLERANCE", "MODEL_TOLERANCE", "PROFILE_CACHE_LIMIT", "SCHEMA_VERSION", "STUDY_KIND",
    "STUDY_VERSION", "ImpactResult", "NoSteps", "PairCall", "Steps", "SystemImpact", "attribute_families",
    "change_of", "closest_systems", "corpus_outcomes", "family_model", "load_impact_data", "load_system_files",
    "merge_models", "order_flips", "outcome_value", "pair_call", "ranks", "reference_corpus_results",
    "run_impact", "segment_scores", "skipped_record", "study", "study_record", "system_names", "verdict",
]
