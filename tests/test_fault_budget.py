"""A fault of the implementation costs seconds, not minutes (issue 29 item 6, issue 30 item 6):
the fault budget (``audit.adapters.faults``) stops restarting a worker or a program that
faults on every call, waits a limit derived from the implementation's own answers after its
first hang, and never reports as evidence a call it did not make.

Nothing here reads the clock to decide: the assertions are on what was called, restarted and
reported (counts), never on how long it took.  Hang detection uses generous timeouts.
"""

from __future__ import annotations

import sys
import textwrap

import pytest

from audit.adapters import faults, resolve
from audit.adapters.faults import IN_A_ROW, NOTE, PROBE_GAP, SKIPPED, UNCONFIRMED, FaultBudget
from audit.collect.runner import run_audit

MODULE = textwrap.dedent("""
    import os, time
    from reference_impl import sentence_score

    def crash(h, r):
        os._exit(3)

    def hang(h, r):
        time.sleep(1000)

    def hang_long(h, r):
        # correct, but hangs on a hypothesis of three characters or more
        if len(h) >= 3:
            time.sleep(1000)
        return float(sentence_score(h, list(r)).score)

    def crash_on_empty(h, r):
        if not h:
            os._exit(4)
        return float(sentence_score(h, list(r)).score)
""")


@pytest.fixture
def planted(tmp_path, monkeypatch):
    (tmp_path / "faulty.py").write_text(MODULE)
    (tmp_path / "cases").mkdir()
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _items(n):
    return [(f"h{i}", ["ref"]) for i in range(n)]


# ------------------------------------------------------------------------- the line, alone


class _Fake:
    """An implementation that faults on every call, as ``attempt`` sees it: counts calls."""

    def __init__(self, result=("crash", "process died: exit status 3")):
        self.result, self.calls = result, []

    def __call__(self, sub, limit):
        self.calls.append((sub[0], limit))
        return [(self.result, False, 0.0)]


def test_a_line_stops_calling_after_three_faults_in_a_row_and_probes_with_growing_gaps():
    line = FaultBudget(5.0).line(("b", "sentence"))
    fake = _Fake()
    keys = [str(i) for i in range(40)]
    out = line.run(list(range(40)), keys, fake)
    called = [item for item, _ in fake.calls]
    # three in a row, then a probe after PROBE_GAP skipped calls, the next after PROBE_GAP**2
    assert called == [0, 1, 2, 3 + PROBE_GAP, 4 + PROBE_GAP + PROBE_GAP ** 2]
    assert [r[0] for r in out] == ["crash"] * 40
    assert [faults.presumed(r) for r in out] == ["" if i in called else SKIPPED for i in range(40)]
    assert NOTE not in out[0][1] and NOTE not in out[1][1] and out[2][1].endswith(NOTE)


def test_an_answer_closes_the_line_again():
    line = FaultBudget(5.0).line("sentence")
    fake = _Fake()
    line.run([0, 1, 2, 3], ["0", "1", "2", "3"], fake)
    assert line.tripped is not None

    def answers(sub, limit):
        return [(("value", 1.0, "1.0"), True, 0.01) for _ in sub]

    out = line.run(list(range(10)), [f"k{i}" for i in range(10)], answers)
    # skipped until the probe (the PROBE_GAP-th skip), which answers: the rest are called
    assert [faults.presumed(r) for r in out] == [SKIPPED] * (PROBE_GAP - 1) + [""] * (11 - PROBE_GAP)
    assert line.tripped is None and line.in_a_row == 0


def test_a_fault_observed_is_remembered_for_its_input():
    line = FaultBudget(5.0).line("sentence")
    fake = _Fake()
    first = line.run(["x"], ["k"], fake)
    again = line.run(["x", "x"], ["k", "k"], fake)
    assert len(fake.calls) == 1 and again == first * 2 and faults.presumed(again[0]) == ""


def test_after_the_first_hang_the_limit_is_derived_from_its_own_answers():
    budget = FaultBudget(5.0)
    line = budget.line("sentence")
    line.run(["a"], ["a"], lambda sub, limit: [(("value", 1.0, "1.0"), True, 0.2)])
    assert line.limit() == 5.0  # no hang yet: the full --timeout
    hang = _Fake(("timeout", "no answer within 5 s"))
    [full] = line.run(["b"], ["b"], hang)
    assert hang.calls[-1][1] == 5.0 and faults.presumed(full) == ""  # waited the full timeout: observed
    [derived] = line.run(["c"], ["c"], hang)
    assert hang.calls[-1][1] == pytest.approx(10 * 0.2)  # DERIVED_FACTOR x its slowest answer
    assert faults.presumed(derived) == UNCONFIRMED and "not confirmed" in derived[1]
    assert faults.confirm(lambda: line.limit()) == 5.0  # a confirmation waits the full timeout


def test_a_shrink_run_calls_a_tripped_line_within_its_allowance_and_remembers_unconfirmed_hangs():
    line = FaultBudget(5.0).line("sentence")
    hang = _Fake(("timeout", "no answer within 5 s"))
    line.run(list("abc"), list("abc"), hang)  # a full hang, two unconfirmed: tripped
    assert line.tripped is not None and len(hang.calls) == 3
    keys = [f"s{i}" for i in range(faults.SHRINK_FAULTS + 2)]
    with faults.shrinking():
        out = line.run(keys, keys, hang)
        again = line.run(keys[:1], keys[:1], hang)
    assert len(hang.calls) == 3 + faults.SHRINK_FAULTS  # then every call of the run is skipped
    assert [faults.presumed(r) for r in out] == [UNCONFIRMED] * faults.SHRINK_FAULTS + [SKIPPED] * 2
    assert again == out[:1]  # Hypothesis's replay of a candidate agrees without a call
    assert [o.presumed for o in map(_outcome, out)][-1] == SKIPPED
    assert not faults.counts(_outcome(out[-1])) and faults.counts(_outcome(out[0]))


def _outcome(result):
    from audit.adapters.base import outcome_from_result

    return outcome_from_result(result, 100)


# ------------------------------------------------------------------- through real processes


def test_a_worker_that_dies_on_every_call_is_restarted_three_times_not_twenty(planted):
    [adapter] = resolve("faulty:crash", timeout=30.0)
    with adapter:
        outs = adapter.sentence_scores(_items(20))
        assert adapter.restarts == IN_A_ROW + 1  # three in a row, one probe
    assert [o.kind for o in outs] == ["crash"] * 20
    observed = [i for i, o in enumerate(outs) if not o.presumed]
    assert observed == [0, 1, 2, 3 + PROBE_GAP]
    assert outs[0].detail == "process died: exit status 3" and outs[2].detail.endswith(NOTE)


def test_a_worker_that_hangs_on_every_call_waits_the_full_timeout_once(planted):
    [adapter] = resolve("faulty:hang", timeout=2.0)
    with adapter:
        outs = adapter.sentence_scores(_items(12))
    assert [o.kind for o in outs] == ["timeout"] * 12
    assert [o.presumed for o in outs[:3]] == ["", UNCONFIRMED, UNCONFIRMED]
    assert outs[0].detail == "no answer within 2 s"
    assert outs[1].detail.startswith(f"no answer within {faults.DERIVED_FLOOR:g} s (a limit derived")
    assert {o.presumed for o in outs[3:]} <= {SKIPPED, UNCONFIRMED}
    assert [o.presumed for o in outs[3:]].count(UNCONFIRMED) == 1  # the probe


GARBAGE = textwrap.dedent("""
    import sys
    for line in sys.stdin:
        print("garbage \\x1b[31m here", flush=True)
""")


def test_a_program_answering_garbage_shows_what_it_wrote_and_stops_being_restarted(planted):
    (planted / "garbage.py").write_text(GARBAGE)
    [adapter] = resolve(external=f"{sys.executable} garbage.py", timeout=30.0)
    with adapter:
        outs = adapter.sentence_scores(_items(12))
        assert adapter.restarts == IN_A_ROW + 1  # three in a row, one probe
    assert [o.kind for o in outs] == ["invalid"] * 12
    assert outs[0].detail == "answer is not JSON: 'garbage \\x1b[31m here'"  # ESC escaped, quoted
    assert "\x1b" not in outs[0].detail
    assert sum(not o.presumed for o in outs) == IN_A_ROW + 1


def test_an_audit_of_a_worker_that_dies_on_every_call_reports_an_observed_repro(planted):
    [adapter] = resolve("faulty:crash", timeout=30.0)
    with adapter:
        result = run_audit([adapter], seed=0, max_examples=10, cases_dir=None)
        restarts = adapter.restarts
    [finding] = result.adapters[0].findings
    assert (finding.family, finding.minimal.outcome, finding.flaky) == ("crash", "crash", False)
    assert finding.minimal.inputs == {"hypothesis": "", "references": [""]}
    assert finding.minimal.detail == "process died: exit status 3" + NOTE
    # every call it counts was made: three in a row and the probes (never the skipped calls)
    assert IN_A_ROW <= finding.examples <= IN_A_ROW + faults.MAX_PROBES
    assert restarts <= IN_A_ROW + faults.MAX_PROBES + faults.SHRINK_FAULTS  # hundreds before


def test_a_hang_is_shrunk_with_a_derived_limit_and_confirmed_with_the_full_timeout(planted):
    [adapter] = resolve("faulty:hang_long", timeout=3.0)
    with adapter:
        result = run_audit([adapter], seed=0, max_examples=10, cases_dir=None)
        line = adapter._host.faults.line((adapter.bid, "sentence"))
        full_hangs = line.timeouts
    [finding] = result.adapters[0].findings
    assert (finding.family, finding.minimal.outcome, finding.flaky) == ("timeout", "timeout", False)
    # confirmed: the full timeout (the line tripped meanwhile: so many inputs hang)
    assert finding.minimal.detail in ("no answer within 3 s", "no answer within 3 s" + NOTE)
    # shrunk (from inputs of up to dozens of characters) to one that hangs: three characters, or
    # a few more if the machine stalled a short answer past the derived limit meanwhile
    assert 3 <= len(finding.minimal.inputs["hypothesis"]) <= 8
    # the full timeout is waited for the first hang and for the confirmation: bounded
    assert 1 <= full_hangs <= 1 + 2


def test_a_fault_of_some_inputs_does_not_silence_the_others(planted):
    """An implementation that dies on an empty hypothesis (Hypothesis draws several first):
    the probes find it answering again and the audit goes on scoring."""
    [adapter] = resolve("faulty:crash_on_empty", timeout=30.0)
    with adapter:
        result = run_audit([adapter], seed=0, max_examples=30, cases_dir=None)
        restarts = adapter.restarts
    summary = result.adapters[0]
    assert [f.family for f in summary.findings] == ["crash"]
    assert summary.findings[0].minimal.inputs["hypothesis"] == ""
    # scored after the trip (21 scores without the budget, 13 restarts; a few inputs skipped)
    assert summary.fit["sentence"]["observed"] >= 12 and restarts <= IN_A_ROW + faults.MAX_PROBES
