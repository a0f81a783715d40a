"""The stats terminal table in a narrow terminal: procedure names whole, every line within
the width, families aligned across procedures, a finding's text folded, not cut."""

from __future__ import annotations

import io
from types import SimpleNamespace as NS

from rich.console import Console

from audit.stats.report import terminal, terminal_rows

LONG = ("p = 0.881119 is the p-value of the mean sentence score (model 0.901275), not of corpus chrF "
        "(model 0.000749813): corpus chrF differs by 40.30 points")


def _run():
    def check(family, status="pass", summary="ok"):
        return NS(family=family, status=status, summary=summary)

    finding = NS(family="sentence-scores", main=NS(summary=LONG))
    runs = [
        NS(procedure=NS(name="chrf-audit:paired-permutation"), findings=[],
           results=[check("pairing"), check("pairing"), check("calibration")]),
        NS(procedure=NS(name="evaluatio:paired-permutation"), findings=[finding],
           results=[check("sentence-scores", "fail", LONG), check("robustness", "inconclusive", "resample crashed")]),
    ]
    return NS(runs=runs, findings=[finding], settings=NS(seed=3))


def _render(width: int) -> list[str]:
    buf = io.StringIO()
    terminal(_run(), Console(file=buf, width=width, color_system=None, legacy_windows=False))
    return [line.rstrip() for line in buf.getvalue().splitlines()]


def test_rows_say_pass_finding_inconclusive_per_family():
    assert [(p, f, s) for p, f, s, _ in terminal_rows(_run())] == [
        ("chrf-audit:paired-permutation", "pairing", "pass"),
        ("chrf-audit:paired-permutation", "calibration", "pass"),
        ("evaluatio:paired-permutation", "sentence-scores", "finding"),
        ("evaluatio:paired-permutation", "robustness", "inconclusive"),
    ]
    assert terminal_rows(_run())[0][3] == "2 check(s) passed"


def test_narrow_terminal_keeps_names_whole_and_lines_within_width():
    lines = _render(80)
    assert all(len(line) <= 80 for line in lines)
    assert "chrf-audit:paired-permutation" in lines and "evaluatio:paired-permutation" in lines
    text = " ".join(" ".join(line.split()) for line in lines)
    assert "40.30 points" in text  # folded, not cut
    # the family, status and what columns start at the same place in both tables
    rows = [line for line in lines if line.split()[:1] in (["pairing"], ["sentence-scores"])]
    assert len(rows) == 2
    assert len({(r.index(r.split()[1]), r.index(r.split()[2])) for r in rows}) == 1
    assert lines[-1] == "1 finding(s) in 2 procedure(s), seed 3"


def test_a_long_what_is_elided_at_a_word_with_an_ellipsis():
    """A summary longer than the table shows (issue 23: "10 o", "(low 41.9258" cut mid-word
    at 80 columns) ends at a whole word with "…"."""
    from audit.stats.report import elide

    words = ("the interval [23.9265, 23.9265] excludes its own point estimate 23.9265: below low by "
             "1.32e-07 on one-segment corpus (every resample is the corpus itself); 10 of 10 resamples, "
             "low 41.9258 high 42.0001 against the float64 replay").split()
    long = " ".join(words)
    assert len(long) > 160
    run = _run()
    run.runs[1].results[0].summary = run.runs[1].findings[0].main.summary = long
    [what] = [w for _, f, _, w in terminal_rows(run) if f == "sentence-scores"]
    assert what.endswith("…") and len(what) <= 160
    assert what[:-1].split() == words[:len(what[:-1].split())]  # whole words only
    buf = io.StringIO()
    terminal(run, Console(file=buf, width=80, color_system=None, legacy_windows=False))
    lines = [line.rstrip() for line in buf.getvalue().splitlines()]
    assert all(len(line) <= 80 for line in lines) and any(line.endswith("…") for line in lines)
    assert elide("short", 10) == "short" and elide("abcdefghijkl", 6) == "abcde…"
    assert elide("one two three", 9) == "one two…"
