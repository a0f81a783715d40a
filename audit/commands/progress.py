"""Progress on stderr for the phases after the search (patch verification, report writing):
each can take minutes with nothing else on screen.

``Phases(enabled)`` is a context manager; ``phases.phase(description, total=None)`` another,
whose ``advance()`` moves its bar.  It draws only when enabled (not ``--quiet``) and stderr
is a terminal (or ``console`` is given, for tests); otherwise every call is a no-op, so
logs and pipes stay clean.  Rendering is transient: nothing is left behind on the screen.
"""

from __future__ import annotations

import sys
from contextlib import contextmanager
from typing import Optional


def shown(text) -> str:
    """Untrusted text (an implementation's name, a phase naming it, a system of the impact
    data) as a progress display draws it: no control character (``terminal_line``) and no
    rich markup ("[link=...]" would be a hyperlink, "[bold]" a style)."""
    from rich.markup import escape

    from ..render._text import terminal_line

    return escape(terminal_line(text))


def say(line) -> None:
    """One line on stderr (a note, a contract's differences, an impact study done): its text
    may quote an implementation, a file or a service, so it passes ``terminal_line``."""
    from ..render._text import terminal_line

    print(terminal_line(line), file=sys.stderr)


class _NullTask:
    def advance(self, n: int = 1) -> None:
        pass


class _Task:
    def __init__(self, progress, task_id):
        self._progress, self._id = progress, task_id

    def advance(self, n: int = 1) -> None:
        self._progress.advance(self._id, n)


class Phases:
    def __init__(self, enabled: bool, console=None):
        self.progress = None
        if console is None and not (enabled and sys.stderr.isatty()):
            return
        if not enabled:
            return
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

        self.progress = Progress(
            SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
            TimeElapsedColumn(), console=console or Console(stderr=True), transient=True,
        )

    @property
    def active(self) -> bool:
        return self.progress is not None

    def __enter__(self):
        if self.progress is not None:
            self.progress.__enter__()
        return self

    def __exit__(self, *exc):
        if self.progress is not None:
            self.progress.__exit__(*exc)
        return False

    @contextmanager
    def phase(self, description: str, total: Optional[int] = None):
        if self.progress is None:
            yield _NullTask()
            return
        task_id = self.progress.add_task(shown(description), total=total)
        try:
            yield _Task(self.progress, task_id)
        finally:
            self.progress.update(task_id, completed=total if total is not None else 1, total=total or 1)
            self.progress.remove_task(task_id)


def wait_with_progress(phases: Phases, futures: list, description: str) -> None:
    """Wait for ``futures`` (patch verifications) showing how many are done."""
    if not futures:
        return
    from concurrent.futures import as_completed

    with phases.phase(description, total=len(futures)) as task:
        for fut in as_completed(futures):
            fut.result()
            task.advance()


class RichSteps:
    """Progress bar on stderr (``audit.impact.Steps``); ``impact_progress`` picks it only when
    stderr is a terminal."""

    def __init__(self):
        from rich.console import Console
        from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

        self._progress = Progress(
            TextColumn("{task.description}"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
            TimeElapsedColumn(), console=Console(stderr=True), transient=True,
        )
        self._task = None

    def __enter__(self):
        self._progress.__enter__()
        return self

    def __exit__(self, *exc):
        return self._progress.__exit__(*exc)

    def stage(self, description, total):
        if self._task is not None:
            self._progress.remove_task(self._task)
        self._task = self._progress.add_task(shown(description), total=total)

    def advance(self, n=1):
        self._progress.advance(self._task, n)


def impact_progress(quiet: bool = False):
    """The progress display of an impact computation: a bar on a terminal, else nothing."""
    from ..impact import NoSteps

    return RichSteps() if sys.stderr.isatty() and not quiet else NoSteps()
