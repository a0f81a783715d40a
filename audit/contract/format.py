"""The format of a contract file (``contract_format`` 1, docs/http.md): its JSON Schema, the
bounds of what it may declare, and what it states that cannot all hold (pure)."""

from __future__ import annotations

from typing import Optional

from reference_impl.conventions import CONVENTIONS

#: Bounds of what a contract file may declare: what chrf-audit sends and computes follows from
#: them (the limit probes build max_segments segments and max_text_bytes of text, the judge
#: scores them exactly), so a file must not make one audit cost minutes or gigabytes.  The
#: fixed probes hold up to 4 segments and ~300 bytes (the minimums).
BOUNDS = {"max_segments": (4, 4096), "max_text_bytes": (1024, 262144), "beta": (1, 1000),
          "whitespace_code_points": 64, "punctuation": 128}
_STRINGS = {"type": "array", "items": {"type": "string"}}
_POINTER = {"type": "string", "pattern": "^(/[^/]*)*$", "maxLength": 256}

_TEXT = {"type": "string", "maxLength": 1000}
_READING = {"type": "object", "required": ["id", "text"], "additionalProperties": False,
            "properties": {"id": {"type": "string", "pattern": "^[a-z0-9][a-z0-9-]{0,63}$"}, "text": _TEXT}}
#: A point the contract's text leaves open (``checked``: "answers": each reading is accepted
#: and the report names the one a service follows -- the point is a convention chrf-audit
#: computes, ``reference_impl.conventions``, its readings named by id; "decided": the text
#: decides it, its one reading is the judge's; "refusals": any reading is a refusal; "no":
#: no answer can show which reading a service follows)
_AMBIGUITY = {
    "type": "object", "required": ["id", "readings", "checked"], "additionalProperties": False,
    "properties": {"id": {"type": "string", "pattern": "^[a-z0-9][a-z0-9-]{0,63}$"},
                   "text": {"type": "array", "maxItems": 8, "items": _TEXT},
                   "readings": {"type": "array", "minItems": 1, "maxItems": 8,
                                "items": {"anyOf": [{"type": "string", "pattern": "^[a-z0-9][a-z0-9-]{0,63}$"},
                                                    _READING]}},
                   "checked": {"enum": ["answers", "decided", "refusals", "no"]}, "note": _TEXT},
}

#: What a contract file must hold (the parts the audit reads), as a JSON Schema.
CONTRACT_SCHEMA = {
    "type": "object",
    "required": ["contract_format", "name", "version", "metric", "request", "response", "parameters",
                 "limits", "input_schema", "output_schema"],
    "properties": {
        "contract_format": {"const": 1},
        "name": {"type": "string", "pattern": "^[a-z0-9][a-z0-9.-]{0,63}$"},
        "version": {"type": "string", "pattern": "^[0-9A-Za-z][0-9A-Za-z.+_~-]{0,63}$"},
        "metric": {
            "type": "object",
            "required": ["char_order", "word_order", "whitespace", "punctuation", "score_decimals", "rounding"],
            "properties": {
                "char_order": {"type": "integer", "minimum": 1, "maximum": 16},
                "word_order": {"type": "integer", "minimum": 0, "maximum": 4},
                "averaging": {"const": "effective-order"},
                "whitespace": {"type": "array", "minItems": 1, "maxItems": BOUNDS["whitespace_code_points"],
                               "items": {"type": "string", "pattern": "^[0-9A-Fa-f]{4,6}(-[0-9A-Fa-f]{4,6})?$"}},
                "punctuation": {"type": "string", "maxLength": BOUNDS["punctuation"]},
                "score_decimals": {"type": "integer", "minimum": 0, "maximum": 12},
                "rounding": {"const": "half-even"},
            },
        },
        "machine_readable": {"type": "string", "pattern": "^/[A-Za-z0-9._~/@+-]{0,255}$"},
        "mcp": {"type": "object", "required": ["tool", "arguments"],
                "properties": {"tool": {"type": "string", "pattern": "^[A-Za-z0-9_.-]{1,64}$"},
                               "arguments": {"type": "object"}}},
        "ambiguities": {"type": "array", "maxItems": 32, "items": _AMBIGUITY},
        "request": {
            "type": "object", "required": ["method", "body"],
            "properties": {"method": {"enum": ["POST", "PUT"]}, "path": {"type": "string"},
                           "headers": {"type": "object", "additionalProperties": {"type": "string"}},
                           "body": {"type": "object"}},
        },
        "response": {
            "type": "object", "required": ["score", "score_fraction", "segment_scores", "word_tokens"],
            "properties": {
                **{k: _POINTER for k in ("envelope", "score", "score_fraction", "segment_scores", "word_tokens")},
                "echo": {"type": "object", "additionalProperties": _POINTER},
                "word_tokens_item": {"type": "object", "required": ["hypothesis", "reference"],
                                     "properties": {"hypothesis": {"type": "string"}, "reference": {"type": "string"}}},
            },
        },
        "parameters": {
            "type": "object",
            "properties": {
                "beta": {"type": "object", "required": ["minimum", "maximum", "default"],
                         "properties": {k: {"type": "integer", "minimum": BOUNDS["beta"][0], "maximum": BOUNDS["beta"][1]}
                                        for k in ("minimum", "maximum", "default")}},
                "lowercase": {"type": "object", "required": ["default"],
                              "properties": {"default": {"type": "boolean"}}},
            },
        },
        "limits": {
            "type": "object", "required": ["max_segments", "max_text_bytes"],
            "properties": {**{k: {"type": "integer", "minimum": BOUNDS[k][0], "maximum": BOUNDS[k][1]}
                              for k in ("max_segments", "max_text_bytes")},
                           "lone_surrogates": {"enum": ["refused", "accepted"]}},
        },
        "input_schema": {"type": "object"},
        "output_schema": {"type": "object"},
        "example": {
            "type": "object",
            "properties": {
                "request": {"type": "object", "required": ["hypotheses", "references"],
                            "properties": {"hypotheses": {**_STRINGS, "minItems": 1},
                                           "references": {**_STRINGS, "minItems": 1}}},
                "response": {"type": "object"},  # the whole answer (``Contract.field`` reads it)
            },
        },
    },
}


def inconsistent(doc: dict) -> Optional[str]:
    """What a contract file (valid under ``CONTRACT_SCHEMA``) states that cannot all hold, or
    declares that chrf-audit cannot hold answers to (None: nothing)."""
    return _inconsistent(doc) or _undeclarable(doc)


def _inconsistent(doc: dict) -> Optional[str]:
    """What a contract file states that cannot all hold (None: nothing), beyond its schema."""
    beta = doc["parameters"].get("beta")
    if beta and not beta["minimum"] <= beta["default"] <= beta["maximum"]:
        return (f"/parameters/beta: minimum {beta['minimum']}, default {beta['default']} and maximum "
                f"{beta['maximum']} are not in that order")
    count = 0
    for item in doc["metric"]["whitespace"]:
        lo, _, hi = item.partition("-")
        lo, hi = int(lo, 16), int(hi or lo, 16)
        if not lo <= hi <= 0x10FFFF:
            return f"/metric/whitespace: {item} is not a range of code points (low to high, at most 10FFFF)"
        count += hi - lo + 1
        if count > BOUNDS["whitespace_code_points"]:
            return f"/metric/whitespace: more than {BOUNDS['whitespace_code_points']} code points"
    ex = (doc.get("example") or {}).get("request")
    if ex:
        n, texts = len(ex["hypotheses"]), ex["hypotheses"] + ex["references"]
        if n != len(ex["references"]) or n > doc["limits"]["max_segments"] or \
                sum(len(t.encode("utf-8", "surrogatepass")) for t in texts) > doc["limits"]["max_text_bytes"]:
            return "/example/request: not a valid request of this contract (segment counts or limits)"
    return None


def _undeclarable(doc: dict) -> Optional[str]:
    """An ambiguity chrf-audit cannot hold answers to as declared (None: every one it can)."""
    seen = set()
    for i, a in enumerate(doc.get("ambiguities") or []):
        where = f"/ambiguities/{i}"
        if a["id"] in seen:
            return f"{where}: {a['id']} is declared twice"
        seen.add(a["id"])
        ids = [r if isinstance(r, str) else r["id"] for r in a["readings"]]
        if len(set(ids)) != len(ids):
            return f"{where}: a reading is listed twice"
        if a["checked"] == "answers":
            known = CONVENTIONS.get(a["id"])
            if known is None:
                return (f"{where}: {a['id']} is no convention chrf-audit computes (answers can be held to: "
                        f"{', '.join(sorted(CONVENTIONS))})")
            unknown = [r for r in a["readings"] if not isinstance(r, str) or r not in dict(known.readings)]
            if unknown:
                return f"{where}: the readings of {a['id']} are {', '.join(dict(known.readings))}"
        elif any(isinstance(r, str) for r in a["readings"]):
            return f"{where}: a reading of a point that is not a convention needs an id and a text"
        if a["checked"] == "decided" and len(ids) != 1:
            return f"{where}: a point the text decides has one reading"
    return None
