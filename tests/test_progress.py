"""Progress for the phases after the search: drawn on stderr for a terminal, off with
--quiet and when stderr is not a terminal (logs and pipes stay clean)."""

from __future__ import annotations

import io
from concurrent.futures import ThreadPoolExecutor

from rich.console import Console

from audit.cli import main
from audit.commands.progress import Phases, wait_with_progress


def _terminal() -> tuple[Console, io.StringIO]:
    buf = io.StringIO()
    return Console(file=buf, force_terminal=True, width=100, color_system=None), buf


def test_phase_is_drawn_on_a_terminal():
    console, buf = _terminal()
    with Phases(True, console=console) as phases:
        assert phases.active
        with phases.phase("writing reports", total=2) as task:
            task.advance()
            phases.progress.refresh()
            task.advance()
    assert "writing reports" in buf.getvalue()


def test_off_when_quiet_or_not_a_terminal(capsys):
    console, buf = _terminal()
    with Phases(False, console=console) as phases:
        assert not phases.active
        with phases.phase("x", total=1) as task:
            task.advance()
    assert buf.getvalue() == ""
    assert not Phases(True).active  # pytest's stderr is not a terminal


def test_wait_with_progress_waits_for_every_future():
    console, buf = _terminal()
    done = []
    with ThreadPoolExecutor(max_workers=2) as pool:
        futures = [pool.submit(done.append, i) for i in range(5)]
        with Phases(True, console=console) as phases:
            wait_with_progress(phases, futures, "verifying suggested patches")
            phases.progress.refresh()
    assert sorted(done) == [0, 1, 2, 3, 4]
    assert "verifying suggested patches" in buf.getvalue()


def _run(tmp_path, capsys, monkeypatch, *extra):
    import sys

    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    code = main(["run", "--impl", "sacrebleu-chrf", "--max-examples", "3", "--no-verify",
                 "--reports-dir", str(tmp_path / "r"), *extra])
    return code, capsys.readouterr().err


def test_run_shows_report_writing_on_a_terminal_and_not_with_quiet(tmp_path, capsys, monkeypatch):
    code, err = _run(tmp_path, capsys, monkeypatch)
    assert code == 0 and "writing reports" in err
    code, err = _run(tmp_path, capsys, monkeypatch, "--quiet")
    assert code == 0 and err == ""
