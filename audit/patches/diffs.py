"""The after tree of a patch validation: reading the diff, normalising its file headers,
refusing diffs of anything but the implementation's own package, and applying it to a
temporary copy (or locating a source checkout).

Kept apart from the processes and the before/after logic because it is the part that
handles hostile input (a diff names files): every path goes through
``audit.upstream.patching.safe_relpath``/``contained`` before anything is copied or written,
and nothing here ever writes outside the destination directory.
"""

from __future__ import annotations

import importlib.util
import os
import re
import sys
from pathlib import Path
from typing import Optional

from ..errors import UsageError
from ..files.textfiles import read_text


def _ensure_cwd_importable() -> None:
    if os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.insert(0, os.getcwd())


def package_root(top: str, *, with_cwd: bool = True) -> Optional[Path]:
    """The directory a top-level package or module is imported from (its parent), without
    importing it; None when it is not importable.  ``with_cwd``: the current directory is
    importable too (``validate-patch`` audits ``mypkg.mod:fn`` of the directory it is run
    in; the report's verification of a built-in upstream must not depend on it).

    ``top`` comes from a diff's file headers, i.e. from the user's untrusted input: only a
    plain module name is looked up.  ``find_spec("setup.py")`` *imports* ``setup`` (the parent
    of a dotted name), so a header ``a/setup.py/x`` ran a project's setup.py -- and its
    ``sys.exit`` ended chrf-audit -- and ``a/this.py`` printed the Zen of Python (issue 29):
    nothing of the patched package may run in chrf-audit's own process."""
    if not top.isidentifier():
        return None
    if with_cwd:
        _ensure_cwd_importable()
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    if spec.submodule_search_locations:
        locations = list(spec.submodule_search_locations)
        if not locations:
            return None
        return Path(locations[0]).resolve().parent
    if spec.origin and spec.origin not in ("built-in", "frozen"):
        return Path(spec.origin).resolve().parent
    return None


def source_root(source: Path, tops: list[str]) -> Path:
    """The directory to put on PYTHONPATH for a source checkout: ``source`` itself, its
    ``src/``, or its parent when ``source`` is the package directory."""
    source = Path(source)
    if not source.is_dir():
        raise UsageError(f"--source {source}: no such directory")
    top = tops[0]
    for root in (source, source / "src"):
        if (root / top).is_dir() or (root / f"{top}.py").is_file():
            return root.resolve()
    if source.resolve().name == top and (source / "__init__.py").is_file():
        return source.resolve().parent
    raise UsageError(f"--source {source} does not contain the package {top!r} "
                     f"(looked for {top}/ in it and in its src/)")


def read_diff(path: Path) -> str:
    return read_text(path, "a diff")


def _header_path(line: str) -> str:
    return line[4:].rstrip("\r\n").split("\t")[0].strip()


def normalize_diff(diff: str, name: str, locate) -> tuple[str, dict[str, Path]]:
    """Rewrite the file headers of ``diff`` to ``a/<package path>`` / ``b/<package path>``
    (what ``apply_to_copy`` expects, ``-p1``), whatever prefix the diff was made with
    (``a/``, none, ``src/``, an absolute site-packages path ...).  ``locate(top)`` gives the
    directory the top-level package ``top`` lives in, or None.  Returns the diff and
    {top-level package: its directory}."""
    from ..upstream.patching import PatchError, parse_unified_diff

    try:
        parse_unified_diff(diff)  # shape check: hunks, headers
    except PatchError as exc:
        raise UsageError(f"{name}: malformed diff: {exc}") from None
    check_complete(diff, name)
    lines = diff.splitlines(keepends=True)
    tops: dict[str, Path] = {}
    out = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("--- ") and i + 1 < len(lines) and lines[i + 1].startswith("+++ "):
            new_path = _header_path(lines[i + 1])
            old_path = _header_path(line)
            raw = new_path if new_path != "/dev/null" else old_path
            parts = [p for p in raw.split("/") if p not in ("", ".")]
            chosen = None
            for k in range(len(parts)):
                rest = parts[k:]
                root = locate(rest[0])
                if root is not None and (root / Path(*rest)).is_file():
                    chosen = (rest, root)
                    break
            if chosen is None:
                raise UsageError(f"{name}: the diff patches {raw!r}, which is not a file of any importable "
                                 "package here (is the implementation installed?)")
            rest, root = chosen
            tops[rest[0]] = root
            rel = "/".join(rest)
            nl = "\n" if line.endswith("\n") else ""
            out += [f"--- a/{rel}{nl}", f"+++ b/{rel}{nl}"]
            i += 2
            continue
        out.append(line)
        i += 1
    return "".join(out), tops


_HUNK = re.compile(r"^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@")


def check_complete(diff: str, name: str) -> None:
    """Every hunk holds the lines its header announces: a diff cut short (a truncated
    download, a copy and paste that lost its end) was applied as far as it went and audited
    as if it were the patch (issue 29).  UsageError naming the hunk."""
    lines = diff.splitlines()
    i = 0
    while i < len(lines):
        m = _HUNK.match(lines[i])
        if not m:
            i += 1
            continue
        want_old = int(m.group(1)) if m.group(1) is not None else 1
        want_new = int(m.group(2)) if m.group(2) is not None else 1
        old = new = 0
        at = i + 1  # the header's line number
        i += 1
        while i < len(lines) and (old < want_old or new < want_new or lines[i].startswith("\\")):
            tag = lines[i][:1]
            if tag not in (" ", "-", "+", "\\", ""):
                break
            old += tag in (" ", "-", "")
            new += tag in (" ", "+", "")
            i += 1
        if old < want_old or new < want_new:
            raise UsageError(f"{name}: truncated diff: the hunk at line {at} announces {want_old} old and "
                             f"{want_new} new lines but holds {old} and {new} (is the diff complete?)")


def _line_ends(diff: str, files, site_dir: Path) -> str:
    """Why a diff with CRLF line ends does not apply to files with LF ones, or ""."""
    if "\r\n" not in diff:
        return ""
    for rel in files:
        try:
            if b"\r\n" in (Path(site_dir) / rel).read_bytes():
                return ""
        except OSError:
            return ""
    return ("; the diff has CRLF (Windows) line ends and the files LF ones: convert the diff "
            "(dos2unix, or git diff with core.autocrlf false) and try again")


def prepare_after(target, *, diff: Optional[str], diff_name: str, source: Optional[Path],
                  dest: Path, with_cwd: bool = True) -> tuple[Path, list[str], list[str]]:
    """Build the after tree of ``target`` (a ``Target``); returns (directory to put first on
    PYTHONPATH, the top-level packages that must be imported from it, the files the diff
    changes)."""
    from ..upstream.patching import PatchError, apply_to_copy, diff_files

    tops = target.packages()
    src_root = source_root(source, tops) if source is not None else None
    if diff is None:
        return src_root, [tops[0]], []

    def locate(top: str) -> Optional[Path]:
        if src_root is not None:
            return src_root if ((src_root / top).exists() or (src_root / f"{top}.py").exists()) else None
        return package_root(top, with_cwd=with_cwd)

    diff, touched = normalize_diff(diff, diff_name, locate)
    refuse_foreign(touched, tops, diff_name)
    roots = set(touched.values())
    if len(roots) > 1:
        raise UsageError(f"{diff_name}: the diff touches packages in different directories "
                         f"({', '.join(sorted(str(r) for r in roots))}); split it")
    site_dir = roots.pop()
    try:
        apply_to_copy(diff, site_dir, dest)
    except PatchError as exc:
        raise UsageError(f"{diff_name} does not apply to {', '.join(sorted(touched))} in {site_dir}: "
                         f"{_one_line(str(exc))}{_line_ends(diff, diff_files(diff), site_dir)}") from None
    return dest, sorted(touched), diff_files(diff)


#: chrf-audit's own packages: a diff of the oracle would make the after-audit compare the
#: implementation with a patched reference.
OWN_PACKAGES = ("audit", "reference_impl")
_OWN_DIRS = {Path(__file__).resolve().parents[2] / p for p in OWN_PACKAGES}


def refuse_foreign(touched: dict, tops: list, diff_name: str) -> None:
    """A diff may patch only the implementation's own top-level package(s), never chrf-audit
    itself: anything else (another installed package, a directory named by an absolute path
    that happens to be importable as a namespace) is refused before any copy is made."""
    for top, root in touched.items():
        if top in OWN_PACKAGES or (Path(root) / top).resolve() in _OWN_DIRS:
            raise UsageError(f"{diff_name}: the diff patches chrf-audit itself ({top}); "
                             "validate-patch only patches the implementation under audit")
        if top not in tops:
            raise UsageError(f"{diff_name}: the diff patches {top!r}, not the implementation's package "
                             f"({', '.join(tops)})")


def _one_line(text: str, limit: int = 300) -> str:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    failing = [ln for ln in lines if "FAILED" in ln or "malformed" in ln.lower() or "can't find" in ln.lower()
               or "reversed" in ln.lower() or "does not apply" in ln]
    text = "; ".join(failing or lines[-2:]) or "patch failed"
    return text if len(text) <= limit else text[: limit - 1] + "…"
