"""One cached virtual environment per release: ``<cache>/versions/envs/<package>-<version>-py<X.Y>``.

An environment holds the audited release (and its dependencies) and nothing of chrf-audit:
the protocol server (``server.py``) runs from chrf-audit's own directory.  It is built once,
under a lock named after it (two runs, or two Dask workers, wait for each other), in a
directory of its own (``.build-<name>-XXXX``) that is renamed into place only once the release
imported and said its version: a half-made environment is never used, and a build whose
process was killed (a lost Dask worker) leaves a build directory that the next build of that
name removes, even when the killed worker's pip still writes into it.

The interpreter: the ones given with ``--python`` first, then chrf-audit's own, then every
other ``python3.N`` found on the PATH or under pyenv, newest first; one per Python version,
3.10 or later (the server runs chrf-audit's backends).  A release is tried with each until one
installs and imports it; when none does it is skipped with the first reason.
"""

from __future__ import annotations

import glob
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

from ..errors import UsageError
from ..files.locking import locked
from ..processes import owner as procs
from ..processes.stderr_lines import informative
from ..settings.cache import cache_root
from . import index as idx

MIN_PYTHON = (3, 10)
READY = ".chrf-audit-ready"
#: hang detection of one venv creation or install (a slow index or a large wheel is not a hang)
INSTALL_TIMEOUT = 1800.0


class Unusable(Exception):
    """This release cannot be installed or imported with this interpreter (one line)."""


@dataclass(frozen=True)
class Interpreter:
    path: str
    version: tuple

    @property
    def tag(self) -> str:
        return "%d.%d" % self.version


def envs_dir() -> Path:
    return cache_root() / "versions" / "envs"


def empty_dir() -> Path:
    """An empty directory the releases' servers run in."""
    path = cache_root() / "versions" / "cwd"
    path.mkdir(parents=True, exist_ok=True)
    return path


def canonical(package: str) -> str:
    return re.sub(r"[-_.]+", "-", package).lower()


def run(argv, timeout: float = INSTALL_TIMEOUT, cwd=None) -> subprocess.CompletedProcess:
    """A command to its end as an owned child, within ``timeout`` seconds (hang detection)."""
    proc = procs.spawn(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, errors="replace", cwd=cwd)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        procs.stop(proc)
        return subprocess.CompletedProcess(argv, -1, "", f"no end within {timeout:g} s")
    finally:
        procs.stop(proc)
    return subprocess.CompletedProcess(argv, proc.returncode, out, err)


_VERSION = "import sys; print('%d.%d' % sys.version_info[:2])"


def _version_of(path: str) -> Optional[tuple]:
    try:
        r = run([path, "-I", "-c", _VERSION], timeout=60)
    except OSError:
        return None
    m = re.fullmatch(r"(\d+)\.(\d+)", (r.stdout or "").strip())
    return (int(m.group(1)), int(m.group(2))) if r.returncode == 0 and m else None


def _found_on_machine() -> list[str]:
    names = [shutil.which(f"python3.{n}") for n in range(MIN_PYTHON[1], 20)]
    pyenv = os.environ.get("PYENV_ROOT") or os.path.join(os.path.expanduser("~"), ".pyenv")
    names += sorted(glob.glob(os.path.join(pyenv, "versions", "*", "bin", "python3")))
    return [n for n in names if n]


def _given(path: str) -> Interpreter:
    found = shutil.which(path) or (path if os.path.isfile(path) else None)
    version = _version_of(found) if found else None
    if version is None:
        raise UsageError(f"--python {path}: not a Python interpreter that runs")
    if version < MIN_PYTHON:
        raise UsageError(f"--python {path} is Python {version[0]}.{version[1]}: the release's server "
                         f"needs Python {MIN_PYTHON[0]}.{MIN_PYTHON[1]} or later")
    return Interpreter(found, version)


def check_given(given=()) -> None:
    """A ``--python`` that is not an interpreter of Python >= 3.10 is a UsageError."""
    for path in given:
        _given(path)


def interpreters(given=()):
    """The interpreters a release may be installed with, in the order they are tried (a
    generator: the machine is searched only when the first ones do not serve)."""
    seen: set = set()
    for path in given:
        interp = _given(path)
        if interp.version not in seen:
            seen.add(interp.version)
            yield interp
    own = tuple(sys.version_info[:2])
    if own >= MIN_PYTHON and own not in seen:
        seen.add(own)
        yield Interpreter(sys.executable, own)
    others = []
    for path in _found_on_machine():
        version = _version_of(path)
        if version is not None and version >= MIN_PYTHON and version not in seen:
            seen.add(version)
            others.append(Interpreter(path, version))
    yield from sorted(others, key=lambda i: i.version, reverse=True)


def _python(venv: Path) -> Path:
    return venv / "bin" / "python"


def ready(venv: Path) -> Optional[dict]:
    """The marker of a finished environment (None: absent or half-made)."""
    try:
        info = json.loads((venv / READY).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return info if isinstance(info, dict) and _python(venv).exists() else None


def _create(venv: Path, interp: Interpreter, requirement: str, index: idx.IndexOptions, beside=()) -> None:
    """A fresh environment at ``venv`` with ``requirement`` (and the requirements ``beside`` it)
    installed (Unusable: why not)."""
    tool = idx.uv()
    if tool:
        steps = [[tool, "venv", "-q", "--python", interp.path, str(venv)],
                 [tool, "pip", "install", "-q", "--python", str(_python(venv)), requirement, *beside,
                  *idx.uv_flags(idx.pip_config(), index)]]
    else:
        steps = [[interp.path, "-m", "venv", "--without-pip", str(venv)],
                 idx.pip() + ["--python", str(_python(venv)), "install", "-q", requirement, *beside,
                              *index.pip_flags()]]
    for step, what in zip(steps, ("create a virtual environment", f"install {requirement}")):
        r = run(step)
        if r.returncode != 0:
            said = informative(r.stderr or r.stdout) or f"exit status {r.returncode}"
            raise Unusable(f"cannot {what} with Python {interp.tag}: {said}")


def prepare(package: str, version: str, interp: Interpreter, index: idx.IndexOptions,
            check: Callable[[Path], dict], say: Callable[[str], None] = lambda m: None,
            beside: tuple = ()) -> tuple[Path, dict]:
    """(environment, its marker) for ``package==version`` on ``interp``: the cached one, or a
    new one; ``check(python)`` imports the release there and returns its description
    (``{"version", ...}``) or raises Unusable.  The installed version must be ``version``.
    ``beside``: requirements installed with it (``chrf-audit survey``: torch's CPU build, the
    optional dependency a wrapper calls); they name an environment of their own."""
    root = envs_dir()
    name = f"{canonical(package)}-{version}-py{interp.tag}" + (
        "-" + hashlib.sha256("\n".join(sorted(beside)).encode()).hexdigest()[:8] if beside else "")
    venv = root / name
    info = ready(venv)
    if info is not None:
        return venv, info
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"cannot create the environments' directory {root}: {exc.strerror or exc}") from None
    with locked(root / f".{name}.lock", say=say):
        info = ready(venv)
        if info is not None:
            return venv, info
        for stale in glob.glob(str(root / f".build-{name}-*")) + ([str(venv)] if venv.exists() else []):
            shutil.rmtree(stale, ignore_errors=True)  # a killed build's (under our lock: not in use)
        build = Path(tempfile.mkdtemp(prefix=f".build-{name}-", dir=root))
        try:
            shutil.rmtree(build)  # the venv tools want to make it themselves
            say(f"installing {package}=={version} (Python {interp.tag})")
            _create(build, interp, f"{package}=={version}", index, beside)
            described = check(_python(build))
            got = described.get("version")
            if got is None or canonical_version(str(got)) != canonical_version(version):
                raise Unusable(f"{package}=={version} installed, but the environment reports version {got}")
            info = {"package": package, "version": version, "python": interp.tag}
            (build / READY).write_text(json.dumps(info) + "\n", encoding="utf-8")
            os.rename(build, venv)
        finally:
            shutil.rmtree(build, ignore_errors=True)
    return venv, info


def canonical_version(version: str) -> str:
    from packaging.version import InvalidVersion, Version

    try:
        return str(Version(version))
    except InvalidVersion:
        return version
