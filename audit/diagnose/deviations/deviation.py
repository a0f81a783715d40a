"""One entry of the deviation registry (``Deviation``): what chrf-audit knows about a family."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Mapping, Optional


def always(params, level: str, nrefs: int, nsegs: int) -> bool:
    return True


@dataclass(frozen=True, kw_only=True)
class Deviation:
    """One family, declared once with named fields (keyword-only: no positional tuples): its
    stage variant (``stage`` and ``models``, the fields of ``audit.diagnose.variants``' classes
    it sets), when it applies, the trigger inputs that confirm it, the sweep reports draw, and
    the line of each library's source that causes it (``roots``)."""

    id: str
    title: str
    #: "text" (changes the integer statistics), "score" (a function of the statistics),
    #: "output" (the final number), "outcome" (no number, or a property of calls),
    #: "metamorphic" (a relation between two calls), "unexplained".
    stage: str
    #: Alternative exact models, each one (field, value) of the stage's variant class;
    #: several when the family has variants (NFC/NFD/..., orders off by one either way).
    models: tuple = ()
    #: (params, level, nrefs, nsegs) -> does the model apply to such an input?
    applies: Callable = always
    #: Name of the trigger generator (``triggers.GENERATORS``) that draws held-out inputs.
    trigger: Optional[str] = None
    #: Name of the scope sweep (``audit.upstream.sweeps``), None: no sweep.
    sweep: Optional[str] = None
    #: upstream library -> (regex on one line of its installed source, what that line shows)
    roots: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    #: (params, (field, value)) -> does this one model apply (None: all of them do)?
    model_filter: Optional[Callable] = None
    #: The nearest rival mechanisms: ids of other families or of ``Rival`` entries whose models
    #: could explain what this family explains.  A name is earned only where the family's own
    #: trigger inputs (its *distinguishing* inputs: the generator above draws inputs on which
    #: it differs from these rivals) tell it from each of them (``audit.diagnose.judge``).
    #: The relation is symmetric: declaring B a rival of A makes A a rival of B.
    rivals: tuple = ()


@dataclass(frozen=True, kw_only=True)
class Rival:
    """A mechanism no family names but real code has, declared so that a family it mimics
    is not named where it could be this instead (a ``\\w+|[^\\w\\s]`` tokeniser for the word
    families, a dropped incomplete batch for the corpus families).  Its models are fields of
    ``audit.diagnose.variants``' classes, like a family's."""

    id: str
    title: str
    stage: str  # "text" | "score"
    models: tuple = ()
