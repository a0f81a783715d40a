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
