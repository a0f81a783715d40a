"""Naming a deviation from the implementation's own outputs, when a bug that no family
describes changes every score.

Exact confirmation (``audit.diagnose.classify``) asks a model to reproduce the implementation's
numbers; behind an unknown bug it never can, so the catalogued bugs beside it used to go
unnamed.  Two kinds of evidence survive any unknown bug that acts *after* the stage they
test (the score formula, the output, anything the implementation does with its statistics):

* **pairs** (text and layout stages): two inputs whose statistics under a model are
  identical get identical scores from an implementation built that way, whatever it does
  next; inputs whose statistics differ get (almost always) different scores.  Each pair is
  an input and a small edit of it (a whitespace character inserted, the case changed, a
  reference dropped, ...).  A stage variant is named when the implementation treats the
  pairs as equal or different exactly as the variant says and the model fitted so far does
  not;
* **identities** (reference selection, corpus aggregation): the score of an input is a
  fixed function of the implementation's own scores of its parts: the first reference's,
  the mean over references, the mean over segments.

Pure computation over the models; the implementation is reached through ``score_many``.
Everything is drawn from the trigger pools (``audit.diagnose.deviations.triggers``), so the evidence
is the same on every run.
"""

from __future__ import annotations

from .evidence import RelationalFit
from .identities import fit_identities
from .pairs import fit_text_fields

__all__ = ["RelationalFit", "fit_identities", "fit_text_fields"]
