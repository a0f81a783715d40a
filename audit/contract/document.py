"""A contract document a service publishes (``--contract URL``, ``--contract auto``) or a file
gives, compared with the built-in contract of the same name@version (pure: text in, a
contract and its differences out).

Two forms are read:

* a **chrf-audit contract** (``contract_format`` 1, ``docs/http.md``): checked like a contract
  file and audited as it is; its differences from the built-in contract of its
  name@version, if there is one, are reported;
* a **tool document**: ``id`` (or ``name``) and ``version``, with any of ``input_schema``,
  ``output_schema`` and ``limits`` (``max_segments``, ``max_text_bytes``) -- the parts of a
  published tool a machine reads.  It does not state the metric, so the audit holds the
  service to the built-in contract of that name@version (none: a one-line error), and each
  part the document states differently is reported.

A document is untrusted: it is read only as JSON of bounded depth, checked against a schema,
its schemas may refer only into themselves (``references``), and its strings are shown cut and
escaped by the renderers.
"""

from __future__ import annotations

import json
from typing import Any, Optional

from ..errors import UsageError
from . import references, schemas
from .spec import Contract, builtin_names, load, load_json, parse

#: the parts of two chrf-audit contracts compared (identity, title, source and notes are words)
COMPARED = ("metric", "request", "mcp", "response", "errors", "parameters", "limits", "validation_order",
            "ambiguities", "input_schema", "output_schema", "example", "machine_readable")
#: differences reported, at most
MOST = 20
_NAME = {"type": "string", "pattern": "^[a-z0-9][a-z0-9.-]{0,63}$"}
TOOL_SCHEMA = {
    "type": "object", "required": ["version"],
    "properties": {
        "id": _NAME, "name": _NAME,
        "version": {"type": "string", "pattern": "^[0-9A-Za-z][0-9A-Za-z.+_~-]{0,63}$"},
        "input_schema": {"type": "object"}, "output_schema": {"type": "object"},
        "limits": {"type": "object", "properties": {"max_segments": {"type": "integer"},
                                                    "max_text_bytes": {"type": "integer"}}},
    },
    "anyOf": [{"required": ["id"]}, {"required": ["name"]}],
}


def read(text: str, origin: str) -> tuple[Contract, list, str]:
    """(the contract to audit with, the differences from the built-in contract of the same
    name@version, "document" or "built-in": which one is audited).  UsageError (one line
    naming ``origin``) for anything that is not one of the two forms."""
    doc = load_json(text, origin, "a contract", 120)
    if isinstance(doc, dict) and "contract_format" in doc:
        contract = parse(text, origin)
        builtin = _builtin(contract.id)
        return contract, (differences(contract.doc, builtin.doc) if builtin else []), "document"
    errors = schemas.errors(TOOL_SCHEMA, doc)
    if errors:
        raise UsageError(f"{origin}: neither a chrf-audit contract (contract_format) nor a tool document: {errors[0]}")
    for key in ("input_schema", "output_schema"):  # compared, never validated with: still nothing outside
        why = references.problem(doc.get(key))
        if why:
            raise UsageError(f"{origin}: {key} {why}")
    ident = f"{doc.get('id') or doc.get('name')}@{doc['version']}"
    builtin = _builtin(ident)
    if builtin is None:
        raise UsageError(f"{origin}: a tool document of {ident}, for which chrf-audit has no contract (built in: "
                         f"{', '.join(builtin_names())}); give a chrf-audit contract file")
    b = builtin.doc
    mine = {"input_schema": b["input_schema"], "output_schema": b["output_schema"],
            "limits": {k: b["limits"][k] for k in ("max_segments", "max_text_bytes")}}
    theirs = {k: doc[k] for k in mine if k in doc}
    if "limits" in theirs:
        theirs["limits"] = {k: theirs["limits"][k] for k in ("max_segments", "max_text_bytes") if k in theirs["limits"]}
        mine["limits"] = {k: mine["limits"][k] for k in theirs["limits"]}
    return builtin, differences(theirs, {k: mine[k] for k in theirs}, parts=tuple(theirs)), "built-in"


def _builtin(ident: str) -> Optional[Contract]:
    return load(ident) if ident in builtin_names() else None


def differences(doc: dict, builtin: dict, parts: tuple = COMPARED) -> list[str]:
    """Where ``doc`` states ``parts`` otherwise than ``builtin``: one line each, at most
    ``MOST`` (then how many more)."""
    out: list = []
    for key in parts:
        _walk(doc.get(key, _ABSENT), builtin.get(key, _ABSENT), f"/{key}", out)
    if len(out) > MOST:
        out = out[:MOST] + [f"... and {len(out) - MOST} more"]
    return out


class _Absent:
    def __repr__(self) -> str:
        return "(absent)"


_ABSENT = _Absent()


def _walk(a: Any, b: Any, where: str, out: list) -> None:
    if len(out) > 10 * MOST:
        return
    if isinstance(a, dict) and isinstance(b, dict):
        for k in list(b) + [k for k in a if k not in b]:
            _walk(a.get(k, _ABSENT), b.get(k, _ABSENT), f"{where}/{k.replace('~', '~0').replace('/', '~1')}", out)
        return
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            _walk(x, y, f"{where}/{i}", out)
        return
    if a is _ABSENT and b is _ABSENT:
        return
    if type(a) is not type(b) or a != b:
        out.append(f"{where}: {_short(a)} (built in: {_short(b)})")


def _short(v: Any) -> str:
    text = repr(v) if v is _ABSENT else json.dumps(v, ensure_ascii=True)
    return text if len(text) <= 80 else text[:79] + "…"
