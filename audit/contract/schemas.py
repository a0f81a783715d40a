"""The JSON Schemas of a contract (and of the contract format itself), checked as JSON Schema
means them.

**Patterns are ECMA-262 regular expressions** (JSON Schema's own words), in which ``$`` ends
the input.  Python's ``re`` lets ``$`` match before a final newline, so jsonschema (which
hands patterns to ``re.search``) accepts ``"0.000000\\n"`` for ``^[0-9]{1,2}\\.[0-9]{6}$``.
``ecma_schema`` rewrites every pattern of a schema (``pattern``, ``patternProperties``) with
each ``$`` that is not escaped or inside a character class as ``\\Z``, the end of the string,
and compiles it (a pattern Python cannot compile is a ``ValueError``: the contract file is
refused, instead of the judge failing on the first answer).  Both validators get the
rewritten schema, and error messages show the pattern as the contract wrote it.

**Fast path.**  Keywords whose meaning is the same in draft-07 and draft 2020-12: a schema
that uses only these is first checked by a compiled fastjsonschema validator (a 256-segment
answer in ~1 ms instead of ~50), and jsonschema (2020-12, the authority) runs only to word an
error.  ``$ref`` is not one of them: fastjsonschema's resolver fetches remote references, so a
schema with a reference never reaches it.

**Nothing outside the document.**  ``check`` refuses a schema whose references point
anywhere but into itself, or go round in a loop (``references.problem``), and every
jsonschema validator is built with an explicit registry: an empty ``referencing.Registry()``
for a contract's schemas (jsonschema's default one fetches remote references with
``urlopen``), the bundled metaschemas for ``check_schema``'s.  Validation opens no socket and
no file.
"""

from __future__ import annotations

import itertools
import json
import re
from typing import Any

from . import references

#: deeper contract files or answers are refused (and would exhaust Python's stack in the validators)
MAX_DEPTH = 64

#: never "$ref" (nor any keyword holding a reference): fastjsonschema would resolve it itself
_PORTABLE = frozenset({"$schema", "title", "description", "type", "const", "enum", "pattern", "minimum",
                       "maximum", "minLength", "maxLength", "minItems", "maxItems", "items", "required",
                       "properties", "additionalProperties"})
_ONE = ("items", "additionalProperties", "additionalItems", "contains", "not", "if", "then", "else",
        "propertyNames", "unevaluatedItems", "unevaluatedProperties", "contentSchema")
_MANY = ("allOf", "anyOf", "oneOf", "prefixItems", "items")
_NAMED = ("properties", "$defs", "definitions", "dependentSchemas")
_COMPILED: dict = {}
_ECMA: dict = {}


def ecma_pattern(pattern: str) -> str:
    """``pattern`` with each ``$`` outside a character class and not escaped as ``\\Z``."""
    out, i, n, in_class = [], 0, len(pattern), False
    while i < n:
        ch = pattern[i]
        if ch == "\\":
            out.append(pattern[i:i + 2])
            i += 2
            continue
        if in_class:
            in_class = ch != "]"
        elif ch == "[":
            in_class = True
            j = i + 1 + (pattern[i + 1:i + 2] == "^")
            if pattern[j:j + 1] == "]":  # a "]" first in a class is one of its characters (Python)
                j += 1
            out.append(pattern[i:j])
            i = j
            continue
        elif ch == "$":
            ch = "\\Z"
        out.append(ch)
        i += 1
    return "".join(out)


def ecma_schema(schema: Any, shown: dict) -> Any:
    """A copy of ``schema`` with its patterns rewritten (``ecma_pattern``) and compiled;
    ``shown`` maps each rewritten pattern to the original.  ValueError: a pattern Python's
    ``re`` cannot compile."""
    if not isinstance(schema, dict):
        return schema
    out = dict(schema)

    def fix(p: Any) -> Any:
        if not isinstance(p, str):
            return p
        q = ecma_pattern(p)
        try:
            re.compile(q)
        except (re.error, OverflowError, RecursionError) as e:
            raise ValueError(f"pattern {p[:60]!r} is not a regular expression ({e})") from None
        shown[q] = p
        return q
    if "pattern" in out:
        out["pattern"] = fix(out["pattern"])
    if isinstance(out.get("patternProperties"), dict):
        out["patternProperties"] = {fix(k): ecma_schema(v, shown) for k, v in out["patternProperties"].items()}
    for k in _ONE:
        if isinstance(out.get(k), dict):
            out[k] = ecma_schema(out[k], shown)
    for k in _MANY:
        if isinstance(out.get(k), list):
            out[k] = [ecma_schema(v, shown) for v in out[k]]
    for k in _NAMED:
        if isinstance(out.get(k), dict):
            out[k] = {name: ecma_schema(v, shown) for name, v in out[k].items()}
    return out


def _ecma(schema: dict) -> tuple[str, dict, dict]:
    key = json.dumps(schema, sort_keys=True)
    if key not in _ECMA:
        shown: dict = {}
        _ECMA[key] = (key, ecma_schema(schema, shown), shown)
    return _ECMA[key]


def _portable(schema: Any) -> bool:
    if isinstance(schema, dict):
        if not set(schema) <= _PORTABLE or isinstance(schema.get("items"), list):
            return False
        subs = list((schema.get("properties") or {}).values())
        subs += [v for k, v in schema.items() if k in ("items", "additionalProperties") and isinstance(v, dict)]
        return all(_portable(x) for x in subs)
    return isinstance(schema, bool)


def _fast_valid(key: str, schema: dict, doc: Any) -> bool:
    """True when a compiled validator accepts ``doc`` (False: not known to be valid)."""
    if key not in _COMPILED:
        fn = None
        if _portable(schema):
            import fastjsonschema

            fn = fastjsonschema.compile({k: v for k, v in schema.items() if k != "$schema"})
        _COMPILED[key] = fn
    fn = _COMPILED[key]
    if fn is None:
        return False
    try:
        fn(doc)
    except Exception:  # noqa: BLE001 - any refusal: let jsonschema judge and word it
        return False
    return True


def errors(schema: dict, doc: Any, most: int = 50) -> list[str]:
    """Where ``doc`` breaks ``schema`` (patterns as ECMA-262 means them), at most ``most``."""
    key, ecma, shown = _ecma(schema)
    if _fast_valid(key, ecma, doc):
        return []
    import jsonschema
    from referencing import Registry
    from referencing.exceptions import Unresolvable

    validator = jsonschema.Draft202012Validator(ecma, registry=Registry())
    try:
        found = list(itertools.islice(validator.iter_errors(doc), most))
    except Unresolvable as e:  # never after ``check``: an empty registry resolves nothing, fetches nothing
        return [f"/: a reference of the schema does not resolve within it ({str(e)[:120]})"]
    out = []
    for e in sorted(found, key=lambda e: list(map(str, e.absolute_path))):
        where = "/" + "/".join(str(p) for p in e.absolute_path)
        message = e.message
        for q, p in shown.items():
            if q != p:
                message = message.replace(repr(q), repr(p))
        out.append(f"{where}: {message[:160]}")
    return out


def check(schema: Any) -> None:
    """ValueError (one line) when ``schema`` is not a JSON Schema (2020-12) chrf-audit can check:
    not a schema, a pattern Python cannot compile, or a reference outside the schema or in a
    loop (``references.problem``)."""
    import jsonschema
    from jsonschema_specifications import REGISTRY as METASCHEMAS

    meta = jsonschema.Draft202012Validator(jsonschema.Draft202012Validator.META_SCHEMA, registry=METASCHEMAS,
                                           format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
    try:
        for e in meta.iter_errors(schema):  # the first, as check_schema raises it
            raise ValueError(f"is not a JSON Schema: {e.message[:160]}")
    except RecursionError:
        raise ValueError("is nested too deeply") from None
    why = references.problem(schema)
    if why:
        raise ValueError(why)
    ecma_schema(schema, {})
