"""The package index as the user's pip sees it: which releases of a package it offers, and the
installer that puts one into an environment (uv where it is on the PATH, pip otherwise).

Both go through pip's own configuration: ``pip index versions`` (run by chrf-audit's
interpreter) reads the user's pip.conf and ``PIP_*`` variables (index-url, extra-index-url,
find-links, constraints), and ``pip --python VENV install`` too.  uv reads none of that, so
its flags are translated from ``pip config list`` (``uv_flags``).  ``--index-url`` and
``--find-links`` given to ``chrf-audit versions`` are passed to both, after the
configuration (pip's own precedence: the command line wins).
"""

from __future__ import annotations

import re
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from ..errors import UsageError
from ..processes import owner as procs
from ..processes.stderr_lines import informative
from ..settings import limits


@dataclass(frozen=True)
class IndexOptions:
    """``--index-url`` and ``--find-links`` of the command line (each may be repeated)."""

    index_url: Optional[str] = None
    find_links: tuple = field(default_factory=tuple)

    def pip_flags(self) -> list[str]:
        out = ["--index-url", self.index_url] if self.index_url else []
        for link in self.find_links:
            out += ["--find-links", link]
        return out

    def to_dict(self) -> dict:
        return {"index_url": self.index_url, "find_links": list(self.find_links)}


def pip() -> list[str]:
    """The pip of chrf-audit's interpreter: the user's configuration applies to it."""
    return [sys.executable, "-m", "pip", "--disable-pip-version-check", "--no-input"]


_AVAILABLE = re.compile(r"^Available versions:\s*(.*)$", re.MULTILINE)


def available_versions(package: str, index: IndexOptions) -> list[str]:
    """The release versions the index offers for ``package`` (final releases, as pip lists
    them for chrf-audit's interpreter), unsorted strings; UsageError when pip finds none."""
    r = procs.run(pip() + ["index", "versions", package, *index.pip_flags()], errors="replace",
                  timeout=limits.limit("install_seconds"))
    found = _AVAILABLE.search(r.stdout or "")
    if r.returncode != 0 or not found:
        said = informative(r.stderr or r.stdout) or f"pip exited with status {r.returncode}"
        raise UsageError(f"no release of {package} found on the package index: {said}")
    return [v.strip() for v in found.group(1).split(",") if v.strip()]


def uv() -> Optional[str]:
    """uv's executable when it is on the PATH (or beside chrf-audit's interpreter)."""
    return shutil.which("uv") or shutil.which("uv", path=str(Path(sys.executable).parent))


_CONFIG_LINE = re.compile(r"^(?P<scope>[^.\s]*)\.(?P<key>[a-z-]+)=(?P<value>.*)$")
#: pip configuration keys and the uv flag each becomes (several values: one flag each)
_UV_KEYS = {"index-url": "--index-url", "extra-index-url": "--extra-index-url", "find-links": "--find-links",
            "constraint": "--constraint", "no-index": "--no-index"}


def pip_config() -> dict[str, list[str]]:
    """pip's effective configuration (``pip config list``: files and ``PIP_*`` variables) as
    key -> values, the later scope winning a key, as pip reads them."""
    r = procs.run(pip() + ["config", "list"], errors="replace")
    out: dict[str, list[str]] = {}
    for line in (r.stdout or "").splitlines():
        m = _CONFIG_LINE.match(line.strip())
        if not m or m.group("key") not in _UV_KEYS:
            continue
        value = m.group("value").strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        out[m.group("key")] = value.split()
    return out


def uv_flags(config: dict[str, list[str]], index: IndexOptions) -> list[str]:
    """uv pip install flags saying what pip's configuration and the command line say."""
    config = dict(config)
    if index.index_url:
        config["index-url"] = [index.index_url]
    if index.find_links:
        config["find-links"] = list(config.get("find-links", [])) + list(index.find_links)
    out: list[str] = []
    for key, flag in _UV_KEYS.items():
        values = config.get(key) or []
        if key == "no-index":
            if any(v.lower() in ("1", "true", "yes", "on") for v in values):
                out.append(flag)
            continue
        for v in values:
            out += [flag, v]
    # pip takes a release from whichever index has it; uv's default stops at the first index
    # that knows the package
    return out + ["--index-strategy", "unsafe-best-match"]
