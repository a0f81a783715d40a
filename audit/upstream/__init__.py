"""Knowledge of the built-in upstream libraries (nltk, sacrebleu): standalone repro
snippets, root-cause locations in the installed source, patch suggestions as unified diffs,
and scope sweeps.  Whether a suggested patch works is judged by
``audit.patches.verify_suggested`` (the path of ``chrf-audit validate-patch``).

Public API::

    repro_snippet(implementation, finding) -> str
    root_cause(implementation, family) -> dict | None     # {file, path, line, function, excerpt, why}
    patch(implementation, family) -> str | None           # unified diff against the installed source
    combined_patch(implementation, families) -> dict | None   # one diff fixing them all
    scope(implementation, finding, score) -> dict | None    # score: the implementation, isolated

One module per library (``nltk.py``, ``sacrebleu.py``, ``torchmetrics.py``) ends in its
``Upstream`` object (``library.py``): built-in adapter names and claims, the backend class the
worker builds, the source searched for root causes (patterns per family in the deviation
registry, under the library's name), repro snippets and patches keyed by registry families.
``registry.LIBRARIES`` lists them: the next library is one more module and one line there.
Its sweeps are the registry's, run by the enrich stage through the library's isolated
adapters.

``implementation`` is the adapter name ("nltk", "sacrebleu-chrf++", "torchmetrics-chrf"); anything else is not built in:
``repro_snippet`` then falls back to a generic snippet (a ``package.module:function`` callable
imported directly, or the JSON request of an external program), the others return None/False.
"""

from __future__ import annotations

from typing import Optional

from ._base import claims_with_defaults, explain_root_cause, py_list_literal, py_literal
from .library import Upstream, installed_version
from .patching import PatchError, apply_unified_diff, make_diff
from .registry import libraries, library_of

__all__ = [
    "BUILTIN", "get", "is_builtin", "version", "repro_snippet", "snippet_language", "protocol_request", "root_cause", "patch", "patch_description",
    "scope", "apply_unified_diff", "PatchError", "combined_patch", "patch_options", "knowledge",
    "issue_candidates", "patch_group", "gates", "stacking", "after_snippet",
]

BUILTIN = tuple(libraries())


def get(implementation: str) -> Upstream:
    """The library a built-in name belongs to (``registry.library_of``); KeyError otherwise."""
    found = library_of(implementation)
    if found is None:
        raise KeyError(implementation)
    return found


def is_builtin(implementation: str) -> bool:
    return library_of(implementation) is not None


def version(implementation: str) -> Optional[str]:
    try:
        return installed_version(get(implementation).distribution)
    except KeyError:
        return None


def _dotted(name) -> bool:
    """Whether ``name`` is a Python name or a dotted path of names (what an import and an
    attribute access can spell): ``<lambda>``, ``f.<locals>.g`` or a name a function gave
    itself (with a newline, a fence, an escape) is not."""
    return isinstance(name, str) and bool(name) and all(part.isidentifier() for part in name.split("."))


def _python_entry(implementation: str, finding) -> Optional[tuple[str, str]]:
    """(module, function) of a Python callable under audit, or None for a program (or a
    callable whose names an import cannot spell).  The function's own ``__module__`` and
    ``__qualname__`` first (the function that ran at this level), else the ``module:function``
    it was given by."""
    src = finding.source or {}
    if src.get("call") not in ("python", None):
        return None
    if src.get("call") == "python" and _dotted(src.get("module")) and _dotted(src.get("qualname")):
        return src["module"], src["qualname"]
    mod, _, fn = implementation.partition(":")
    return (mod, fn) if _dotted(mod) and _dotted(fn) else None


def protocol_request(finding, request_id: int = 1) -> dict:
    """The finding's input as one request of docs/external-protocol.md, ready to pipe into
    the program as is (the params are the claims it was held to)."""
    from ._base import claims_with_defaults

    m = finding.minimal
    request = {"id": request_id, "op": m.level}
    if m.level == "sentence":
        request["hypothesis"], request["references"] = m.inputs["hypothesis"], list(m.inputs["references"])
    else:
        request["hypotheses"] = list(m.inputs["hypotheses"])
        request["references"] = [list(r) for r in m.inputs["references"]]
    request["params"] = claims_with_defaults(finding.claims)
    return request


def _http_snippet(implementation: str, finding) -> str:
    """An HTTP service's finding: the curl command sending the request that shows it."""
    from ..http import curl

    m, src = finding.minimal, finding.source or {}
    head = [f"# chrF repro for {implementation} ({src.get('contract', 'its contract')}): {finding.family}",
            f"# {finding.title}."]
    if finding.origin == "contract":
        head.append(f"# {_one_line(m.detail)}")
    else:
        head.append(f"# Expected {m.expected!r} ({m.expected_fraction} exactly) on 0..100; "
                    f"it answered {_one_line(m.actual_raw if m.actual_raw is not None else m.detail or m.outcome)}.")
    env = src.get("env_headers") or []
    return "\n".join(head) + "\n" + curl.command(
        src.get("url") or implementation, finding.request, method=src.get("method") or "POST",
        env_headers="CHRF_AUDIT_HTTP_HEADERS" in env, env_token="CHRF_AUDIT_HTTP_TOKEN" in env) + "\n"


def _mcp_snippet(implementation: str, finding) -> str:
    """An MCP tool's finding: a Python script calling the tool with the request that shows it."""
    from ..http import curl

    m, src = finding.minimal, finding.source or {}
    head = [f"# chrF repro for {_one_line(implementation)} ({src.get('contract', 'its contract')}): {finding.family}",
            f"# {_one_line(finding.title)}.", f"# {_one_line(m.detail)}"]
    arguments = _filled(src.get("arguments") or {"input": "$input"}, finding.request)
    return "\n".join(head) + "\n" + curl.mcp_script(src.get("url") or implementation, src.get("tool") or "execute",
                                                    arguments,
                                                    env_token="CHRF_AUDIT_HTTP_TOKEN" in (src.get("env_headers") or []))


def _filled(template, value):
    if template == "$input":
        return value
    if isinstance(template, dict):
        return {k: _filled(v, value) for k, v in template.items()}
    return template


def _generic_snippet(implementation: str, finding) -> str:
    import json

    if (finding.source or {}).get("call") == "http" and getattr(finding, "request", None) is not None:
        return _http_snippet(implementation, finding)
    if (finding.source or {}).get("call") == "mcp" and getattr(finding, "request", None) is not None:
        return _mcp_snippet(implementation, finding)
    m = finding.minimal
    head = [f"# chrF repro for {_one_line(implementation)}: {finding.family}", f"# {_one_line(finding.title)}"]
    if finding.family.startswith("metamorphic-"):
        head.append(f"# Expected {m.expected!r} on 0..100: its own score before the transformation.")
    else:
        head.append(f"# Expected {m.expected!r} ({m.expected_fraction} exactly) on 0..100.")
    if (finding.source or {}).get("call") == "expression":
        return _expression_snippet(head, finding)
    entry = _python_entry(implementation, finding)
    if entry is not None or (finding.source or {}).get("call") == "python":
        mod, fn = entry or (None, "function")
        top, _, rest = fn.partition(".")
        if m.level == "sentence":
            call = f"{fn}({py_literal(m.inputs['hypothesis'])}, {py_list_literal(m.inputs['references'])})"
        else:
            call = f"{fn}({py_list_literal(m.inputs['hypotheses'])}, {py_list_literal(m.inputs['references'])})"
        load = [f"from {mod} import {top}"] if entry else [
            "# its module and name are not names an import can spell: `function` stands for the audited callable"]
        return "\n".join(head + load + ["", f"print({call})"]) + "\n"
    import shlex

    line = json.dumps(protocol_request(finding), ensure_ascii=True)
    src = finding.source or {}
    command = src.get("command") or (implementation[len("external:"):] if implementation.startswith("external:")
                                     else "<the audited command>")
    got = (m.actual_raw if m.actual_raw is not None else
           (m.detail or m.outcome) if m.outcome != "value" else repr(m.actual))
    return "\n".join(head + [
        "# One request of the external protocol (docs/external-protocol.md), piped into the",
        f"# audited program as is; it answers {_one_line(got)}.",
        f"printf '%s\\n' {shlex.quote(line)} | {_one_line(command, None)}",
    ]) + "\n"


def _expression_snippet(head: list, finding) -> str:
    """A survey registry implementation's finding: its setup, the inputs, and the level's
    expression printed (audit/survey/registry.json): the call a user of the library writes."""
    m, src = finding.minimal, finding.source or {}
    scale = (finding.claims or {}).get("scale", 100)
    if scale == 1 and m.expected is not None and not finding.family.startswith("metamorphic-"):
        head = head + [f"# It answers on 0..1: expected {m.expected / 100!r} there."]
    if m.level == "sentence":
        inputs = [f"hypothesis = {py_literal(m.inputs['hypothesis'])}",
                  f"references = {py_list_literal(m.inputs['references'])}"]
    else:
        inputs = [f"hypotheses = {py_list_literal(m.inputs['hypotheses'])}",
                  f"references = {py_list_literal(m.inputs['references'])}"]
    setup = (src.get("setup") or "").rstrip("\n")
    return "\n".join(head + ([setup, ""] if setup else []) + inputs + [f"print({src.get('expression')})"]) + "\n"


def _one_line(text, limit=200) -> str:
    """One line of a snippet (a comment, the command): an implementation's error text, name
    or command may hold newlines, ESC or surrogates, which must neither end the comment nor
    reach the reader's terminal."""
    from ..render._text import visible

    return visible(" ".join(str(text).split()), keep="")[:limit]


def snippet_language(implementation: str, finding) -> str:
    """"python" for built-in upstreams and callables, "sh" for an external program."""
    if is_builtin(implementation) or _python_entry(implementation, finding) is not None or \
            (finding.source or {}).get("call") in ("mcp", "python", "expression"):
        return "python"
    return "sh"


def repro_snippet(implementation: str, finding) -> str:
    """Standalone Python that imports only the upstream library and prints the wrong value."""
    try:
        module = get(implementation)
    except KeyError:
        return _generic_snippet(implementation, finding)
    return module.repro_snippet(finding, version(implementation))


def after_snippet(implementation: str, finding, options: dict, prints: str) -> Optional[str]:
    """The finding's repro with the keywords of an opt-in patch in its call and what it prints
    on the patched copy (None without keywords: the repro itself is then what runs after)."""
    if not options:
        return None
    try:
        module = get(implementation)
    except KeyError:
        return None
    return module.repro_snippet(finding, version(implementation), options=options, prints=prints)


def root_cause(implementation: str, family: str) -> Optional[dict]:
    """Where the family's cause lives in the installed upstream source, found by searching the
    source text: ``{"file", "path", "line", "function", "excerpt", "why"}`` or None."""
    try:
        module = get(implementation)
    except KeyError:
        return None
    from ..diagnose.deviations import root_causes

    return explain_root_cause(module.module, root_causes(module.name), family)


def patch(implementation: str, family: str) -> Optional[str]:
    """A unified diff (paths ``a/<pkg>/...``, ``-p1`` from site-packages) against the installed
    source that fixes exactly this family, or None when none is known for this version."""
    try:
        found = get(implementation).patched_source(family)
    except KeyError:
        return None
    if found is None:
        return None
    rel, old, new = found
    return make_diff(rel, old, new) or None


def patch_group(implementation: str, family: str) -> list[str]:
    """The families the patch that fixes ``family`` fixes, ``family`` first among its group's
    order (one patch, one issue); ``[family]`` when its patch fixes it alone."""
    try:
        return list(get(implementation).patch_group(family)) or [family]
    except KeyError:
        return [family]


def _combinable(implementation: str, families) -> list[str]:
    """The families a maintainer would fix together in one diff: bugs against the library's
    documentation (a definition difference's opt-in keywords are a feature of their own) that
    are not fixed upstream already (never re-filed)."""
    k = knowledge(implementation)
    notes = k.notes if k is not None else {}
    return [f for f in families if f not in notes or (notes[f].kind == "bug" and not notes[f].fixed_upstream)]


def combined_patch(implementation: str, families) -> Optional[dict]:
    """One unified diff against the installed source fixing every family of ``families``
    that has a patch and that a maintainer would fix together (``_combinable``):
    ``{"diff", "families", "files"}``, or None when fewer than two do (the per-family patch is
    then the whole fix) or their edits do not combine.  Whether it works is judged like every
    patch (``audit.patches.verdict``)."""
    try:
        found = get(implementation).combined_source(_combinable(implementation, list(families)))
    except KeyError:
        return None
    if found is None:
        return None
    rel, old, new, fixed = found
    diff = make_diff(rel, old, new)
    return {"diff": diff, "families": fixed, "files": [rel]} if diff else None


def patch_options(implementation: str, families, level: str = "corpus") -> dict:
    """The keyword arguments that turn on what the opt-in patches of ``families`` add (the
    patched copy is audited called with them), those the ``level``'s function takes; {} for a
    patch that changes the default."""
    try:
        return dict(get(implementation).patch_options(list(families), level))
    except KeyError:
        return {}


def gates(implementation: str):
    """The formatter and linters the library's repository runs on a change
    (``records.Gates``), or None."""
    k = knowledge(implementation)
    return k.gates if k is not None else None


def stacking(implementation: str, families) -> Optional[dict]:
    """Whether the patches of ``families`` stack (one diff per patch group): each applied to the
    released source after the others, in every order; ``{"patches": [[families]...],
    "orders": n, "applies": bool, "same": bool}`` (``same``: every order gives one text), or
    None when fewer than two patches are known."""
    from itertools import permutations

    from .patching import PatchError, apply_diff_text

    groups, diffs = [], []
    for fam in families:
        group = patch_group(implementation, fam)
        diff = patch(implementation, fam)
        if diff and group not in groups:
            groups.append(group)
            diffs.append(diff)
    if len(diffs) < 2:
        return None
    try:
        original = get(implementation).patched_source(groups[0][0])[1]
    except (KeyError, TypeError):
        return None
    results, applies = set(), True
    orders = list(permutations(range(len(diffs))))
    for order in orders:
        text = original
        try:
            for i in order:
                text = apply_diff_text(diffs[i], text)
        except PatchError:
            applies = False
            continue
        results.add(text)
    return {"patches": groups, "orders": len(orders), "applies": applies, "same": applies and len(results) == 1}


def knowledge(implementation: str):
    """The library's record (``records.Knowledge``: what it documents, each family's standing,
    related upstream issues), or None."""
    try:
        return get(implementation).knowledge
    except KeyError:
        return None


def issue_candidates(implementation: str) -> dict:
    """family -> [(level, inputs)]: the record's issue repros to try after a family's patch."""
    k = knowledge(implementation)
    return {fam: list(reps) for fam, reps in (k.repros if k is not None else {}).items()}


def patch_description(implementation: str, family: str) -> Optional[str]:
    try:
        return get(implementation).patch_descriptions.get(family)
    except KeyError:
        return None


def scope(implementation: str, finding, score) -> Optional[dict]:
    """The scope sweep of a finding of a built-in upstream (see ``audit.upstream.sweeps``), or
    None.  ``score(claims, level, items) -> [float | None, ...]`` scores the sweep's inputs
    with the implementation held to ``claims`` (the finding's, completed with the upstream's
    defaults); the enrich stage passes an isolated adapter's."""
    from .sweeps import sweep

    try:
        module = get(implementation)
    except KeyError:
        return None
    claims = claims_with_defaults({**module.default_claims, **(finding.claims or {})})
    try:
        return sweep(finding, claims, lambda level, items: score(claims, level, items))
    except Exception:
        return None
