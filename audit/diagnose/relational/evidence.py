"""What an identity fit names and how much evidence it needs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

#: Inputs on which a variant's identity must hold where the fitted model's prediction
#: differs; inputs drawn per family.
MIN_DECISIVE = 5
INPUTS_PER_FAMILY = 8


@dataclass
class RelationalFit:
    """A deviation named by an identity: its family, its model change, and the evidence."""

    family: str
    stage: str  # "score"
    field: str
    value: object
    agreed: int  # inputs on which the identity holds
    total: int
    model_wrong: int  # of them, how many the model fitted before gets wrong
    example: list  # an input on which the deviation matters (segment list)
    #: the evidence as a predicate on one input (segment list -> bool), to reduce the example
    holds: Optional[Callable] = None
    #: the input to report for a (reduced) example
    shown: Callable = lambda segs: segs
    #: the rival identities refuted on the same inputs
    rivals: tuple = ()

    @property
    def evidence(self) -> str:
        told = f"; {', '.join(self.rivals)} would give other scores" if self.rivals else ""
        return (f"the implementation's score of {self.agreed} of {self.total} inputs is exactly this identity of "
                f"its own scores of their parts, where the model fitted before it gets {self.model_wrong} "
                f"wrong{told}")
