"""The file names a run derives from implementation names, checked before the audit.

Why: ``--name`` (or an ``--external`` command, which names the implementation when no name
is given) becomes part of file names: ``<slug>.md`` and ``charts/<slug>-<family>.svg`` in every
reports directory, ``<slug>--<family>--corpus.json`` among the saved cases.  A name of 300
characters ran the whole audit and then failed on "File name too long" with nothing written,
not even ``--json``.  The output paths themselves are checked before the audit
(``audit.files.outputs``); this checks the names derived from them, as soon as the implementations
are known, against what the file system allows (``NAME_MAX`` per component, ``PATH_MAX`` per
path, asked of the directory with ``pathconf``), for the longest family id there is; and
that none of those files is reached through a symbolic link planted in a reports directory.
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


def planted_links(names: Iterable[str], reports_dirs: Iterable[Path]) -> None:
    """UsageError (one line) when a file the run may write into a reports directory is reached
    through a symbolic link there (``reports/issues -> ../elsewhere``, a chart or report that
    is a link), or a directory stands where a file goes (``audit.files.inside``): said before
    the audit, not after it.  The writer checks again before its first write
    (``ReportSet.check``)."""
    from ..files.inside import problem
    from ..files.report_set import MANIFEST
    from ..render._text import unique_slugs

    slugs = list(unique_slugs(list(names)).values())
    family = _longest_family()
    rels = ["audit.json", "junit.xml", MANIFEST]
    for slug in slugs:
        rels += [f"{slug}.md", f"charts/{slug}-{family}.svg", f"issues/{slug}/{family}.md"]
    for d in reports_dirs:
        # every file of the family-named kinds already there (the families are known after the audit)
        here = rels + [f"charts/{p.name}" for p in _entries(d / "charts") if any(p.name.startswith(f"{s}-") for s in slugs)]
        here += [f"issues/{s}/{p.name}" for s in slugs for p in _entries(d / "issues" / s)]
        for rel in here:
            why = problem(d, rel)
            if why:
                raise UsageError(f"reports directory {d}: {why}")


def _entries(directory: Path) -> list[Path]:
    """What a real directory holds (nothing when it is missing, not a directory, or a link:
    ``problem`` names the link)."""
    if directory.is_symlink() or not directory.is_dir():
        return []
    try:
        return sorted(directory.iterdir())
    except OSError:
        return []


def check(names: Iterable[str], reports_dirs: Iterable[Optional[Path]], cases_dir: Optional[Path] = None) -> None:
    """UsageError (one line) when a file named after an implementation would be too long, or
    a file of a reports directory is reached through a link (``planted_links``)."""
    names = list(names)
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
    planted_links(names, dirs)
