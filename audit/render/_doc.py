"""Reading the document (audit.json, ``json_report.build``) for the renderers: an
implementation's findings, its families with both levels together, the shared formatting of
a finding's numbers.  Pure functions of plain data."""

from __future__ import annotations

from typing import Optional

from reference_impl.params import DEFINITIONS  # noqa: F401  (one definition each; the renderers read them here)

from ..findings import LEVELS
from ._text import md_inline, num, repro_text, signed


def version_of(doc: dict, entry: dict) -> Optional[str]:
    """The version of an implementation as markdown shows it (``md_inline``): the one place
    its text, untrusted (an external program's hello, a contract file, an audit.json), is made
    safe for titles, headings and sentences; None when unknown."""
    version = entry.get("version") or (doc["environment"].get("packages") or {}).get(entry["implementation"])
    return md_inline(version, 80) if version else None


def cache_note(verification: Optional[dict]) -> str:
    """" This verdict is from the cache (chrf-audit VERSION): ..." when a patch's verdict was
    read from the verification cache (``from_cache``, audit.json), else ""."""
    cached = (verification or {}).get("from_cache") if isinstance(verification, dict) else None
    if not isinstance(cached, dict):
        return ""
    return (f" This verdict is from the cache (chrf-audit {md_inline(str(cached.get('chrf_audit')), 40)}): an "
            "earlier run with the same patch, findings, code and installed library computed it.")


def findings_of(doc: dict, implementation: str) -> list[dict]:
    return [f for f in doc["findings"] if f.get("implementation") == implementation]


def families(findings: list[dict]) -> list[list[dict]]:
    """The findings grouped by family (and title: unexplained divergences of different
    signatures are different bugs), in report order; each group holds its levels in the
    order sentence, corpus."""
    groups: dict[tuple, list[dict]] = {}
    for f in findings:
        groups.setdefault((f["family"], f.get("title", "")), []).append(f)
    return [sorted(g, key=lambda f: LEVELS.index(f["level"]) if f["level"] in LEVELS else 9) for g in groups.values()]


def anchors(groups: list[list[dict]]) -> list[str]:
    """GitHub's anchors of the family headings ("## `family`"): the id, then id-1, id-2 for
    repeated ones."""
    seen: dict[str, int] = {}
    out = []
    for g in groups:
        fam = g[0]["family"]
        k = seen.get(fam, 0)
        seen[fam] = k + 1
        out.append(fam if k == 0 else f"{fam}-{k}")
    return out


def first(group: list[dict], key: str):
    """The first non-empty value of ``key`` among a family's findings."""
    return next((f[key] for f in group if f.get(key)), None)


def distinct(group: list[dict], key: str) -> list[tuple[list[dict], object]]:
    """The distinct non-empty values of ``key`` with the findings that carry each."""
    out: list[tuple[list[dict], object]] = []
    for f in group:
        v = f.get(key)
        if not v:
            continue
        for fs, seen in out:
            if seen == v:
                fs.append(f)
                break
        else:
            out.append(([f], v))
    return out


def is_metamorphic(f: dict) -> bool:
    return f["family"].startswith("metamorphic-")


def actual_text(f: dict, digits: int = 10) -> str:
    m = f["minimal"]
    return num(m["actual"], digits) if m["outcome"] == "value" and m["actual"] is not None else m["outcome"]


def claims_text(claims: dict, against: Optional[dict] = None) -> str:
    """``k=v, ...`` in the usual order; with ``against``: only the parameters that differ."""
    keys = ("char_order", "word_order", "beta", "lowercase", "whitespace", "definition", "scale")
    items = [(k, claims[k]) for k in keys if k in claims] + [(k, v) for k, v in claims.items() if k not in keys]
    if against is not None:
        items = [(k, v) for k, v in items if against.get(k) != v]
    return ", ".join(f"{k}={v}" for k, v in items)


def largest_text(f: dict, code=lambda s: s, limit: Optional[int] = 80) -> Optional[str]:
    """The largest difference seen, with the parameters it was scored under when they are not
    the finding's (the claims swarm); None when it is the minimal repro itself.  ``code``
    formats the repro (inline code in markdown)."""
    L = f.get("largest")
    if not L or L == f["minimal"]:
        return None
    under = f" with {claims_text(L['claims'], f.get('claims') or {})}" if L.get("claims") else ""
    actual = num(L["actual"]) if L.get("actual") is not None else L["outcome"]
    return (f"{signed(L.get('difference'), 8)} on {code(repro_text(L['inputs'], limit))}{under} "
            f"(expected {num(L['expected'])}, actual {actual})")


def marked_line(excerpt: str) -> Optional[str]:
    """The root-cause line of an excerpt (the one marked ``NNN>``), its code only."""
    for line in excerpt.splitlines():
        head, sep, code = line.partition(">")
        if sep and head.strip().isdigit():
            return code.strip()
    return None


def source_where(rc: dict) -> str:
    """Where a root cause is, as a report prints it: the file relative to its package (an
    absolute path, e.g. an external program's on the auditing machine, shows its file name
    only: audit.json keeps the path), the line and the function."""
    path = str(rc.get("file") or "")
    shown = path.replace("\\", "/").rsplit("/", 1)[-1] if path.startswith(("/", "\\")) or path[1:3] == ":\\" else path
    return f"`{shown}`" + (f", line {rc['line']}" if rc.get("line") else "") + (
        f", in `{rc['function']}`" if rc.get("function") else "")
