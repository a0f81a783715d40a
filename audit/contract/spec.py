"""A service contract kept as data: loading, validation, request templates, response fields.

``--contract NAME@VERSION`` names a contract shipped in ``audit/contract/data/``
(``chrf-plus-plus-compute@1.0.0``, the seed's); ``--contract FILE`` reads one in the same
format (``docs/http.md``).  A contract file states the metric (orders, whitespace set,
punctuation, rounding), the request template, where the response's fields are, how a
refusal looks, the declared parameters and limits, and JSON Schemas of input and output.
Everything the audit checks is derived from it; a malformed file is a one-line error.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, Optional

from reference_impl.conventions import CONVENTIONS, COUNTED

from ..errors import UsageError
from ..files.jsontext import nested_deeper
from . import schemas
from .definition import Metric, code_points

DATA = Path(__file__).with_name("data")

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


def _pointer(doc: Any, pointer: str):
    """The value at a JSON Pointer ("" is the document), or KeyError."""
    if pointer == "":
        return doc
    for part in pointer.lstrip("/").split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        if isinstance(doc, dict) and part in doc:
            doc = doc[part]
        elif isinstance(doc, list) and part.isdigit() and int(part) < len(doc):
            doc = doc[int(part)]
        else:
            raise KeyError(pointer)
    return doc


@dataclass(frozen=True)
class Contract:
    """A loaded, validated contract."""

    doc: dict
    origin: str  # "NAME@VERSION" (built in) or the file's path

    @property
    def name(self) -> str:
        return self.doc["name"]

    @property
    def version(self) -> str:
        return self.doc["version"]

    @property
    def id(self) -> str:
        return f"{self.name}@{self.version}"

    @property
    def metric(self) -> Metric:
        m = self.doc["metric"]
        return Metric(m["char_order"], m["word_order"], code_points(m["whitespace"]), frozenset(m["punctuation"]))

    @property
    def decimals(self) -> int:
        return self.doc["metric"]["score_decimals"]

    @property
    def limits(self) -> dict:
        return self.doc["limits"]

    @property
    def max_segments(self) -> int:
        return self.limits["max_segments"]

    @property
    def max_bytes(self) -> int:
        return self.limits["max_text_bytes"]

    @property
    def beta_range(self) -> tuple[int, int, int]:
        b = self.doc["parameters"].get("beta") or {"minimum": 2, "maximum": 2, "default": 2}
        return b["minimum"], b["maximum"], b["default"]

    @property
    def lowercase_default(self) -> bool:
        return bool((self.doc["parameters"].get("lowercase") or {}).get("default", False))

    @property
    def ambiguities(self) -> list:
        """The points the contract's text leaves open (``CONTRACT_SCHEMA``'s ``_AMBIGUITY``)."""
        return list(self.doc.get("ambiguities") or [])

    def readings(self, convention: str) -> tuple:
        """The readings of ``convention`` (``reference_impl.conventions``) a service may follow,
        the first the one expected values are shown in: those the contract declares, else the
        one its words say (a contract that declares nothing is read literally: counted)."""
        for a in self.ambiguities:
            if a["id"] == convention and a["checked"] == "answers":
                return tuple(a["readings"])
        return (COUNTED,)

    @property
    def example_request(self) -> Optional[dict]:
        return (self.doc.get("example") or {}).get("request")

    @property
    def example_response(self) -> Optional[Any]:
        """The whole answer the contract gives for its example (None: not given)."""
        return (self.doc.get("example") or {}).get("response")

    def mcp_arguments(self, body: Any) -> dict:
        """The arguments of the MCP tool call carrying request body ``body`` (the contract's
        ``mcp.arguments`` with ``"$input"`` replaced; without an ``mcp`` section: the body)."""
        m = self.doc.get("mcp")
        if not m:
            return body if isinstance(body, dict) else {"input": body}
        return _fill(m["arguments"], body)

    @property
    def mcp_tool(self) -> str:
        return (self.doc.get("mcp") or {}).get("tool") or self.name

    def takes(self, name: str) -> bool:
        """Whether the contract declares the optional parameter ``name``."""
        return name in self.doc["parameters"]

    # -- requests -----------------------------------------------------------------------------
    def body(self, hypotheses, references, beta: Optional[int] = None, lowercase: Optional[bool] = None) -> Any:
        """The request body for these texts (``None`` parameters are left out: the service's
        defaults apply)."""
        values = {"hypotheses": list(hypotheses), "references": list(references), "beta": beta,
                  "lowercase": lowercase}
        return render(self.doc["request"]["body"], values)

    def wrap(self, fields: dict) -> Any:
        """A request body with exactly ``fields`` as the input object (for refusal probes,
        which need unknown, missing or mistyped keys): the template's input object is the
        one holding ``$hypotheses``."""
        template = self.doc["request"]["body"]
        return _replace_input(template, fields)

    # -- responses ----------------------------------------------------------------------------
    def field(self, response: Any, name: str):
        """A response field by its name in the contract (KeyError when absent)."""
        return _pointer(response, self.doc["response"][name])

    def echo(self, response: Any, name: str):
        pointer = (self.doc["response"].get("echo") or {}).get(name)
        if pointer is None:
            raise KeyError(name)
        return _pointer(response, pointer)

    def tokens_of(self, item: Any) -> tuple:
        keys = self.doc["response"].get("word_tokens_item") or {"hypothesis": "hypothesis", "reference": "reference"}
        return item[keys["hypothesis"]], item[keys["reference"]]

    def output_errors(self, response: Any) -> list[str]:
        """Where a response breaks the output schema (empty: it conforms)."""
        return schemas.errors(self.doc["output_schema"], response)

    def exact(self, fraction: Fraction) -> str:
        from .definition import decimal_text

        return decimal_text(fraction, self.decimals)


def render(template: Any, values: dict) -> Any:
    """``"$name"`` strings of ``template`` replaced by ``values[name]``; an object member whose
    value becomes None is left out."""
    if isinstance(template, str) and template.startswith("$") and template[1:] in values:
        return values[template[1:]]
    if isinstance(template, dict):
        out = {}
        for k, v in template.items():
            r = render(v, values)
            if r is not None:
                out[k] = r
        return out
    if isinstance(template, list):
        return [render(v, values) for v in template]
    return template


def _fill(template: Any, value: Any) -> Any:
    """``template`` with the string ``"$input"`` replaced by ``value`` (kept as it is, even when
    it is None or not an object: refusal probes send what the contract refuses)."""
    if template == "$input":
        return value
    if isinstance(template, dict):
        return {k: _fill(v, value) for k, v in template.items()}
    if isinstance(template, list):
        return [_fill(v, value) for v in template]
    return template


def _replace_input(template: Any, fields: Any) -> Any:
    if isinstance(template, dict):
        if template.get("hypotheses") == "$hypotheses" or template.get("references") == "$references":
            return fields
        return {k: _replace_input(v, fields) for k, v in template.items()}
    return template


def builtin_names() -> list[str]:
    return sorted(p.name[: -len(".json")] for p in DATA.glob("*@*.json"))


def load(spec: str) -> Contract:
    """``NAME@VERSION`` (built in) or a path to a contract file; UsageError (one line) when
    there is no such contract or the file is not a valid one."""
    spec = (spec or "").strip()
    if not spec:
        raise UsageError("--contract needs NAME@VERSION or a contract file")
    path = Path(spec)
    if spec in builtin_names():
        path, origin = DATA / f"{spec}.json", spec
    elif path.is_file():
        origin = str(path)
    elif "@" in spec and "/" not in spec:
        raise UsageError(f"unknown contract {spec!r}: built in are {', '.join(builtin_names())} "
                         "(or give a contract file)")
    else:
        raise UsageError(f"--contract {spec}: no such contract file")
    from ..files.textfiles import read_text

    return parse(read_text(path, "a contract file"), origin)


def parse(text: str, origin: str) -> Contract:
    """A contract from its JSON ``text`` (a file's, or a document a service published);
    UsageError (one line naming ``origin``) when it is not a valid contract."""
    try:
        doc = json.loads(text)
    except ValueError as e:
        raise UsageError(f"{origin}: invalid JSON: {e}") from None
    except RecursionError:
        raise UsageError(f"{origin}: invalid JSON (nested too deeply)") from None
    if nested_deeper(doc, schemas.MAX_DEPTH):
        raise UsageError(f"{origin}: not a contract file: nested deeper than {schemas.MAX_DEPTH} levels")
    errors = schemas.errors(CONTRACT_SCHEMA, doc)
    if errors:
        raise UsageError(f"{origin}: not a contract file: {errors[0]}")
    for key in ("input_schema", "output_schema"):
        try:
            schemas.check(doc[key])
        except ValueError as e:
            raise UsageError(f"{origin}: {key} {e}") from None
    body = json.dumps(doc["request"]["body"])
    if '"$hypotheses"' not in body or '"$references"' not in body:
        raise UsageError(f"{origin}: request.body must hold \"$hypotheses\" and \"$references\"")
    if "mcp" in doc and '"$input"' not in json.dumps(doc["mcp"]["arguments"]):
        raise UsageError(f"{origin}: mcp.arguments must hold \"$input\"")
    problem = _inconsistent(doc) or _undeclarable(doc)
    if problem:
        raise UsageError(f"{origin}: not a contract file: {problem}")
    return Contract(doc, origin)


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
