"""The curated cases a run replays by default are the same from any directory (issue 29, item 14).

The README's first command, ``chrf-audit run``, printed "188 of 188 observed scores" and one
family order from the clone root, "180 of 180" and another from any other directory: the
default ``--cases`` was ``./cases`` or nothing, and only in the clone root is ``./cases``
chrf-audit's curated cases, whose replayed scores count in the fit.  The default is now
``./cases`` when the current directory has one (a project's own), else chrf-audit's
(``audit.settings.options.packaged_cases``), as the pytest plugin and ``validate-patch`` already replayed."""

from __future__ import annotations

import argparse
from pathlib import Path

from audit.collect.cases import load_cases
from audit.commands.cases_arg import check_cases_arg
from audit.settings.options import packaged_cases

ROOT = Path(__file__).resolve().parents[1]


def _replayed(cwd: Path, monkeypatch, save_cases: bool = False) -> tuple[list, argparse.Namespace]:
    monkeypatch.chdir(cwd)
    args = argparse.Namespace(cases=None, save_cases=save_cases)
    check_cases_arg(args)
    return load_cases(args.cases), args


def test_the_clone_root_and_an_empty_directory_replay_the_same_cases(tmp_path, monkeypatch):
    from_root, _ = _replayed(ROOT, monkeypatch)
    from_empty, args = _replayed(tmp_path, monkeypatch)
    assert len(from_root) >= 4 and from_empty == from_root
    assert args.cases == packaged_cases() == ROOT / "cases"


def test_a_projects_own_cases_replace_chrf_audits(tmp_path, monkeypatch):
    (tmp_path / "cases").mkdir()
    (tmp_path / "cases" / "mine.json").write_text(
        '{"id": "mine", "level": "sentence", "inputs": {"hypothesis": "a", "references": ["a"]}}')
    cases, args = _replayed(tmp_path, monkeypatch)
    assert [origin for origin, _ in cases] == ["cases/mine.json"] and args.cases == Path("cases")


def test_save_cases_never_writes_into_chrf_audits_own(tmp_path, monkeypatch):
    """Without --cases, --save-cases saves into ./cases (created then), while chrf-audit's
    curated cases are replayed."""
    from audit.commands.run import execute

    seen: dict = {}
    monkeypatch.setattr("audit.collect.runner.run_audit", lambda adapters, **kw: seen.update(kw))
    _, args = _replayed(tmp_path, monkeypatch, save_cases=True)
    args.seed, args.max_examples, args.tolerance, args.quiet = 0, 3, 1e-9, True
    execute(args, [])
    assert seen["cases_dir"] == ROOT / "cases" and seen["save_cases"] == Path("cases")
