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

from reference_impl.conventions import COUNTED

from ..errors import UsageError
from ..files.jsontext import nested_deeper
from . import schemas
from .definition import Metric, code_points
from .format import CONTRACT_SCHEMA, inconsistent

DATA = Path(__file__).with_name("data")

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


def load_json(text: str, origin: str, what: str, shown: Optional[int] = None):
    """The JSON value of ``text``, bounded in depth; UsageError (one line naming ``origin``,
    ``what`` it is not; the parser's message cut at ``shown`` characters) otherwise."""
    try:
        doc = json.loads(text)
    except ValueError as e:
        raise UsageError(f"{origin}: invalid JSON: {str(e)[:shown]}") from None
    except RecursionError:
        raise UsageError(f"{origin}: invalid JSON (nested too deeply)") from None
    if nested_deeper(doc, schemas.MAX_DEPTH):
        raise UsageError(f"{origin}: not {what}: nested deeper than {schemas.MAX_DEPTH} levels")
    return doc


def parse(text: str, origin: str) -> Contract:
    """A contract from its JSON ``text`` (a file's, or a document a service published);
    UsageError (one line naming ``origin``) when it is not a valid contract."""
    doc = load_json(text, origin, "a contract file")
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
    problem = inconsistent(doc)
    if problem:
        raise UsageError(f"{origin}: not a contract file: {problem}")
    return Contract(doc, origin)
