"""From user flags to adapters: ``resolve(impl, corpus_impl=..., external=..., overrides=...)``."""

from __future__ import annotations

from typing import Iterable, Optional

from ..settings import options
from . import backends as B
from .base import CLAIM_FIELDS, Adapter, AdapterError, Claims, Support
from .external import ExternalAdapter
from .isolation import InProcessClient, WorkerClient
from ..upstream import registry
from .pyimpl import PythonAdapter


def _apply_overrides(claims: Claims, overrides: dict, who: str) -> Claims:
    if not overrides:
        return claims
    try:
        return claims.replace(**overrides)
    except (TypeError, ValueError) as e:
        raise AdapterError(f"invalid claim for {who}: {e}") from None


def _check_overrides(overrides: Optional[dict]) -> dict:
    overrides = {k: v for k, v in (overrides or {}).items() if v is not None}
    unknown = sorted(set(overrides) - set(CLAIM_FIELDS))
    if unknown:
        raise AdapterError(
            f"unknown claim(s) {', '.join(unknown)}; known: {', '.join(CLAIM_FIELDS)}"
        )
    try:
        Claims().replace(**overrides)
    except (TypeError, ValueError) as e:
        raise AdapterError(f"invalid claim: {e}") from None
    return overrides


def builtin_names(impl: Optional[str]) -> list[str]:
    """The built-in adapter names ``impl`` asks for: a library's name is all its adapters
    (``registry.groups``), no ``impl`` the default audit."""
    if impl is None:
        return list(registry.default_impls())
    groups = registry.groups()
    names: list[str] = []
    for part in (p.strip() for p in impl.split(",")):
        if part in groups:
            names.extend(groups[part])
        elif registry.builtin(part) is not None:
            names.append(part)
        else:
            known = list(groups) + [n for n in registry.adapter_names() if n not in groups]
            raise AdapterError(
                f"unknown implementation {part!r} for --impl: expected one of "
                f"{', '.join(known)} "
                f"or package.module:function"
            )
    return list(dict.fromkeys(names))


def resolve(
    impl: Optional[str] = None,
    *,
    corpus_impl: Optional[str] = None,
    external: Optional[str] = None,
    overrides: Optional[dict] = None,
    timeout: float = options.default("timeout"),
    isolate: bool = True,
    max_refs: Optional[int] = None,
    name: Optional[str] = None,
    accepts: Optional[Iterable[str]] = None,
    http: Optional[str] = None,
    contract: Optional[str] = None,
    max_requests: Optional[int] = None,
    http_concurrency: int = options.default("http_concurrency"),
    http_retries: int = options.default("http_retries"),
    backend_options: Optional[dict] = None,
    mcp: Optional[str] = None,
    tool: Optional[str] = None,
) -> list[Adapter]:
    """Adapters for the given specs (see DESIGN.md "Adapters").

    * nothing given: the default audit, nltk and the four sacreBLEU adapters;
    * ``impl``: ``nltk``, ``sacrebleu`` (the four), one sacreBLEU adapter by name, a comma
      list of those, or ``package.module:function`` (sentence level);
    * ``corpus_impl``: ``package.module:function`` (corpus level), with ``impl`` one adapter;
    * ``external``: a command speaking docs/external-protocol.md;
    * ``http`` with ``contract``: a scoring service held to its contract (docs/http.md), with
      at most ``max_requests`` requests, ``http_concurrency`` at a time, each retried up to
      ``http_retries`` times on 429/5xx or a dropped connection;
    * ``mcp`` with ``tool``: the tool of an MCP server held to the contract ``tool`` names
      (``contract``, if given, is its contract file, document URL or ``auto``), with the same
      budget, concurrency and retries.

    ``overrides`` (claim fields the user gave) apply on top of every adapter's own claims.
    ``max_refs`` (the most references per segment it takes; 1: a single-reference library),
    ``name`` (the name in reports) and ``accepts`` (claim names a callable takes as keyword
    arguments: it is called with them, and the audit varies them) describe the one callable
    or external program given.
    ``impl`` and ``corpus_impl`` together are ONE implementation with two entry points.
    ``backend_options``: keywords of the built-in libraries' backend classes (a patched copy's
    opt-in behaviour, ``Upstream.patch_options``).
    Callables and programs are loaded eagerly: a bad spec raises AdapterError (one line).
    """
    given_name = name  # (``name`` is reused below)
    if timeout is None or not timeout > 0:
        raise AdapterError(f"timeout must be > 0 seconds, got {timeout!r}")
    if max_refs is not None and (isinstance(max_refs, bool) or not isinstance(max_refs, int) or max_refs < 1):
        raise AdapterError(f"--max-refs must be an integer >= 1, got {max_refs!r}")
    if name is not None and not name.strip():
        raise AdapterError("--name needs a non-empty name")
    overrides = _check_overrides(overrides)
    impl = impl.strip() if isinstance(impl, str) and impl.strip() else None
    corpus_impl = corpus_impl.strip() if isinstance(corpus_impl, str) and corpus_impl.strip() else None

    callable_spec = None
    builtin: list[str] = []
    if impl is not None and ":" in impl:
        callable_spec = impl
    elif impl is not None or (corpus_impl is None and external is None and http is None and mcp is None):
        builtin = builtin_names(impl)
    custom = int(bool(callable_spec or corpus_impl)) + int(external is not None) + int(http is not None) + \
        int(mcp is not None)
    if (mcp is None) != (tool is None):
        raise AdapterError("--mcp URL and --tool NAME@VERSION go together")
    if mcp is not None and http is not None:
        raise AdapterError("--http and --mcp: one service at a time")
    if mcp is None and (http is None) != (contract is None):
        raise AdapterError("--http URL and --contract NAME@VERSION|FILE go together")
    if max_requests is not None and (isinstance(max_requests, bool) or not isinstance(max_requests, int)
                                     or max_requests < 1):
        raise AdapterError(f"--max-requests must be an integer >= 1, got {max_requests!r}")
    if max_requests is not None and http is None and mcp is None:
        raise AdapterError("--max-requests limits the requests to an --http service")
    if (http is not None or mcp is not None) and overrides:
        raise AdapterError(f"--http: the contract states what the service computes; claim flags "
                           f"({', '.join(sorted(overrides))}) do not apply")
    accepts = _check_accepts(accepts)
    if accepts and not (callable_spec or corpus_impl):
        raise AdapterError("--accepts describes a package.module:function implementation (a program says "
                           "what it accepts in its hello)")
    for value, flag in ((max_refs, "--max-refs"), (name, "--name")):
        if value is not None and (custom != 1 or builtin):
            raise AdapterError(
                f"{flag} describes one package.module:function implementation, one --external "
                f"program or one --http service; built-in adapters have their own"
            )
    if corpus_impl is not None and ":" not in corpus_impl:
        raise AdapterError(
            f"--corpus-impl expects package.module:function, got {corpus_impl!r}"
        )
    for spec, flag in ((callable_spec, "--impl"), (corpus_impl, "--corpus-impl")):
        if spec is not None:
            try:
                B.parse_callable_spec(spec, flag)
            except B.SpecError as e:
                raise AdapterError(str(e)) from None

    make_client = (lambda: WorkerClient(timeout)) if isolate else InProcessClient
    clients: dict[str, object] = {}
    plan = []  # (name, client, bid, claims, supports, accepts, native_signature)
    for name in builtin:
        library, declared = registry.builtin(name)
        spec = {**declared.backend_spec(library.name), **(backend_options or {})}
        client = clients.get(library.name) or clients.setdefault(library.name, make_client())
        bid = _bid_for(client, spec)
        supports = Support(sentence=True, corpus=True, multi_reference=declared.multi_reference)
        plan.append((name, client, bid, Claims(**declared.claims), supports, declared.accepts,
                     library.native_signature))
    if callable_spec or corpus_impl:
        client = clients.setdefault("callable", make_client())
        spec = {"kind": "callable", "sentence": callable_spec, "corpus": corpus_impl, "accepts": sorted(accepts)}
        bid = client.add(spec)
        supports = Support(sentence=callable_spec is not None, corpus=corpus_impl is not None,
                           multi_reference=max_refs is None or max_refs > 1, max_refs=max_refs)
        plan.append(((name or "").strip() or _callable_name(callable_spec, corpus_impl), client, bid, Claims(), supports,
                     frozenset(accepts), False))
    for client in clients.values():
        client.start()  # workers import in parallel

    adapters: list[Adapter] = []
    try:
        for name, client, bid, claims, supports, takes, native in plan:
            try:
                description = client.describe(bid)
            except B.SpecError as e:
                raise AdapterError(str(e)) from None
            adapters.append(PythonAdapter(
                name=name, client=client, bid=bid,
                claims=_apply_overrides(claims, overrides, name), supports=supports,
                accepts=takes, description=description, native_signature=native,
            ))
        if external is not None:
            if not external.strip():
                raise AdapterError("--external needs a command, got an empty string")
            ext = ExternalAdapter.start(external, timeout)
            ext.claims = _apply_overrides(ext.claims, overrides, ext.name)
            if max_refs is not None:
                ext.supports = Support(ext.supports.sentence, ext.supports.corpus, max_refs > 1, max_refs)
            if name is not None:
                ext.name = name.strip()
            adapters.append(ext)
        if http is not None:
            from .http import HttpAdapter

            if max_refs is not None:
                raise AdapterError("--max-refs: an --http service takes what its contract states (one reference)")
            adapters.append(HttpAdapter.start(http, contract, timeout=timeout, max_requests=max_requests,
                                              concurrency=http_concurrency, retries=http_retries,
                                              name=given_name.strip() if given_name else None))
        if mcp is not None:
            from .mcp import McpAdapter

            if max_refs is not None:
                raise AdapterError("--max-refs: an --mcp tool takes what its contract states (one reference)")
            adapters.append(McpAdapter.start(mcp, tool, contract, timeout=timeout, max_requests=max_requests,
                                             concurrency=http_concurrency, retries=http_retries,
                                             name=given_name.strip() if given_name else None))
    except BaseException:
        for a in adapters:
            a.close()
        for client in clients.values():
            client.close()
        raise
    # How to re-create these adapters in another process (``--jobs``): this very call, and
    # the name of the one wanted.
    call = {"impl": impl, "corpus_impl": corpus_impl, "external": external, "overrides": overrides or None,
            "timeout": timeout, "isolate": isolate, "max_refs": max_refs, "accepts": sorted(accepts) or None,
            **({"backend_options": dict(backend_options)} if backend_options else {})}
    for a in adapters:
        if not getattr(a, "source_record", None):  # a service stays in this process: one budget
            a.spec = dict(call, name=a.name, given_name=given_name)
    return adapters


def _check_accepts(accepts) -> frozenset:
    """The claim names a callable takes as keyword arguments (``--accepts``): a comma list or
    an iterable of ``char_order``, ``word_order``, ``beta``, ``lowercase``, ``whitespace``."""
    if accepts is None:
        return frozenset()
    names = [a.strip() for a in (accepts.split(",") if isinstance(accepts, str) else accepts)]
    names = [a.replace("-", "_") for a in names if a]
    unknown = sorted(set(names) - set(options.ACCEPTABLE))
    if unknown:
        raise AdapterError(f"--accepts: unknown parameter {', '.join(unknown)} "
                           f"(choose from {', '.join(options.ACCEPTABLE)})")
    return frozenset(names)


def _callable_name(sentence: Optional[str], corpus: Optional[str]) -> str:
    """The report name of a callable implementation: its spec; with both entry points, what
    they share (or both specs), not whichever was given first: the module, and the object
    both are attributes of (``pkg:obj`` for ``pkg:obj.sentence`` and ``pkg:obj.corpus``, so
    that two objects of one module keep two names)."""
    if not (sentence and corpus):
        return sentence or corpus
    (s_mod, _, s_attr), (c_mod, _, c_attr) = sentence.partition(":"), corpus.partition(":")
    if s_mod.strip() != c_mod.strip():
        return f"{sentence} + {corpus}"
    common = []
    for a, b in zip(s_attr.strip().split(".")[:-1], c_attr.strip().split(".")[:-1]):
        if a != b:
            break
        common.append(a)
    return s_mod.strip() + (":" + ".".join(common) if common else "")


def _bid_for(client, spec: dict) -> int:
    cache = client.__dict__.setdefault("_bid_by_spec", {})
    key = tuple(sorted(spec.items()))
    if key not in cache:
        cache[key] = client.add(spec)
    return cache[key]
