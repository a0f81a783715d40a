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
from ..processes.stderr_lines import informative, one_line
from ..settings import limits
from ..settings.cache import cache_root
from . import index as idx
from . import remembered

MIN_PYTHON = (3, 10)
READY = ".chrf-audit-ready"
#: a distribution name as PEP 508 has it (checked before pip or a file name sees it)
_NAME = re.compile(r"[A-Z0-9]([A-Z0-9._-]*[A-Z0-9])?", re.IGNORECASE)


class Unusable(Exception):
    """This release cannot be installed or imported with this interpreter (one line).
    ``lasting``: another attempt would fail the same way (remembered: ``remembered.py``)."""

    def __init__(self, message: str, lasting: bool = False):
        super().__init__(message)
        self.lasting = lasting


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


def distribution_name(package: str) -> str:
    """``package`` when it is a distribution name (PEP 508: letters, digits, ``.``, ``_``,
    ``-``, a letter or digit at both ends), else UsageError: pip never sees ``./dir``,
    ``x==1``, ``git+https://...`` or ``-e`` as PACKAGE, and no file name holds a ``/``."""
    text = package.strip()
    if not _NAME.fullmatch(text):
        raise UsageError(f"PACKAGE {text[:80]!r} is not a distribution name (PEP 508: letters, digits, '.', '_' "
                         "and '-', beginning and ending with a letter or digit)")
    return text


def canonical(package: str) -> str:
    return re.sub(r"[-_.]+", "-", package).lower()


def install_timeout() -> float:
    """Hang detection of one pip / uv command (docs/limits.md: CHRF_AUDIT_MAX_INSTALL_SECONDS)."""
    return limits.limit("install_seconds")


def run(argv, timeout: Optional[float] = None, cwd=None) -> subprocess.CompletedProcess:
    """A command to its end as an owned child, within ``timeout`` seconds (hang detection;
    default: the install limit, ``install_timeout``)."""
    if timeout is None:
        timeout = install_timeout()
    r = procs.run(argv, timeout=timeout, errors="replace", cwd=cwd)
    if r.returncode == -1 and r.stderr == f"no end within {timeout:g} s" and timeout == install_timeout():
        r.stderr += f" (the install limit, {limits.ENV['install_seconds']})"
    return r


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


_PIP_ERROR = re.compile(r"^ERROR: (.+)$", re.MULTILINE)
_PIP_SUMMARY = re.compile(r"^× (.+)$", re.MULTILINE)  # "× Getting requirements to build wheel did not run ..."
_EXCEPTION = re.compile(r"^\s*((?:\w+\.)*\w*(?:Error|Exception): .+)$", re.MULTILINE)


def installer_said(text: str) -> str:
    """pip's (or uv's) reason on one line: its last ``ERROR:`` line; else its ``×`` summary of
    a failed build with the build's last exception line (not "note: This error originates
    from a subprocess", the last line naming an error); else ``informative``."""
    errors = _PIP_ERROR.findall(text or "")
    if errors:
        return one_line(errors[-1], 300)
    summary, raised = _PIP_SUMMARY.findall(text or ""), _EXCEPTION.findall(text or "")
    if summary:
        return one_line(summary[-1].rstrip(".") + (f": {raised[-1].strip()}" if raised else ""), 300)
    return informative(text or "")


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
            said = installer_said(r.stderr or r.stdout) or f"exit status {r.returncode}"
            lasting = step is steps[1] and remembered.lasting(f"{r.stderr}\n{r.stdout}")
            raise Unusable(f"cannot {what} with Python {interp.tag}: {said}", lasting=lasting)


def prepare(package: str, version: str, interp: Interpreter, index: idx.IndexOptions,
            check: Callable[[Path], dict], say: Callable[[str], None] = lambda m: None,
            beside: tuple = ()) -> tuple[Path, dict]:
    """(environment, its marker) for ``package==version`` on ``interp``: the cached one, or a
    new one; ``check(python)`` imports the release there and returns its description
    (``{"version", ...}``) or raises Unusable.  The installed version must be ``version``.
    ``beside``: requirements installed with it (``chrf-audit survey``: torch's CPU build, the
    optional dependency a wrapper calls); they name an environment of their own."""
    root = envs_dir()
    name = f"{canonical(distribution_name(package))}-{version}-py{interp.tag}" + (
        "-" + hashlib.sha256("\n".join(sorted(beside)).encode()).hexdigest()[:8] if beside else "")
    venv = root / name
    info = ready(venv)
    if info is not None:
        return venv, info
    settings = remembered.key(index.to_dict())
    why = remembered.recall(root, name, settings)
    if why is not None:  # tried before with this Python, for a lasting reason
        raise Unusable(why, lasting=True)
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"cannot create the environments' directory {root}: {exc.strerror or exc}") from None
    with locked(root / f".{name}.lock", say=say):
        info = ready(venv)
        if info is not None:
            return venv, info
        try:
            return venv, _build(root, name, package, version, interp, index, check, say, beside)
        except Unusable as exc:
            if exc.lasting:
                remembered.keep(root, name, settings, str(exc))
            raise


def _build(root: Path, name: str, package: str, version: str, interp: Interpreter, index: idx.IndexOptions,
           check: Callable[[Path], dict], say: Callable[[str], None], beside: tuple = ()) -> dict:
    """Under the environment's lock: the environment built aside and renamed into place; its
    marker (Unusable: why not)."""
    venv = root / name
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
            raise Unusable(f"{package}=={version} installed, but the environment reports version {got}",
                           lasting=True)
        info = {"package": package, "version": version, "python": interp.tag}
        (build / READY).write_text(json.dumps(info) + "\n", encoding="utf-8")
        os.rename(build, venv)
    finally:
        shutil.rmtree(build, ignore_errors=True)
    return info


def canonical_version(version: str) -> str:
    from packaging.version import InvalidVersion, Version

    try:
        return str(Version(version))
    except InvalidVersion:
        return version
