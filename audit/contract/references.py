"""The references of an untrusted JSON Schema (a contract's, a published document's, an MCP
tool's): they may point into the schema itself and nowhere else, and may not go round in a
loop.

jsonschema resolves a ``$ref`` it does not hold through its registry, whose default fetches
any ``http(s)://`` URL with ``urlopen`` (no time bound; SIGTERM does not end the wait), and a
cycle of references that never descends into the instance (``{"$ref": "#"}`` at the root,
``A -> B -> A``) recurses until Python's stack gives out.  ``problem(schema)`` names the first
of these before anything validates with the schema, as one line:

* every ``$ref``, ``$dynamicRef`` and ``$recursiveRef`` is a JSON Pointer fragment (``#`` or
  ``#/...``) into the schema that resolves to a schema (an object or a boolean): a URL of any
  scheme, a relative URI, a plain-name fragment (an anchor) or a pointer to nothing is refused;
* ``$id`` only at the root (inside, it would make the pointers below it resolve against
  another document);
* no cycle of in-place applications: ``$ref``/``$dynamicRef``/``$recursiveRef``, ``allOf``,
  ``anyOf``, ``oneOf``, ``not``, ``if``/``then``/``else`` and ``dependentSchemas`` apply a
  subschema to the *same* instance, so a cycle of them never ends; recursion through
  ``properties``, ``items`` and the other keywords that descend into the instance is fine.

Every object of the schema counts, wherever it is (also inside ``enum``, ``const`` or an
unknown keyword): what a validator may take as a schema is checked, never guessed.  The walk
is iterative (an MCP server's schema is not depth-bounded).  Validators are then built with an
explicit empty ``referencing.Registry()`` (``schemas``), so even an unforeseen reference is
an error, never a request.
"""

from __future__ import annotations

from typing import Any, Iterator, Optional
from urllib.parse import unquote

REFS = ("$ref", "$dynamicRef", "$recursiveRef")
#: keywords applying one subschema (``_ONE``), each of a list (``_MANY``) or each of an object's
#: values (``_NAMED``) to the same instance
_ONE = ("not", "if", "then", "else")
_MANY = ("allOf", "anyOf", "oneOf")
_NAMED = ("dependentSchemas",)


def _shown(path: tuple) -> str:
    return "/" + "/".join(str(p).replace("~", "~0").replace("/", "~1") for p in path) if path else "(the root)"


def _nodes(schema: Any) -> Iterator[tuple[tuple, Any]]:
    """(path, object) for every JSON object in ``schema``, the root first (paths of strings)."""
    stack = [((), schema)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, dict):
            yield path, value
            stack.extend((path + (str(k),), v) for k, v in reversed(list(value.items())))
        elif isinstance(value, list):
            stack.extend((path + (str(i),), v) for i, v in reversed(list(enumerate(value))))


def _target(schema: Any, ref: str) -> tuple[Optional[tuple], str]:
    """(the path ``ref`` points at, "") or (None, why it is refused)."""
    if not ref.startswith("#"):
        return None, "is not a JSON pointer into the schema (#/...): a schema may not refer outside its document"
    pointer = unquote(ref[1:])
    if pointer and not pointer.startswith("/"):
        return None, "is a plain-name fragment (an anchor), not a JSON pointer into the schema (#/...)"
    path: tuple = ()
    node = schema
    for part in (pointer.split("/")[1:] if pointer else []):
        part = part.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and (part == "0" or part[0] != "0") and int(part) < len(node):
            node = node[int(part)]
        else:
            return None, "points at nothing in the schema"
        path += (part,)
    if not isinstance(node, (dict, bool)):
        return None, f"points at a value that is not a schema ({type(node).__name__})"
    return path, ""


def _in_place(schema: Any, path: tuple, node: dict, edges: dict) -> Optional[str]:
    """Record in ``edges[path]`` the subschemas ``node`` applies to its own instance; a
    refused reference's one line, or None."""
    out = edges.setdefault(path, [])
    for key in REFS:
        ref = node.get(key)
        if isinstance(ref, str):
            target, why = _target(schema, ref)
            if target is None:
                return f"{_shown(path + (key,))}: {ref[:80]!r} {why}"
            out.append(target)
    for key in _ONE:
        if isinstance(node.get(key), dict):
            out.append(path + (key,))
    for key in _MANY:
        if isinstance(node.get(key), list):
            out.extend(path + (key, str(i)) for i, v in enumerate(node[key]) if isinstance(v, dict))
    for key in _NAMED:
        if isinstance(node.get(key), dict):
            out.extend(path + (key, str(k)) for k, v in node[key].items() if isinstance(v, dict))
    return None


def _loop(edges: dict) -> Optional[list]:
    """A cycle of ``edges`` (the paths on it, first repeated last), or None."""
    state: dict = {}  # path -> 1 on the stack, 2 done
    for start in edges:
        if state.get(start):
            continue
        trail, stack = [start], [iter(edges.get(start, ()))]
        state[start] = 1
        while stack:
            nxt = next(stack[-1], None)
            if nxt is None:
                state[trail.pop()] = 2
                stack.pop()
            elif state.get(nxt) == 1:
                return trail[trail.index(nxt):] + [nxt]
            elif not state.get(nxt):
                state[nxt] = 1
                trail.append(nxt)
                stack.append(iter(edges.get(nxt, ())))
    return None


def problem(schema: Any) -> Optional[str]:
    """The first reason ``schema`` could reach outside itself or loop (one line), or None."""
    edges: dict = {}
    for path, node in _nodes(schema):
        if path and isinstance(node.get("$id"), str):
            return (f"{_shown(path + ('$id',))}: {node['$id'][:80]!r}: a schema may name its base URI ($id) "
                    "only at its root")
        why = _in_place(schema, path, node, edges)
        if why:
            return why
    cycle = _loop(edges)
    if cycle:
        return (f"{_shown(cycle[0])}: a loop of references that never descends into the instance ("
                + " -> ".join("#" + (_shown(p) if p else "") for p in cycle[:6]) + (" -> ..." if len(cycle) > 6 else "")
                + ")")
    return None
