"""The file names a run derives from implementation names, checked before the audit.

Why: ``--name`` (or an ``--external`` command, which names the implementation when no name
is given) becomes part of file names: ``<slug>.md`` and ``charts/<slug>-<family>.svg`` in every
reports directory, ``<slug>--<family>--corpus.json`` among the saved cases.  A name of 300
characters ran the whole audit and then failed on "File name too long" with nothing written,
not even ``--json``.  The output paths themselves are checked before the audit
(``audit.files.outputs``); this checks the names derived from them, as soon as the implementations
are known, against what the file system allows (``NAME_MAX`` per component, ``PATH_MAX`` per
path, asked of the directory with ``pathconf``), for the longest family id there is.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable, Optional

from ..errors import UsageError

#: when pathconf cannot say (the usual Linux values)
NAME_MAX, PATH_MAX = 255, 4096


def _longest_family() -> str:
    from ..diagnose.families import FAMILIES

    return max(FAMILIES, key=len)


def derived(names: Iterable[str], reports_dirs: Iterable[Path], cases_dir: Optional[Path]) -> list[tuple[str, Path]]:
    """(implementation name, path) of every file named after an implementation."""
    from ..collect.cases import case_file_name
    from ..render._text import unique_slugs

    names = list(names)
    slugs = unique_slugs(names)
    family = _longest_family()
    out = []
    for d in reports_dirs:
        for n in names:
            out += [(n, Path(d) / f"{slugs[n]}.md"), (n, Path(d) / "charts" / f"{slugs[n]}-{family}.svg")]
    if cases_dir is not None:
        out += [(n, Path(cases_dir) / case_file_name(n, family, "corpus")) for n in names]
    return out


def _conf(directory: Path, name: str, fallback: int) -> int:
    for d in [directory, *directory.parents]:  # the nearest directory that exists
        if d.is_dir():
            try:
                return int(os.pathconf(d, name))
            except (OSError, ValueError):
                return fallback
    return fallback


def check(names: Iterable[str], reports_dirs: Iterable[Optional[Path]], cases_dir: Optional[Path] = None) -> None:
    """UsageError (one line) when a file named after an implementation would be too long."""
    dirs = [Path(d) for d in reports_dirs if d is not None]
    for name, path in derived(names, dirs, cases_dir):
        component = len(os.fsencode(path.name))
        most = _conf(path.parent, "PC_NAME_MAX", NAME_MAX)
        shown = name if len(name) <= 40 else name[:37] + "..."
        if component > most:
            raise UsageError(f"implementation name {shown!r} is too long for a file name: {path.name[:40]}... "
                             f"would be {component} bytes, more than the {most} the file system allows in "
                             f"{path.parent}; give a shorter --name")
        full = len(os.fsencode(os.path.abspath(path)))
        longest = _conf(path.parent, "PC_PATH_MAX", PATH_MAX)
        if full >= longest:
            raise UsageError(f"implementation name {shown!r} makes the path of {path.name[:40]}... {full} bytes, "
                             f"more than the {longest} the file system allows; give a shorter --name")
