"""Classification of a divergence: the smallest set of known deviations (``audit.models``)
that reproduces the implementation's output, confirmed on perturbed copies of the input and
disambiguated by fixed probes sent to the implementation.
"""

from __future__ import annotations

from typing import Optional

from .models import explain, extends, reproduces


def score_segments(adapter, level: str, segments) -> Optional[float]:
    """The implementation's score of ``segments`` at ``level`` (None when it gave no number)."""
    if level == "sentence":
        out = adapter.sentence_scores([segments[0]])[0]
    else:
        out = adapter.corpus_scores([([h for h, _ in segments], [list(rs) for _, rs in segments])])[0]
    return out.value if out.kind == "value" else None


class Classifier:
    """Remembers, per implementation, confirmed explanations (hints), confirmation counts and
    resolved ambiguities, so that an audit pays for each once."""

    def __init__(self, tolerance: float):
        self.tolerance = tolerance
        self._resolved: dict = {}
        self._confirmations: dict = {}
        self._hints: dict = {}

    def classify(self, adapter, level, segments, params, actual):
        """The smallest explanation that also holds on perturbed copies of the input."""
        scale, tol = adapter.claims.scale, self.tolerance
        perturbed = [
            [(h + "xy", refs) for h, refs in segments],
            [(h, [r + "qz" for r in refs]) for h, refs in segments],
            [("a" + h, ["a" + r for r in refs]) for h, refs in segments],
        ]
        answers: dict[int, Optional[float]] = {}

        def confirmed(c) -> bool:
            # A coincidence on one input does not survive a perturbed copy.  A true but
            # partial explanation (the input did not need the implementation's other
            # deviations) does, with at most two more deviations.  A family set confirmed
            # on three inputs is a property of the implementation: trust it from then on.
            key = (repr(adapter.claims), level, tuple(c.families))
            if self._confirmations.get(key, 0) >= 3:
                return True
            for i, p in enumerate(perturbed):
                if i not in answers:
                    answers[i] = score_segments(adapter, level, p)
                if answers[i] is not None and not extends(c, p, params, level, answers[i], scale, tol, extra=1):
                    return False
            self._confirmations[key] = self._confirmations.get(key, 0) + 1
            return True

        hints = self._hints.setdefault((repr(adapter.claims), params.definition, level), {})
        for candidates in explain(segments, params, level, actual, tol, scale, hints=list(hints.values())):
            survivors = [c for c in candidates if confirmed(c)]
            if len(survivors) > 1:
                survivors = self._disambiguate(adapter, level, params, survivors)
            if survivors:
                hints.setdefault(tuple(survivors[0].families), survivors[0].variant)
                return survivors[0]
        return None

    #: Fixed probes that tell apart explanations agreeing on the input at hand: whitespace
    #: sets, case mappings, normalization, code units, punctuation, case.  Every text is
    #: longer than the default order, so that a probe does not also trip the divisor (but
    #: the last, which has no n-gram at all).
    PROBES = [
        ("abc\tdefgh", "abcdefgh"), ("abc\xa0defgh", "abcdefgh"), ("abc\x1cdefgh", "abcdefgh"),
        ("abc\x85defgh", "abcdefgh"), ("abc\u3000defgh", "abcdefgh"), ("abc\u200bdefgh", "abcdefgh"),
        ("abc defgh", "abcdefgh"), ("stra\xdfe", "strasse"), ("\ufb01nding", "finding"),
        ("caf\xe9snob", "cafe\u0301snob"), ("a\U0001F600b\U0001F600cdef", "a\U0001F600b\U0001F600cdefg"),
        ("\u0130stanbul", "i\u0307stanbul"), ("the end.", "the end ."), ("(hi) there", "( hi ) there"),
        ("ABCDEFG", "abcdefg"),
        # empty against empty: 0 by every definition; tells an empty-input rule apart from
        # reference-selection deviations that pick the empty reference's statistics
        ("", ""),
    ]

    def _disambiguate(self, adapter, level, params, candidates):
        """Keep the explanations the implementation itself confirms on the fixed probes.

        The verdict is about the implementation, not the input, so it is cached by the
        competing explanations: an audit probes each ambiguity once.
        """
        key = (repr(adapter.claims), tuple(tuple(c.families) for c in candidates))
        if key not in self._resolved:
            scale, tol = adapter.claims.scale, self.tolerance
            alive = list(candidates)
            for h, r in self.PROBES:
                if len(alive) == 1:
                    break
                segments = [(h, [r])]  # one segment: corpus aggregation plays no part
                actual = score_segments(adapter, level, segments)
                if actual is None:
                    continue
                consistent = [c for c in alive if reproduces(c, segments, params, level, actual, scale, tol)]
                if not consistent:  # the probe shows a further deviation: allow for it
                    consistent = [c for c in alive if extends(c, segments, params, level, actual, scale, tol)]
                if consistent:
                    alive = consistent
            self._resolved[key] = [tuple(c.families) for c in alive]
        winners = self._resolved[key]
        return [c for c in candidates if tuple(c.families) in winners]

