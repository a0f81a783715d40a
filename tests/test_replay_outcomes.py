"""Outcomes named right (issue 39, item 7): a fresh worker that crashes or hangs during the
replay of a repro is that crash or hang, with its message, never ``stateful``; no
``nondeterminism`` row shows two equal values (a crash is no value, a call the fault budget
did not make is no answer).  ``audit.collect.replay.judge`` on every combination of calls;
the planted implementations end to end are rows of docs/fault-catalogue.md
(``replay-fresh-crash``, ``impl-crash-second-call``)."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from audit.adapters.base import Outcome
from audit.collect.replay import _text, judge, same

TOL = 1e-9
CRASH = Outcome("crash", None, None, "process died: exit status 3")
HANG = Outcome("timeout", None, None, "no answer within 5 s")
RAISED = Outcome("exception", None, None, "ValueError: no")
SKIPPED = Outcome("crash", None, None, "process died: exit status 3", "skipped")


def value(x: float) -> Outcome:
    return Outcome("value", x, repr(x))


def test_a_fresh_worker_that_crashes_is_a_crash_with_its_message():
    family, detail, outcome = judge(value(12.5), CRASH, CRASH, CRASH, TOL)
    assert (family, outcome) == ("crash", CRASH)
    assert detail == "a fresh worker: process died: exit status 3 (it scored 12.5 in the audit's process)"


def test_a_second_call_that_crashes_in_a_fresh_worker_is_a_crash():
    family, detail, outcome = judge(value(12.5), value(12.5), CRASH, value(12.5), TOL)
    assert (family, outcome) == ("crash", CRASH)
    assert detail.startswith("a second call in a fresh worker: process died: exit status 3")


def test_a_fresh_worker_that_hangs_is_a_timeout():
    assert judge(value(12.5), value(12.5), value(12.5), HANG, TOL)[:1] == ("timeout",)


def test_a_call_not_made_is_no_answer():
    assert judge(value(12.5), SKIPPED, value(12.5), value(12.5), TOL) is None


def test_the_recorded_value_again_is_the_batch_s_state():
    assert judge(value(12.5), value(12.5 + TOL / 2), value(12.5), value(12.5), TOL) is None


def test_state_and_nondeterminism_keep_their_names():
    assert judge(value(12.5), value(50.0), value(50.0), value(50.0), TOL)[0] == "stateful"
    assert judge(value(12.5), value(50.0), value(50.0), value(51.0), TOL)[0] == "nondeterminism"
    family, detail, _ = judge(value(12.5), RAISED, RAISED, RAISED, TOL)
    assert family == "stateful" and "exception (ValueError: no)" in detail  # shown with its message


_OUTCOMES = st.one_of(
    st.sampled_from([CRASH, HANG, RAISED, SKIPPED]),
    # values that differ by less than, about and more than the tolerance, and signed zeros
    st.builds(value, st.sampled_from([0.0, -0.0, 12.5, 12.5 + TOL / 2, 12.5 + 2 * TOL, 12.5000001, 100.0])),
)


@settings(max_examples=300, deadline=None)
@given(recorded=st.sampled_from([value(12.5), value(0.0), RAISED]), calls=st.tuples(_OUTCOMES, _OUTCOMES, _OUTCOMES))
def test_no_row_names_a_failure_as_a_value_or_shows_equal_values(recorded, calls):
    verdict = judge(recorded, *calls, TOL)
    if any(c.presumed for c in calls):
        assert verdict is None
        return
    died = [c for c in calls if c.kind in ("crash", "timeout")]
    if died:
        assert verdict is not None and verdict[0] == died[0].kind and verdict[2] is died[0]
        assert died[0].detail in verdict[1]
        return
    if verdict is not None and verdict[0] == "nondeterminism":
        first, again, other = calls
        pair = (first, other) if not same(first, other, TOL) else (first, again)
        a, b = _text(pair[0]), _text(pair[1])
        assert a != b and a in verdict[1] and b in verdict[1], verdict[1]
