"""Reading the segment files an impact computation compares: the files named on the
``chrf-audit impact`` command line, or a ``--impact-data`` directory.

Both end in the same shape, ``(systems, references)`` with ``systems`` mapping a name to
its segments and ``references[i]`` listing segment i's references, and both fail with one
``UsageError`` line naming the file (``audit.files.textfiles``), never a traceback.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Sequence

from ..errors import UsageError
from ..files.textfiles import check_same_length, read_segments

Corpus = tuple[dict[str, list[str]], list[list[str]]]


def system_names(paths: Sequence[str]) -> list[str]:
    """A display name per system file: its base name, or the path as given when two base
    names coincide; the same file given twice is a usage error."""
    base = [os.path.basename(p) for p in paths]
    names = base if len(set(base)) == len(base) else list(paths)
    if len(set(names)) != len(names):
        dup = next(n for n in names if names.count(n) > 1)
        raise UsageError(f"system file {dup} is given twice")
    return names


def load_system_files(ref_paths: Sequence[str], system_paths: Sequence[str]) -> Corpus:
    """``--ref`` files (one reference each per segment) and SYSTEM files, all the same
    number of lines (a file given both as a reference and as a system is read once)."""
    names = system_names(system_paths)
    refs = [read_segments(r) for r in ref_paths]
    hyps = [read_segments(s) for s in system_paths]
    named: dict[str, list[str]] = {}
    for path, segs in zip(list(ref_paths) + list(system_paths), refs + hyps):
        named.setdefault(path, segs)
    check_same_length(named)
    return dict(zip(names, hyps)), [list(t) for t in zip(*refs)]


def load_impact_data(directory) -> Corpus:
    """``DIR/reference.txt`` and every other ``DIR/*.txt`` as a system (name = file stem),
    sorted by name.  All files must have the same number of lines."""
    d = Path(directory)
    if not d.is_dir():
        raise UsageError(f"--impact-data {directory}: not a directory")
    ref_path = d / "reference.txt"
    if not ref_path.is_file():
        raise UsageError(f"--impact-data {directory}: no reference.txt in it")
    paths = sorted((p for p in d.glob("*.txt") if p.is_file() and p.name != "reference.txt"),
                   key=lambda p: p.name)
    if not paths:
        raise UsageError(f"--impact-data {directory}: no system file (*.txt besides reference.txt)")
    ref = read_segments(ref_path)
    systems = {p.stem: read_segments(p) for p in paths}
    check_same_length({str(ref_path): ref, **{str(p): systems[p.stem] for p in paths}})
    return systems, [[r] for r in ref]
