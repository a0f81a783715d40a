"""What a relational fit names and how much evidence it needs (shared by pairs and identities)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional


#: Pairs (or identity inputs) a variant must get right where the fitted model gets them
#: wrong, how many of its "different" predictions may come out equal (an unknown bug that
#: caps or rounds scores can merge two different scores), and how many of its "equal" ones
#: different (an unknown bug of a later stage cannot split equal statistics; one of an
#: earlier stage can).
MIN_DECISIVE = 5
WEAK_SHARE = 0.2
STRONG_SHARE = 0.05
INPUTS_PER_FAMILY = 8


@dataclass
class RelationalFit:
    """A deviation named by relations: its family, its model change, and the evidence."""

    family: str
    stage: str  # "text" | "score"
    field: str
    value: object
    agreed: int  # pairs / identities the variant gets right
    total: int
    model_wrong: int  # of them, how many the model fitted before gets wrong
    example: list  # an input on which the deviation matters (segment list)
    partner: Optional[list] = None  # the pair's other input (pairs only)
    #: the evidence as a predicate on one input (segment list -> bool), to reduce the example
    holds: Optional[Callable] = None
    #: the input to report for a (reduced) example: the edited one, which holds the characters
    #: the deviation is about (text edits), or the example itself (layouts, identities)
    shown: Callable = lambda segs: segs

    @property
    def evidence(self) -> str:
        what = "input pairs as equal or different" if self.partner is not None else "inputs by the same identity"
        return (f"relations: the implementation scores {self.agreed} of {self.total} {what} exactly as this "
                f"deviation says, where the model fitted before it gets {self.model_wrong} wrong")

