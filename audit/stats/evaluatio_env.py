"""A private virtual environment for evaluatio, created on first use and cached.

evaluatio 0.5.x requires numpy < 2.1 on Python < 3.13 while chrf-audit runs with whatever
numpy the project has (2.4 here), so evaluatio is never installed into the project's
environment: ``stats --evaluatio`` creates ``<cache>/evaluatio-<version>`` with
``python -m venv`` + ``pip install evaluatio==<version> sacrebleu==<the project's>``
(a one-time ~15 s) and runs ``evaluatio_server.py`` there over the external-program
protocol.  The cache is ``$CHRF_AUDIT_CACHE`` or ``~/.cache/chrf-audit``; never committed.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from ..errors import UsageError
from ..files.locking import locked
from ..processes import owner as procs
from ..processes.stderr_lines import informative
from ..settings.cache import cache_root

EVALUATIO_VERSION = "0.5.2"
SERVER = Path(__file__).with_name("evaluatio_server.py")
#: written last: a venv without it is half-made
READY = ".chrf-audit-ready"


def cache_dir() -> Path:
    return cache_root() / "stats"


def _python(venv: Path) -> Path:
    return venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


HINT = ("give an interpreter that has evaluatio with --evaluatio-python PATH, "
        "or audit only sacreBLEU with --sacrebleu")


def _ready(venv: Path) -> bool:
    return (venv / READY).is_file() and _python(venv).exists()


def ensure(version: str = EVALUATIO_VERSION, log=None) -> Path:
    """The interpreter of a venv holding evaluatio ``version``; created when missing.

    Creation runs under a lock file beside the venv, so two runs at once create it once (the
    second waits, then finds it ready).  The venv counts as ready only once its marker file
    is written last; a failed creation removes what it made, and one that was killed half-way
    (no marker) is removed and redone by the next run."""
    root = cache_dir()
    venv = root / f"evaluatio-{version}"
    if _ready(venv):
        return _python(venv)
    try:
        root.mkdir(parents=True, exist_ok=True)
        with locked(root / f"evaluatio-{version}.lock", say=log or (lambda m: None)):
            if not _ready(venv):
                if venv.exists() or venv.is_symlink():
                    _remove(venv)
                try:
                    _create(venv, version, log)
                except BaseException:
                    _remove(venv)
                    raise
    except OSError as exc:
        raise UsageError(f"cannot prepare the evaluatio environment in {venv}: {exc.strerror or exc}; {HINT}") from None
    return _python(venv)


def _remove(venv: Path) -> None:
    if venv.is_symlink() or venv.is_file():
        venv.unlink()
    else:
        shutil.rmtree(venv, ignore_errors=True)


def _create(venv: Path, version: str, log) -> None:
    try:  # metadata only: sacreBLEU's code never runs in chrf-audit's process
        from importlib.metadata import version as installed
        sb = f"sacrebleu=={installed('sacrebleu')}"
    except Exception:  # noqa: BLE001  # pragma: no cover - sacrebleu is a dependency
        sb = "sacrebleu"
    if log:
        log(f"creating {venv} (evaluatio=={version}, {sb}) ...")
    py = _python(venv)
    steps = [[sys.executable, "-m", "venv", str(venv)],
             [str(py), "-m", "pip", "install", "-q", "--disable-pip-version-check",
              f"evaluatio=={version}", sb]]
    for cmd in steps:
        r = procs.run(cmd, errors="replace")
        if r.returncode != 0:
            said = informative(r.stderr or r.stdout) or "(no output)"
            raise UsageError(f"cannot prepare the evaluatio environment: {' '.join(cmd[:4])}... "
                             f"failed: {said}; {HINT}")
    (venv / READY).write_text(f"evaluatio=={version}\n{sb}\n")


def command(python: str | os.PathLike | None = None, log=None) -> str:
    """The external-program command that serves evaluatio's procedures."""
    py = Path(python) if python else ensure(log=log)
    return f"{_q(str(py))} {_q(str(SERVER))}"


def _q(s: str) -> str:
    import shlex
    return shlex.quote(s)
