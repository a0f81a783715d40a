"""The exact shape of a patch verification's summary (``suggested.summary``), written down once.

``suggested.summary`` writes it, audit.json keeps it (``patch.verification``) and the
verification cache (``audit.enrich.verify_cache``) keeps it between runs.  What the cache
gives back is used only when ``valid`` says so: every field of ``SCHEMA`` and no other, of its
type and within its bounds, its texts one printable line, and consistent with the
verification it is said to be of (``Expected``: the families the patch is meant to fix, the
keywords it is called with, the repros the audit and the library's record offer for each
family, whether the library's gates and its record's check are run) and with its own verdict
(verified only with each family's repro holding, the library's tests run and none broken, the
default unchanged, every gate passed, the check holding).  Anything else is recomputed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from fractions import Fraction

#: the longest text a field may hold (a status names an error; a raw output is a number's text)
STATUS_CHARS, RAW_CHARS, NAME_CHARS = 2000, 1000, 200
#: the most a count (tests passed or failed, doctest examples) may be
COUNT = 10 ** 6

_NUMBER = {"type": ["number", "null"]}
_RAW = {"type": ["string", "null"], "maxLength": RAW_CHARS}
_NAME = {"type": "string", "minLength": 1, "maxLength": NAME_CHARS}
_COUNT = {"type": "integer", "minimum": 0, "maximum": COUNT}
_DELTA = {"type": "integer", "minimum": -COUNT, "maximum": COUNT}


def _closed(properties: dict) -> dict:
    """An object with exactly these fields."""
    return {"type": "object", "properties": properties, "required": sorted(properties),
            "additionalProperties": False}


_SIDE = _closed({"passed": _COUNT, "failed": _COUNT})
_REPRO = _closed({
    "level": {"enum": ["sentence", "corpus"]}, "inputs": {"type": "object"}, "minimal": {"type": "boolean"},
    "holds": {"type": "boolean"}, "expected": _NUMBER,
    "expected_fraction": {"type": ["string", "null"], "maxLength": RAW_CHARS},
    "before": _NUMBER, "before_raw": _RAW, "after": _NUMBER, "after_raw": _RAW,
    "after_key": {"type": ["array", "null"], "items": _NAME, "maxItems": 100},
})

_TEXT = {"type": "string", "maxLength": STATUS_CHARS}
_GATE = _closed({"gate": _NAME, "result": {"enum": ["passed", "failed", "not run"]},
                 "detail": {"type": ["string", "null"], "maxLength": STATUS_CHARS}})
_GATES = _closed({"where": _TEXT, "before": {"type": "array", "items": _GATE, "maxItems": 100},
                  "after": {"type": "array", "items": _GATE, "maxItems": 100},
                  "not_run": {"type": "array", "items": _TEXT, "maxItems": 100}})
_CHECK = _closed({"output": {"type": "array", "items": {"type": "string", "maxLength": RAW_CHARS}, "maxItems": 20},
                  "holds": {"type": "boolean"}, "error": {"type": ["string", "null"], "maxLength": STATUS_CHARS}})

#: THE shape of ``suggested.summary``'s result (a JSON Schema, draft 2020-12, no reference)
SCHEMA = _closed({
    "verified": {"type": "boolean"},
    "status": {"type": "string", "minLength": 1, "maxLength": STATUS_CHARS},
    "families": {"type": "array", "items": _NAME, "minItems": 1, "maxItems": 100},
    "options": {"type": "object", "maxProperties": 100,
                "additionalProperties": {"type": ["string", "number", "boolean", "null"]}},
    "repros": {"type": "object", "maxProperties": 100, "additionalProperties": _REPRO},
    "default_unchanged": {"type": ["boolean", "null"]},
    "library_tests": {"oneOf": [{"type": "null"}, _closed({
        "files": {"type": "array", "items": _NAME, "minItems": 1, "maxItems": 100},
        "before": _SIDE, "after": _SIDE, "broken": {"oneOf": [{"type": "null"}, _COUNT]},
        "regression": {"oneOf": [{"type": "null"}, _closed({"added": _DELTA, "failing_before": _DELTA})]},
    })]},
    "gates": {"oneOf": [{"type": "null"}, _GATES]},
    "check": {"oneOf": [{"type": "null"}, _CHECK]},
})


@dataclass(frozen=True)
class Expected:
    """What a verification's summary must say of itself: the ``families`` it is of, the
    ``options`` (keywords) the patched copy is called with, and per family the repros it may
    have replayed: ``(level, inputs, minimal)``, those of the audit and of the library's record
    (``suggested.expected_summary`` makes it from the arguments of ``verify_suggested``)."""

    families: list
    options: dict = field(default_factory=dict)
    repros: dict = field(default_factory=dict)
    #: the library's gates are run (it has a record of them) / the record's check is run
    gates: bool = False
    check: bool = False


def _validator():
    import jsonschema

    return jsonschema.Draft202012Validator(SCHEMA)


def _line(s) -> bool:
    return isinstance(s, str) and s.isprintable()


_FILE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*(/[A-Za-z0-9_][A-Za-z0-9_.-]*)*")
_FRACTION = re.compile(r"-?[0-9]+/[1-9][0-9]*")


def _repro_ok(fam: str, r: dict, exp: Expected) -> bool:
    if (r["level"], r["inputs"], r["minimal"]) not in exp.repros.get(fam, ()):
        return False
    if not all(x is None or _line(x) for x in (r["before_raw"], r["after_raw"], *(r["after_key"] or ()))):
        return False
    frac = r["expected_fraction"]
    if frac is None:
        return r["expected"] is None
    return bool(_FRACTION.fullmatch(frac)) and r["expected"] == float(Fraction(frac))


def _verdict_ok(doc: dict) -> bool:
    """The status and the verdict agree, and "verified" comes with what verified it."""
    if not doc["verified"]:
        return doc["status"].startswith(("not verified: ", "breaks ", "not checked: "))
    lt, repros, gates, check = doc["library_tests"], doc["repros"], doc["gates"], doc["check"]
    return (doc["status"] == "verified" and lt is not None and lt["broken"] == 0
            and doc["default_unchanged"] is not False
            and all(fam in repros and repros[fam]["holds"] for fam in doc["families"])
            and (gates is None or all(g["result"] == "passed" for g in gates["after"]))
            and (check is None or check["holds"]))


def well_formed(doc) -> bool:
    """Whether ``doc`` has exactly ``SCHEMA``'s shape (what ``valid`` checks first)."""
    return isinstance(doc, dict) and _validator().is_valid(doc)


def valid(doc, exp: Expected) -> bool:
    """Whether ``doc`` is a verification summary of exactly ``SCHEMA``'s shape, its texts one
    printable line each, and consistent with ``exp`` and with its own verdict."""
    if not well_formed(doc):
        return False
    lt = doc["library_tests"]
    files = lt["files"] if lt else []
    counts = [lt[side][n] for side in ("before", "after") for n in ("passed", "failed")] if lt else []
    return (all(type(n) is int for n in counts) and doc["families"] == list(exp.families) and doc["options"] == exp.options
            and _line(doc["status"]) and set(doc["repros"]) <= set(exp.families)
            and all(_FILE.fullmatch(f) and ".." not in f.split("/") for f in files)
            and all(_repro_ok(fam, r, exp) for fam, r in doc["repros"].items())
            and (doc["gates"] is not None) == exp.gates and (doc["check"] is not None) == exp.check
            and all(_line(x) for x in _texts(doc)) and _verdict_ok(doc))


def _texts(doc: dict) -> list:
    """The texts of the gates and the check (each one printable line)."""
    gates, check = doc["gates"] or {}, doc["check"] or {}
    out = [gates.get("where", ""), *gates.get("not_run", []), *(check.get("output") or []), check.get("error") or ""]
    out += [g["detail"] for side in ("before", "after") for g in gates.get(side, []) if g["detail"] is not None]
    return [x for x in out if x]
