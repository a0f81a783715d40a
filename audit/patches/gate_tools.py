"""The formatters and linters of a library's gates, each set in a private virtual environment
created on first use and cached: ``<cache>/gates/<hash of the requirements>`` (``$CHRF_AUDIT_CACHE``
or ``~/.cache/chrf-audit``, never committed).

The tools are pinned to the versions the library's repository configures (``records.Gates``)
and two libraries pin different ones (ruff 0.15.6 and 0.12.2), so they are never installed into
chrf-audit's own environment: ``python -m venv`` and ``pip install`` of the pinned requirements
through pip's configured index, in place (a venv's scripts name its path) under a lock, its
marker file written last (two runs build it once; a half-made one is removed and built again).  When they cannot be installed (no index, a pin that
does not exist), ``ensure`` says why in one line and the gates are "not checked".
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Optional

from ..files.locking import locked
from ..processes import owner as procs
from ..processes.stderr_lines import informative
from ..settings.cache import cache_root

#: written last: an environment without it is half-made
READY = ".chrf-audit-ready"
#: hang detection of one venv creation or install (a slow index is not a hang)
INSTALL_TIMEOUT = 1800.0


def env_dir(requirements: list[str]) -> Path:
    digest = hashlib.sha256("\n".join(sorted(requirements)).encode()).hexdigest()[:16]
    return cache_root() / "gates" / digest


def bin_dir(venv: Path) -> Path:
    return venv / ("Scripts" if os.name == "nt" else "bin")


def _run(argv: list[str]) -> tuple[int, str]:
    proc = procs.spawn(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       errors="replace")
    try:
        out, err = proc.communicate(timeout=INSTALL_TIMEOUT)
    except subprocess.TimeoutExpired:
        return -1, f"no end within {INSTALL_TIMEOUT:g} s"
    finally:
        procs.stop(proc)
    return proc.returncode, err or out


def ensure(requirements: list[str]) -> tuple[Optional[Path], Optional[str]]:
    """(the ``bin`` directory of an environment holding ``requirements``, None) or (None, why
    it could not be made, one line)."""
    venv = env_dir(requirements)
    if (venv / READY).is_file():
        return bin_dir(venv), None
    try:
        venv.parent.mkdir(parents=True, exist_ok=True)
        with locked(venv.parent / f".{venv.name}.lock", say=lambda m: None):
            if (venv / READY).is_file():
                return bin_dir(venv), None
            shutil.rmtree(venv, ignore_errors=True)  # half-made (no marker), under our lock
            why = _create(venv, requirements)
            if why:
                shutil.rmtree(venv, ignore_errors=True)
                return None, why
            (venv / READY).write_text("\n".join(requirements) + "\n", encoding="utf-8")
    except OSError as exc:
        return None, f"cannot prepare the gates' tools in {venv.parent}: {exc.strerror or exc}"
    return bin_dir(venv), None


def _create(build: Path, requirements: list[str]) -> Optional[str]:
    shutil.rmtree(build, ignore_errors=True)  # venv makes it itself
    steps = [([sys.executable, "-m", "venv", str(build)], "create a virtual environment"),
             ([str(bin_dir(build) / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check",
               "--no-input", *requirements], f"install {' '.join(requirements)}")]
    for argv, what in steps:
        rc, said = _run(argv)
        if rc != 0:
            return f"cannot {what}: {informative(said) or f'exit status {rc}'}"
    return None
