"""The baseline: a committed JSON file of accepted findings, so that ``chrf-audit check``
fails only on new ones.

Format (``schema_version`` 1)::

    {
      "schema_version": 1,
      "accepted": [
        {"fingerprint": "3f1c0a9e5d2b7c44",     # sha256("implementation\\0family")[:16]
         "implementation": "nltk",
         "family": "requested-order-divisor",
         "reason": "upstream issue nltk#1234",
         "expires": "2026-06-30"}              # optional ISO date
      ]
    }

An entry is keyed by the fingerprint of (implementation, family): the repro, the numbers and
the package version may change without invalidating it.  ``fingerprint`` may be left out
when editing by hand (it is computed); a fingerprint that does not match its
implementation and family is an error.  Other keys of an entry are kept as they are.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Optional

from ..files import jsontext
from ..errors import UsageError
from ..files.textfiles import read_json

SCHEMA_VERSION = 1
_ENTRY_KEYS = ("fingerprint", "implementation", "family", "reason", "expires")


def fingerprint(implementation: str, family: str) -> str:
    """Stable key of an accepted finding: first 16 hex digits of sha256("impl\\0family").

    Any name hashes (a lone surrogate as its surrogatepass bytes), and a name hashes as it
    reads back from the baseline's JSON (a high surrogate followed by a low one is one
    character there: jsontext)."""
    key = f"{implementation}\0{family}".encode("utf-16", "surrogatepass").decode("utf-16", "surrogatepass")
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def parse_date(text: str, what: str) -> _dt.date:
    try:
        return _dt.date.fromisoformat(str(text))
    except ValueError:
        raise UsageError(f"{what}: {text!r} is not an ISO date (YYYY-MM-DD)") from None


@dataclass
class Entry:
    implementation: str
    family: str
    reason: str = ""
    expires: Optional[_dt.date] = None
    extra: dict = field(default_factory=dict)  # unknown keys, kept on rewrite

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.implementation, self.family)

    def expired(self, today: _dt.date) -> bool:
        return self.expires is not None and self.expires < today

    def to_dict(self) -> dict:
        d = {"fingerprint": self.fingerprint, "implementation": self.implementation, "family": self.family,
             "reason": self.reason}
        if self.expires is not None:
            d["expires"] = self.expires.isoformat()
        d.update(self.extra)
        return d


@dataclass
class Baseline:
    path: Optional[Path] = None
    entries: dict[str, Entry] = field(default_factory=dict)  # fingerprint -> entry
    exists: bool = False

    def get(self, implementation: str, family: str) -> Optional[Entry]:
        return self.entries.get(fingerprint(implementation, family))

    def to_json(self) -> str:
        rows = sorted(self.entries.values(), key=lambda e: (e.implementation, e.family))
        doc = {"schema_version": SCHEMA_VERSION, "accepted": [e.to_dict() for e in rows]}
        return jsontext.dumps(doc, readable=True)

    def save(self, path: Optional[Path] = None) -> Path:
        target = Path(path or self.path)
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(target.name + ".tmp")
        with open(tmp, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(self.to_json())
        os.replace(tmp, target)
        return target


def _entry(name: str, i: int, raw) -> Entry:
    where = f"{name}: accepted[{i}]"
    if not isinstance(raw, dict):
        raise UsageError(f"{where} must be an object")
    for key in ("implementation", "family"):
        if not isinstance(raw.get(key), str) or not raw[key]:
            raise UsageError(f"{where}: {key} must be a non-empty string")
    reason = raw.get("reason", "")
    if not isinstance(reason, str):
        raise UsageError(f"{where}: reason must be a string")
    expires = raw.get("expires")
    if expires is not None:
        if not isinstance(expires, str):
            raise UsageError(f"{where}: expires must be an ISO date string (YYYY-MM-DD)")
        expires = parse_date(expires, f"{where}: expires")
    entry = Entry(raw["implementation"], raw["family"], reason, expires,
                  {k: v for k, v in raw.items() if k not in _ENTRY_KEYS})
    fp = raw.get("fingerprint")
    if fp is not None and fp != entry.fingerprint:
        raise UsageError(f"{where}: fingerprint {fp!r} does not match {entry.implementation!r} / "
                         f"{entry.family!r} (expected {entry.fingerprint!r}; delete the field to recompute it)")
    return entry


def load(path: Path) -> Baseline:
    """Read a baseline; a missing file is an empty baseline (``exists`` False)."""
    path = Path(path)
    if not path.exists():
        return Baseline(path=path)
    doc = read_json(path, "a baseline")
    if not isinstance(doc, dict) or not isinstance(doc.get("accepted", None), list):
        raise UsageError(f'{path}: not a chrf-audit baseline (expected an object with an "accepted" list)')
    version = doc.get("schema_version", SCHEMA_VERSION)
    if version != SCHEMA_VERSION:
        raise UsageError(f"{path}: unsupported baseline schema_version {version!r} (expected {SCHEMA_VERSION})")
    base = Baseline(path=path, exists=True)
    for i, raw in enumerate(doc["accepted"]):
        e = _entry(path.name, i, raw)
        if e.fingerprint in base.entries:
            raise UsageError(f"{path.name}: accepted[{i}] duplicates {e.implementation!r} / {e.family!r}")
        base.entries[e.fingerprint] = e
    return base


@dataclass
class Comparison:
    """Findings of one run against a baseline."""

    new: list = field(default_factory=list)  # Finding: not accepted -> fails
    accepted: list = field(default_factory=list)  # (Finding, Entry)
    stale: list = field(default_factory=list)  # (Entry, why): accepted but not found
    expired: list = field(default_factory=list)  # (Entry, Finding): accepted, still found, past its date

    def failed(self, strict: bool = False) -> bool:
        return bool(self.new) or (strict and bool(self.stale or self.expired))


def compare(findings: Iterable, baseline: Baseline, *, today: _dt.date,
            audited: Optional[Iterable[str]] = None) -> Comparison:
    """Sort ``findings`` into new and accepted; list stale entries (accepted, no longer found:
    ``why`` is "no longer reproduces" or "not audited" when its implementation was not in
    ``audited``) and expired ones (still found, ``expires`` before ``today``)."""
    out = Comparison()
    audited = set(audited) if audited is not None else None
    seen = set()
    for f in findings:
        entry = baseline.get(f.implementation, f.family)
        if entry is None:
            out.new.append(f)
            continue
        out.accepted.append((f, entry))
        if entry.expired(today) and entry.fingerprint not in seen:  # one entry covers every level
            out.expired.append((entry, f))
        seen.add(entry.fingerprint)
    for fp, entry in sorted(baseline.entries.items(), key=lambda kv: (kv[1].implementation, kv[1].family)):
        if fp not in seen:
            why = "not audited" if audited is not None and entry.implementation not in audited else "no longer reproduces"
            out.stale.append((entry, why))
    return out


def update_file(path: Path, findings: Iterable, *, audited: Iterable[str], today: _dt.date) -> tuple[int, list, list]:
    """Accept ``findings`` in the baseline file at ``path``, changing only the entries of the
    implementations in ``audited`` (the ones this run looked at): their entries that no longer
    reproduce are removed, new findings are added (reason "accepted <today>"), and every other
    entry, top-level key and the order of entries is kept as it is (the raw JSON objects, so
    hand-written reasons and unknown keys survive unchanged).

    The read-modify-write happens under an exclusive lock on the baseline's directory, and the
    file is replaced atomically: concurrent updates are serialized and neither loses the
    other's entries.  Nothing changed: the file is not rewritten.
    Returns (number of accepted entries, added entries, removed entries)."""
    from ..files.locking import locked
    from ..files.outputs import atomic_write

    path = Path(path)
    audited = set(audited)
    findings = list(findings)
    path.parent.mkdir(parents=True, exist_ok=True)
    with locked(path.parent):
        current = load(path)  # validated; re-read under the lock (another run may have written)
        doc = read_json(path, "a baseline") if current.exists else {"schema_version": SCHEMA_VERSION}
        raw_entries = list(doc.get("accepted", []))
        wanted = {}
        for f in findings:
            if f.implementation in audited:
                wanted.setdefault(fingerprint(f.implementation, f.family), f)
        kept, removed = [], []
        for raw in raw_entries:
            e = _entry(path.name, 0, raw)
            if e.implementation in audited and e.fingerprint not in wanted:
                removed.append(e)
            else:
                kept.append(raw)
        present = {_entry(path.name, 0, raw).fingerprint for raw in kept}
        added = []
        for fp, f in wanted.items():
            if fp in present:
                continue
            entry = Entry(f.implementation, f.family, f"accepted {today.isoformat()}")
            added.append(entry)
            # after the last entry of the same implementation (else at the end): the others keep their place
            at = max((i + 1 for i, raw in enumerate(kept) if raw.get("implementation") == f.implementation),
                     default=len(kept))
            kept.insert(at, entry.to_dict())
        if added or removed or not current.exists:
            doc["accepted"] = kept
            doc.setdefault("schema_version", SCHEMA_VERSION)
            if list(doc)[0] != "schema_version":
                doc = {"schema_version": doc.pop("schema_version"), **doc}
            atomic_write(path, jsontext.dumps(doc, readable=True))
        return len(kept), added, removed


def updated(baseline: Baseline, findings: Iterable, *, today: _dt.date) -> tuple[Baseline, list, list]:
    """A baseline accepting exactly ``findings``: existing entries keep their reason and expiry,
    new ones get the reason "accepted <today>", stale ones are dropped.
    Returns (baseline, added entries, removed entries)."""
    new = Baseline(path=baseline.path, exists=baseline.exists)
    added = []
    for f in findings:
        fp = fingerprint(f.implementation, f.family)
        if fp in new.entries:
            continue
        entry = baseline.entries.get(fp)
        if entry is None:
            entry = Entry(f.implementation, f.family, f"accepted {today.isoformat()}")
            added.append(entry)
        new.entries[fp] = entry
    removed = [e for fp, e in baseline.entries.items() if fp not in new.entries]
    return new, added, removed
