"""Conventions: points of chrF that the usual wording leaves open, each with its readings.

One place names them for the whole project: the reference follows one reading of each (the
one sacreBLEU 2.x follows), ``chrf-audit run`` reports a deviation from a claimed
definition's reading as the catalogued family of the same id, ``chrf-audit stats`` holds a
point estimate to the claimed definition's reading and names the other when an estimate
follows it, and a service contract whose text does not decide a point declares it (with the
readings a service may follow, the report naming the one it follows).

``HYPOTHESIS_NGRAMS_WHERE_REFERENCE_HAS_NONE``: in a segment whose reference has no n-gram
of an order (a one-word reference has no word bigram; a reference of three characters has
no character 4-gram), are the hypothesis n-grams of that order counted in the corpus sums?
sacreBLEU 2.x (``_get_match_statistics``: ``hyp_count if ref_count > 0 else 0``) and
chrF++.py do not count them; "the corpus score sums per-order counts over all segments",
read literally, does.  A sentence score is the same either way (such an order is not
effective); a corpus score is not.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Convention:
    id: str  # the catalogued family of a deviation from a claimed definition's reading
    question: str  # what the point is, as one phrase
    readings: tuple  # ((reading id, its words), ...)

    def words(self, reading: str) -> str:
        return dict(self.readings)[reading]

    def note(self, reading: str) -> str:
        """``question: reading`` -- how every report names the reading followed."""
        return f"{self.question}: {self.words(reading)}"


COUNTED = "counted"
NOT_COUNTED = "not-counted"

HYPOTHESIS_NGRAMS_WHERE_REFERENCE_HAS_NONE = Convention(
    id="hypothesis-ngrams-where-reference-has-none",
    question="hypothesis n-grams of a segment without reference n-grams",
    readings=((NOT_COUNTED, "not counted, as sacreBLEU 2.x"),
              (COUNTED, "counted in the corpus sums, as \"sums per-order counts over all segments\" reads literally")),
)

CONVENTIONS = {c.id: c for c in (HYPOTHESIS_NGRAMS_WHERE_REFERENCE_HAS_NONE,)}

#: the reading each of the reference's definitions follows (sacreBLEU 2.x, its eps variant,
#: chrF++.py: none counts them)
FOLLOWED = {"sacrebleu": NOT_COUNTED, "sacrebleu-eps": NOT_COUNTED, "chrfpp": NOT_COUNTED}


def hypothesis_count(hyp_total: int, ref_total: int, reading: str) -> int:
    """A segment's hypothesis count of one order, as ``reading`` records it."""
    return hyp_total if ref_total or reading == COUNTED else 0
