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
import subprocess
import sys
from pathlib import Path

from ..errors import UsageError

EVALUATIO_VERSION = "0.5.2"
SERVER = Path(__file__).with_name("evaluatio_server.py")


def cache_dir() -> Path:
    root = os.environ.get("CHRF_AUDIT_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "chrf-audit")
    return Path(root) / "stats"


def _python(venv: Path) -> Path:
    return venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def ensure(version: str = EVALUATIO_VERSION, log=None) -> Path:
    """The interpreter of a venv holding evaluatio ``version``; created when missing."""
    venv = cache_dir() / f"evaluatio-{version}"
    py = _python(venv)
    marker = venv / ".chrf-audit-ready"
    if marker.exists() and py.exists():
        return py
    try:  # metadata only: sacreBLEU's code never runs in chrf-audit's process
        from importlib.metadata import version as dist_version
        sb = f"sacrebleu=={dist_version('sacrebleu')}"
    except Exception:  # noqa: BLE001  # pragma: no cover - sacrebleu is a dependency
        sb = "sacrebleu"
    if log:
        log(f"creating {venv} (evaluatio=={version}, {sb}) ...")
    venv.parent.mkdir(parents=True, exist_ok=True)
    steps = [[sys.executable, "-m", "venv", str(venv)],
             [str(py), "-m", "pip", "install", "-q", "--disable-pip-version-check",
              f"evaluatio=={version}", sb]]
    for cmd in steps:
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            tail = (r.stderr or r.stdout).strip().splitlines()[-1:] or ["(no output)"]
            raise UsageError(f"cannot prepare the evaluatio environment: {' '.join(cmd[:4])}... "
                             f"failed: {tail[0]}")
    marker.write_text(f"evaluatio=={version}\n{sb}\n")
    return py


def command(python: str | os.PathLike | None = None, log=None) -> str:
    """The external-program command that serves evaluatio's procedures."""
    py = Path(python) if python else ensure(log=log)
    return f"{_q(str(py))} {_q(str(SERVER))}"


def _q(s: str) -> str:
    import shlex
    return shlex.quote(s)
