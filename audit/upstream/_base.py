"""Shared helpers for the upstream knowledge modules: claims, literals, source search."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
import re
from fractions import Fraction
from pathlib import Path
from typing import Optional

#: Defaults of the reference parameters, used where a claims dict leaves one out.
CLAIM_DEFAULTS = {
    "char_order": 6,
    "word_order": 0,
    "beta": 2,
    "lowercase": False,
    "whitespace": False,
    "definition": "sacrebleu",
    "scale": 100,
}


def claims_with_defaults(claims: Optional[dict]) -> dict:
    out = dict(CLAIM_DEFAULTS)
    out.update({k: v for k, v in (claims or {}).items() if v is not None})
    return out


def exact_beta(beta) -> Fraction:
    """The claimed beta as an exact Fraction (accepts int, float, Fraction, "3", "1/2")."""
    if isinstance(beta, str):
        return Fraction(beta)
    return Fraction(beta)


def beta_literal(beta) -> str:
    """A Python literal for beta: ``3`` stays ``3``, ``1/2`` becomes ``0.5``."""
    b = exact_beta(beta)
    return str(b.numerator) if b.denominator == 1 else repr(float(b))


def reference_kwargs(claims: dict) -> dict:
    """Keyword arguments of ``reference_impl.sentence_score`` / ``corpus_score``."""
    c = claims_with_defaults(claims)
    return {
        "char_order": int(c["char_order"]),
        "word_order": int(c["word_order"]),
        "beta": exact_beta(c["beta"]),
        "lowercase": bool(c["lowercase"]),
        "whitespace": bool(c["whitespace"]),
        "definition": c["definition"],
    }


def py_literal(s: str) -> str:
    """A double-quoted Python string literal of ``s`` that survives copy and paste:
    printable characters stay as they are, everything else is an escape (\\uXXXX)."""
    out = ['"']
    for ch in s:
        if ch == "\\":
            out.append("\\\\")
        elif ch == '"':
            out.append('\\"')
        elif ch.isprintable():
            out.append(ch)
        else:
            cp = ord(ch)
            out.append(f"\\u{cp:04x}" if cp <= 0xFFFF else f"\\U{cp:08x}")
    out.append('"')
    return "".join(out)


def py_list_literal(items) -> str:
    return "[" + ", ".join(py_literal(x) if isinstance(x, str) else py_list_literal(x) for x in items) + "]"


def module_source(module_name: str) -> tuple[Path, Path, str]:
    """(absolute file, the directory the top-level package lives in, source text) of an
    installed module.  Imports the module (that is how the installed copy is found)."""
    mod = importlib.import_module(module_name)
    path = Path(inspect.getsourcefile(mod)).resolve()
    top = module_name.split(".")[0]
    spec = importlib.util.find_spec(top)
    pkg_dir = Path(list(spec.submodule_search_locations)[0]).resolve()
    return path, pkg_dir.parent, path.read_text(encoding="utf-8")


def apply_edits(module_name: str, edits) -> Optional[tuple[str, str, str]]:
    """(file relative to site-packages, original text, text with each (old, new) edit made)
    of an installed module, or None when ``edits`` is None, the module is not there, or an
    ``old`` text does not occur exactly once (the installed version is not the one the
    patch was written for)."""
    if edits is None:
        return None
    try:
        path, root, text = module_source(module_name)
    except Exception:
        return None
    new = text
    for old, repl in edits:
        if new.count(old) != 1:
            return None
        new = new.replace(old, repl)
    return path.relative_to(root).as_posix(), text, new


def combine_edits(module_name: str, edits: dict, combined: dict, families) -> Optional[tuple[str, str, str, list[str]]]:
    """One patched text fixing every family of ``families`` that has edits: (file, original
    text, patched text, those families in the given order), or None when fewer than two
    have edits or the edits do not combine.  A group of ``combined`` (frozenset of
    families -> edits) whose families are all fixed replaces their own edits (which
    overlap); the other families' edits are made one after the other, each ``old`` text
    occurring exactly once at its turn (``apply_edits``)."""
    fams = [f for f in dict.fromkeys(families) if f in edits]
    if len(fams) < 2:
        return None
    todo, plan = set(fams), []
    for group, group_edits in sorted(combined.items(), key=lambda g: -len(g[0])):
        if group <= todo:
            plan += group_edits
            todo -= group
    for f in fams:
        if f in todo:
            plan += edits[f]
    found = apply_edits(module_name, plan)
    return None if found is None else (*found, fams)


def enclosing_function(source: str, line: int) -> Optional[str]:
    """Qualified name of the innermost function (or method) containing ``line``."""
    tree = ast.parse(source)
    best: Optional[tuple[int, str]] = None

    def visit(node, prefix):
        nonlocal best
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{prefix}{child.name}"
                if isinstance(child, ast.ClassDef):
                    visit(child, name + ".")
                    continue
                if child.lineno <= line <= (child.end_lineno or child.lineno):
                    if best is None or child.lineno >= best[0]:
                        best = (child.lineno, name)
                visit(child, name + ".")

    visit(tree, "")
    return best[1] if best else None


def locate(module_name: str, pattern: str, *, context: int = 3) -> Optional[dict]:
    """Find the first line of an installed module's source matching ``pattern`` (a regex):
    ``{"file", "path", "line", "function", "excerpt"}`` or None.  ``file`` is relative to the
    directory holding the top-level package (what a unified diff names), ``path`` absolute."""
    try:
        path, root, text = module_source(module_name)
    except Exception:  # not installed, no source
        return None
    lines = text.splitlines()
    rx = re.compile(pattern)
    for i, line in enumerate(lines, start=1):
        if rx.search(line):
            lo, hi = max(1, i - context), min(len(lines), i + context)
            width = len(str(hi))
            excerpt = "\n".join(
                f"{n:>{width}}{'>' if n == i else ' '} {lines[n - 1]}" for n in range(lo, hi + 1)
            )
            return {
                "file": path.relative_to(root).as_posix(),
                "path": str(path),
                "line": i,
                "function": enclosing_function(text, i),
                "excerpt": excerpt,
            }
    return None


def explain_root_cause(module_name: str, table: dict, family: str) -> Optional[dict]:
    """Locate ``table[family] = (pattern, why)`` in the installed source of ``module_name``."""
    entry = table.get(family)
    if entry is None:
        return None
    found = locate(module_name, entry[0])
    if found is not None:
        found["why"] = entry[1]
    return found
