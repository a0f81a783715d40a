"""``SegmentStats``: the integer sufficient statistics of one segment (or a sum of them).

Its own module so that scoring (statistics -> score) and counting (text -> statistics)
both depend on it and not on each other.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence


@dataclass(frozen=True, slots=True)
class SegmentStats:
    """Per-order counts of one segment (or of a sum of segments).

    ``hyp[i]`` is recorded as 0 where ``ref[i]`` is 0: a hypothesis n-gram of an order the
    reference lacks is not counted (sacreBLEU and chrF++.py both do this).
    """

    hyp: tuple[int, ...]
    ref: tuple[int, ...]
    match: tuple[int, ...]

    def __add__(self, other: "SegmentStats") -> "SegmentStats":
        if not isinstance(other, SegmentStats):
            return NotImplemented
        return SegmentStats(
            tuple(map(int.__add__, self.hyp, other.hyp)),
            tuple(map(int.__add__, self.ref, other.ref)),
            tuple(map(int.__add__, self.match, other.match)),
        )

    def flat(self) -> tuple[int, ...]:
        """sacreBLEU's layout: [H1, R1, M1, H2, R2, M2, ...]."""
        out: list[int] = []
        for h, r, m in zip(self.hyp, self.ref, self.match):
            out += (h, r, m)
        return tuple(out)

    @classmethod
    def from_flat(cls, flat: Sequence[int]) -> "SegmentStats":
        flat = [int(x) for x in flat]
        if len(flat) % 3:
            raise ValueError("flat statistics must hold 3 integers per order")
        return cls(tuple(flat[0::3]), tuple(flat[1::3]), tuple(flat[2::3]))

    @classmethod
    def zeros(cls, order: int) -> "SegmentStats":
        z = (0,) * order
        return cls(z, z, z)


def sum_stats(stats: Iterable[SegmentStats], order: int) -> SegmentStats:
    """Elementwise sum; the zero statistics when ``stats`` is empty."""
    hyp = [0] * order
    ref = [0] * order
    match = [0] * order
    for s in stats:
        for i in range(order):
            hyp[i] += s.hyp[i]
            ref[i] += s.ref[i]
            match[i] += s.match[i]
    return SegmentStats(tuple(hyp), tuple(ref), tuple(match))
