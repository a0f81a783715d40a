"""The consumer side of a versions result (``chrf-audit versions PACKAGE SPEC --json``): which
release introduced each family, for "regression since 3.10.4 (3.10.3 correct)".

A versions result is the stable JSON ``{"package", "releases": [{"version", "status":
"audited"|"skipped", "reason", "families": [...]}], "families": {FAMILY: {"introduced":
VERSION|null, "fixed": VERSION|null}}}``, releases oldest first.  ``run`` takes one with
``--versions-from FILE``; without it, the project's own result of an audited library is read
from ``reports/versions/<package>.json`` of the current directory (``PROJECT``: where
``chrf-audit versions ... --json`` leaves it in this repository, committed beside the
reports) when it is there and is about that package.  Nothing machine-wide is read (no cache
in ``~/.cache``): the same command in the same project writes the same reports on any machine,
and the reports name the file they took it from (``_source``, relative, never a path of the
machine).  A given file that is malformed or about a package the run does not audit is one
line, exit 2; a project file that is malformed or about another package is not used (one
line on stderr).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable, Optional

from ..errors import UsageError

#: where ``run`` finds the project's versions result of a package, from the current directory
PROJECT = "reports/versions/{package}.json"


def parse(data, where: str) -> dict:
    """A versions result checked field by field; UsageError (one line) naming ``where``."""
    def bad(what):
        raise UsageError(f"{where}: {what}")

    if not isinstance(data, dict):
        bad("expected a JSON object (a result of chrf-audit versions --json)")
    if not isinstance(data.get("package"), str) or not data["package"].strip():
        bad("'package' must be a non-empty string")
    releases = data.get("releases")
    if not isinstance(releases, list):
        bad("'releases' must be a list")
    for i, r in enumerate(releases, 1):
        if not isinstance(r, dict) or not isinstance(r.get("version"), str):
            bad(f"release {i} must be an object with a 'version' string")
        if r.get("status") not in ("audited", "skipped"):
            bad(f"release {r['version']}: 'status' must be \"audited\" or \"skipped\"")
        fams = r.get("families", [])
        if not isinstance(fams, list) or not all(isinstance(f, str) for f in fams):
            bad(f"release {r['version']}: 'families' must be a list of family ids")
    fams = data.get("families")
    if not isinstance(fams, dict):
        bad("'families' must be an object")
    for fam, rec in fams.items():
        if not isinstance(rec, dict) or not all(isinstance(rec.get(k), (str, type(None))) for k in ("introduced", "fixed")):
            bad(f"family {fam}: expected {{\"introduced\": VERSION|null, \"fixed\": VERSION|null}}")
    return {"package": data["package"].strip(), "releases": releases, "families": fams}


def load(path, where: str) -> dict:
    from ..files.textfiles import read_text

    text = read_text(path, where)
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise UsageError(f"{where}: not JSON ({exc})") from None
    return parse(data, where)


def shown(path) -> str:
    """A file as the reports name it: relative to the current directory when it lies inside
    it, else its name alone (no path of the machine in a report)."""
    p = Path(path)
    if not p.is_absolute():
        return p.as_posix()
    try:
        return p.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except (OSError, ValueError):
        return p.name


def results_for(packages, given: Optional[Path] = None, *,
                say: Callable[[str], None] = lambda line: None) -> dict[str, dict]:
    """package -> its versions result (with ``_source``: how the reports name it) for the
    audited ``packages`` (distribution names): ``given`` (``--versions-from``), else each
    package's project result (``PROJECT``) when there is one about it."""
    packages = list(dict.fromkeys(packages))
    out: dict[str, dict] = {}
    if given is not None:
        doc = load(given, f"--versions-from {given}")
        if doc["package"] not in packages:
            raise UsageError(f"--versions-from {given}: the result is about {doc['package']!r}, which this run "
                             f"does not audit ({', '.join(packages) or 'no built-in library'})")
        out[doc["package"]] = {**doc, "_source": shown(given)}
    for package in packages:
        path = Path(PROJECT.format(package=package))
        if package in out or not path.is_file():
            continue
        try:
            doc = load(path, f"versions result {path.as_posix()}")
        except UsageError as exc:
            say(f"chrf-audit: note: {exc}; not used")
            continue
        if doc["package"] == package:
            out[package] = {**doc, "_source": path.as_posix()}
        else:
            say(f"chrf-audit: note: {path.as_posix()} is about {doc['package']!r}, not {package!r}; not used")
    return out
