"""Naming a score-stage deviation from the implementation's own outputs, when a bug that no
family describes changes every score.

Exact confirmation (``audit.diagnose.judge``) asks a model to reproduce the implementation's
numbers; behind an unknown bug it never can.  An *identity* survives such a bug when the bug
acts on each part alike: the score of an input is a fixed function of the implementation's own
scores of its parts -- the mean over its references, the mean over its segments (plain, or
weighted by length) -- which is an exact prediction that could fail, and is accepted only
where the rival identities (the first part alone, the other means) fail.

(Pairs of inputs that a stage variant makes equal or different used to name text-stage
deviations too; a pair can only *suggest* a family, never tell it from its rivals, so they are
no longer drawn: issue 30.)

Pure computation over the models; the implementation is reached through ``score_many``.
Everything is drawn from the trigger pools (``audit.diagnose.deviations.triggers``), so the
evidence is the same on every run.
"""

from __future__ import annotations

from .evidence import RelationalFit
from .identities import fit_identities

__all__ = ["RelationalFit", "fit_identities"]
