"""A contract's schemas resolve nothing outside their document (issue 39 item 2):
``audit/contract/references.py`` refuses every reference that is not a JSON pointer into the
schema, a pointer to nothing and a loop of in-place references, and validation builds its
validators on an explicit empty registry, so it opens no socket and no file.  The runs of
``chrf-audit`` on hostile contract files, published documents and MCP tool schemas are rows of
docs/fault-catalogue.md (``*-schema-ref-*``, tests/http_faults.py)."""

from __future__ import annotations

import json

import pytest

from audit.contract import document as D
from audit.contract import load, references, schemas
from audit.errors import UsageError
from tests.fixtures.recording import recording

BUILT_IN = load("chrf-plus-plus-compute@1.0.0")
STRING = {"type": "string"}

REFUSED = {
    "http": ({"properties": {"a": {"$ref": "http://127.0.0.1:9/s"}}},
             "/properties/a/$ref: 'http://127.0.0.1:9/s' is not a JSON pointer into the schema"),
    "https in $defs": ({"$defs": {"x": {"$ref": "https://example.org/s.json"}}}, "/$defs/x/$ref: 'https://"),
    "file": ({"items": {"$ref": "file:///etc/passwd"}}, "/items/$ref: 'file:///etc/passwd' is not a JSON pointer"),
    "relative": ({"$ref": "other.json#/x"}, "/$ref: 'other.json#/x' is not a JSON pointer"),
    "urn": ({"$ref": "urn:x:y"}, "/$ref: 'urn:x:y' is not a JSON pointer"),
    "anchor": ({"$defs": {"a": {"$anchor": "x"}}, "$ref": "#x"}, "'#x' is a plain-name fragment (an anchor)"),
    "dynamicRef": ({"anyOf": [{"$dynamicRef": "https://x/y"}]}, "/anyOf/0/$dynamicRef: 'https://x/y'"),
    "recursiveRef": ({"not": {"$recursiveRef": "s.json"}}, "/not/$recursiveRef: 's.json'"),
    "in enum": ({"enum": [{"$ref": "http://x/"}]}, "/enum/0/$ref: 'http://x/'"),
    "nowhere": ({"$ref": "#/$defs/nope"}, "/$ref: '#/$defs/nope' points at nothing in the schema"),
    "index past the end": ({"anyOf": [STRING], "$ref": "#/anyOf/1"}, "'#/anyOf/1' points at nothing"),
    "leading zero": ({"anyOf": [STRING], "$ref": "#/anyOf/00"}, "'#/anyOf/00' points at nothing"),
    "not a schema": ({"x-data": {"n": 3}, "$ref": "#/x-data/n"},
                     "'#/x-data/n' points at a value that is not a schema (int)"),
    "$id inside": ({"properties": {"a": {"$id": "http://x/", "$ref": "#"}}},
                   "/properties/a/$id: 'http://x/': a schema may name its base URI ($id) only at its root"),
    "root loop": ({"$ref": "#"}, "(the root): a loop of references that never descends into the instance (# -> #)"),
    "A->B->A": ({"$defs": {"A": {"$ref": "#/$defs/B"}, "B": {"$ref": "#/$defs/A"}}, "properties": {"x": {"$ref": "#/$defs/A"}}},
                "a loop of references that never descends into the instance (#/$defs/A -> #/$defs/B -> #/$defs/A)"),
    "through allOf and not": ({"$defs": {"A": {"allOf": [{"not": {"$ref": "#/$defs/A"}}]}}},
                              "(#/$defs/A -> #/$defs/A/allOf/0 -> #/$defs/A/allOf/0/not -> #/$defs/A)"),
    "through if/then": ({"if": STRING, "then": {"$ref": "#"}}, "(# -> #/then -> #)"),
    "through dependentSchemas": ({"dependentSchemas": {"a": {"$ref": "#"}}}, "(# -> #/dependentSchemas/a -> #)"),
    "dynamicRef loop": ({"$dynamicRef": "#"}, "(# -> #)"),
}

ACCEPTED = {
    "recursion through properties": {"type": "object", "properties": {"child": {"$ref": "#"}}},
    "recursion through items": {"type": "array", "items": {"$ref": "#"}},
    "a tree through $defs": {"$defs": {"node": {"type": "object", "properties": {"kids": {
        "type": "array", "items": {"$ref": "#/$defs/node"}}}}}, "$ref": "#/$defs/node"},
    "a chain that ends": {"$defs": {"A": {"$ref": "#/$defs/B"}, "B": {"allOf": [STRING]}}, "$ref": "#/$defs/A"},
    "escaped and percent-encoded": {"$defs": {"a/b": STRING, "c d": STRING, "e~f": STRING},
                                    "anyOf": [{"$ref": "#/$defs/a~1b"}, {"$ref": "#/$defs/c%20d"}, {"$ref": "#/$defs/e~0f"}]},
    "root $id": {"$id": "https://example.org/out.json", "properties": {"a": {"$ref": "#/$defs/s"}}, "$defs": {"s": True}},
    "a property named $ref": {"properties": {"$ref": STRING, "$id": STRING}},
    "boolean target": {"$defs": {"t": True}, "$ref": "#/$defs/t"},
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_a_reference_outside_the_schema_or_in_a_loop_is_refused_in_one_line(case):
    schema, said = REFUSED[case]
    why = references.problem(schema)
    assert why is not None and said in why and "\n" not in why, why
    with pytest.raises(ValueError) as e:
        schemas.check(schema)
    assert str(e.value) == why


@pytest.mark.parametrize("case", sorted(ACCEPTED))
def test_references_into_the_schema_and_recursion_into_the_instance_are_fine(case):
    assert references.problem(ACCEPTED[case]) is None
    schemas.check(ACCEPTED[case])


def test_what_accepted_schemas_mean_is_kept():
    """The accepted references validate as JSON Schema says (no reference is lost)."""
    tree = ACCEPTED["a tree through $defs"]
    assert schemas.errors(tree, {"kids": [{"kids": []}]}) == []
    assert schemas.errors(tree, {"kids": [{"kids": 3}]}) == ["/kids/0/kids: 3 is not of type 'array'"]
    enc = ACCEPTED["escaped and percent-encoded"]
    assert schemas.errors(enc, "x") == [] and schemas.errors(enc, 3)


def test_the_built_in_contracts_schemas_refer_to_nothing():
    for key in ("input_schema", "output_schema"):
        assert references.problem(BUILT_IN.doc[key]) is None


def test_validation_opens_no_socket_even_for_a_schema_never_checked():
    """``schemas.errors`` builds its validator on an empty registry: a remote reference that
    got past ``check`` is an error line, never a request (jsonschema's default registry fetches
    it with urlopen)."""
    with recording({"/s": "{}"}) as (base, seen):
        got = schemas.errors({"properties": {"a": {"$ref": base + "s"}}}, {"a": 1})
    assert seen == [] and len(got) == 1 and "does not resolve within it" in got[0], (seen, got)


def test_fastjsonschema_is_never_handed_a_reference(monkeypatch):
    import fastjsonschema

    compiled = []
    real = fastjsonschema.compile
    monkeypatch.setattr(fastjsonschema, "compile", lambda s, *a, **k: compiled.append(s) or real(s, *a, **k))
    portable = {"type": "object", "properties": {"a": STRING}}
    with_ref = {"type": "object", "properties": {"a": {"$ref": "#/$defs/s"}}, "$defs": {"s": STRING}}
    assert schemas.errors(portable, {"a": 1}) and schemas.errors(with_ref, {"a": 1})
    assert schemas.errors(with_ref, {"a": "x"}) == []
    assert compiled == [portable] and "$ref" not in json.dumps(compiled)


def test_a_tool_documents_schemas_refer_to_nothing_either():
    """A tool document's schemas are only compared with the built-in ones, but they are untrusted
    all the same: a remote reference or a loop is refused before the audit."""
    tool = {"id": "chrf-plus-plus-compute", "version": "1.0.0",
            "output_schema": {"$ref": "http://127.0.0.1:9/s", "type": "object"}}
    with pytest.raises(UsageError) as e:
        D.read(json.dumps(tool), "http://svc/v1/tools/x")
    assert str(e.value) == ("http://svc/v1/tools/x: output_schema /$ref: 'http://127.0.0.1:9/s' is not a JSON pointer "
                            "into the schema (#/...): a schema may not refer outside its document")
    with pytest.raises(UsageError, match="input_schema .*a loop of references"):
        D.read(json.dumps(dict(tool, output_schema={}, input_schema={"$ref": "#"})), "http://svc/v1/tools/x")


def test_a_deep_or_wide_schema_is_walked_without_recursion():
    """An MCP server's schema is not depth-bounded: the walk and the loop search are iterative."""
    deep: dict = STRING
    for _ in range(5000):
        deep = {"allOf": [deep]}
    assert references.problem(deep) is None
    chain = {"$defs": {f"d{i}": {"$ref": f"#/$defs/d{i + 1}"} for i in range(5000)}}
    chain["$defs"]["d5000"] = {"$ref": "#/$defs/d0"}
    assert "a loop of references" in references.problem(chain)
