"""The kinds of adapter ``resolve`` makes, one small factory each: the built-in libraries
(``audit.upstream.registry``), a Python callable, an external program, a scoring service, an MCP tool.

A ``Kind`` says when it is asked for, which options it reads (any other option given with it
is a one-line error naming what that option describes), which it needs and refuses, and
whether the claim flags apply.  Its factory gives each adapter everything at construction:
its claims with the user's overrides, and, when it can be made again in another process
(``--jobs``; a service cannot: one budget), its ``spec``.  Adding a kind is one ``Kind`` in
``KINDS`` and its options' rows in the option table.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional

from ..settings import options
from ..settings.option import parse_names
from ..upstream import registry
from . import backends as B
from .base import AdapterError, Claims, Support, with_overrides


@dataclass
class Request:
    """One ``resolve`` call, checked: the option values, the claim overrides, whether the
    implementations run in workers, the built-in backends' keywords."""

    values: dict
    overrides: dict = field(default_factory=dict)
    isolate: bool = True
    backend_options: dict = field(default_factory=dict)

    def get(self, name: str):
        return self.values.get(name)

    @property
    def timeout(self) -> float:
        return self.values["timeout"]

    @property
    def callable_spec(self) -> Optional[str]:
        impl = self.get("impl")
        return impl if impl is not None and ":" in impl else None

    @property
    def accepts(self) -> frozenset:
        return frozenset(parse_names(self.get("accepts") or ""))

    def client(self):
        from .isolation import InProcessClient, WorkerClient

        return WorkerClient(self.timeout) if self.isolate else InProcessClient()

    def call(self) -> dict:
        """This request as ``resolve`` keywords (for a pool process, ``--jobs``)."""
        keep = ("impl", "corpus_impl", "external", "timeout", "max_refs")
        out = {k: self.get(k) for k in keep}
        out.update(overrides=self.overrides or None, isolate=self.isolate, accepts=sorted(self.accepts) or None)
        if self.backend_options:
            out["backend_options"] = dict(self.backend_options)
        return out

    def spec(self, name: str) -> dict:
        """How the adapter ``name`` of this request is made again (``Adapter.spec``)."""
        return dict(self.call(), name=name, given_name=self.get("name"))

    def claims(self, claims: Claims, name: str) -> Claims:
        """An adapter's own ``claims`` with the user's overrides on top."""
        return with_overrides(claims, self.overrides, name)


@dataclass(frozen=True)
class Kind:
    name: str
    asked: Callable[[Request], bool]
    start: Callable[[Request], list]
    takes: tuple = ()  # the options it reads (an option given that no kind asked for reads: an error)
    requires: tuple = ()  # options it cannot do without (``messages`` says why)
    refuses: dict = field(default_factory=dict)  # option -> message, when given with this kind
    messages: dict = field(default_factory=dict)  # option -> what it describes; "claims": claim flags refused
    selectors: tuple = ()  # the options that ask for it (named in "needs impl, ... or http")
    one: bool = False  # one implementation the user describes (``--max-refs``, ``--name`` apply)
    claims: bool = True  # the claim flags apply


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
            raise AdapterError(f"unknown implementation {part!r} for --impl: expected one of "
                               f"{', '.join(known)} or package.module:function")
    return list(dict.fromkeys(names))


def _started(req: Request, plan: list, clients: dict) -> list:
    """The ``PythonAdapter`` of each planned (name, client, bid, claims, supports, accepts,
    native signature), once every client has started (their workers import in parallel)."""
    from .pyimpl import PythonAdapter

    adapters = []
    try:
        for client in clients.values():
            client.start()
        for name, client, bid, claims, supports, takes, native in plan:
            try:
                description = client.describe(bid)
            except B.SpecError as e:
                raise AdapterError(str(e)) from None
            adapters.append(PythonAdapter(name=name, client=client, bid=bid, claims=req.claims(claims, name),
                                          supports=supports, accepts=takes, description=description,
                                          native_signature=native, spec=req.spec(name)))
    except BaseException:
        for client in clients.values():
            client.close()
        raise
    return adapters


def _builtin(req: Request) -> list:
    clients: dict = {}
    plan = []
    for name in builtin_names(None if req.callable_spec else req.get("impl")):
        library, declared = registry.builtin(name)
        spec = {**declared.backend_spec(library.name), **req.backend_options}
        client = clients.get(library.name) or clients.setdefault(library.name, req.client())
        cache = client.__dict__.setdefault("_bid_by_spec", {})
        key = tuple(sorted(spec.items()))
        if key not in cache:
            cache[key] = client.add(spec)
        supports = Support(sentence=True, corpus=True, multi_reference=declared.multi_reference)
        plan.append((name, client, cache[key], Claims(**declared.claims), supports, declared.accepts,
                     library.native_signature))
    return _started(req, plan, clients)


def _callable(req: Request) -> list:
    sentence, corpus, max_refs = req.callable_spec, req.get("corpus_impl"), req.get("max_refs")
    if corpus is not None and ":" not in corpus:
        raise AdapterError(f"--corpus-impl expects package.module:function, got {corpus!r}")
    for spec, flag in ((sentence, "--impl"), (corpus, "--corpus-impl")):
        if spec is not None:
            try:
                B.parse_callable_spec(spec, flag)
            except B.SpecError as e:
                raise AdapterError(str(e)) from None
    client = req.client()
    bid = client.add({"kind": "callable", "sentence": sentence, "corpus": corpus, "accepts": sorted(req.accepts)})
    supports = Support(sentence=sentence is not None, corpus=corpus is not None,
                       multi_reference=max_refs is None or max_refs > 1, max_refs=max_refs)
    name = (req.get("name") or "").strip() or callable_name(sentence, corpus)
    return _started(req, [(name, client, bid, Claims(), supports, req.accepts, False)], {"callable": client})


def _external(req: Request) -> list:
    from .external import ExternalAdapter

    command = req.get("external")
    if not command.strip():
        raise AdapterError("--external needs a command, got an empty string")
    name = req.get("name").strip() if req.get("name") is not None else f"external:{command}"
    return [ExternalAdapter.start(command, req.timeout, name=name, max_refs=req.get("max_refs"),
                                  overrides=req.overrides, spec=req.spec(name))]


def _http(req: Request) -> list:
    from .http import HttpAdapter

    name = req.get("name")
    return [HttpAdapter.start(req.get("http"), req.get("contract"), timeout=req.timeout,
                              max_requests=req.get("max_requests"), concurrency=req.get("http_concurrency"),
                              retries=req.get("http_retries"), name=name.strip() if name else None)]


def _mcp(req: Request) -> list:
    from .mcp import McpAdapter

    name = req.get("name")
    return [McpAdapter.start(req.get("mcp"), req.get("tool"), req.get("contract"), timeout=req.timeout,
                             max_requests=req.get("max_requests"), concurrency=req.get("http_concurrency"),
                             retries=req.get("http_retries"), name=name.strip() if name else None)]


def _custom(req: Request) -> bool:
    return any(k.name != "builtin" and k.asked(req) for k in KINDS)


_ONE = "describes a package.module:function implementation (a program says what it accepts in its hello)"
_SERVICE = {"contract": "--http URL and --contract NAME@VERSION|FILE go together",
            "max_requests": "--max-requests limits the requests to an --http service",
            "http_concurrency": "--http-concurrency sets the requests in flight to an --http service",
            "http_retries": "--http-retries sets the retries of requests to an --http service",
            "claims": "--http: the contract states what the service computes; claim flags ({}) do not apply"}

_TOGETHER = "--mcp URL and --tool NAME@VERSION go together"

KINDS: tuple = (
    Kind("builtin", lambda r: (r.get("impl") is not None and r.callable_spec is None) or not _custom(r), _builtin,
         selectors=("impl",)),
    Kind("callable", lambda r: r.callable_spec is not None or r.get("corpus_impl") is not None, _callable,
         takes=("corpus_impl", "max_refs", "name", "accepts"), selectors=("impl", "corpus_impl"), one=True,
         messages={"accepts": f"--accepts {_ONE}"}),
    Kind("external", lambda r: r.get("external") is not None, _external, takes=("external", "max_refs", "name"),
         selectors=("external",), one=True),
    Kind("http", lambda r: r.get("http") is not None, _http,
         takes=("http", "contract", "max_requests", "http_concurrency", "http_retries", "name"),
         selectors=("http",), requires=("contract",),
         refuses={"max_refs": "--max-refs: an --http service takes what its contract states (one reference)"},
         messages=_SERVICE, one=True, claims=False),
    Kind("mcp", lambda r: r.get("mcp") is not None or r.get("tool") is not None, _mcp,
         takes=("mcp", "tool", "contract", "max_requests", "http_concurrency", "http_retries", "name"),
         selectors=("mcp",), requires=("mcp", "tool"),
         refuses={"http": "--http and --mcp: one service at a time",
                  "max_refs": "--max-refs: an --mcp tool takes what its contract states (one reference)"},
         messages={**_SERVICE, "mcp": _TOGETHER, "tool": _TOGETHER,
                   "claims": "--mcp: the contract states what the service computes; claim flags ({}) do not apply"},
         one=True, claims=False),
)


def callable_name(sentence: Optional[str], corpus: Optional[str]) -> str:
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


def named(values: dict) -> bool:
    """Whether these option values name an implementation (without one: the default audit)."""
    req = Request(dict(values))
    return req.get("impl") is not None or _custom(req)


def _given(req: Request) -> list[str]:
    """The options given that change something (a value other than the table's default)."""
    return [k for k, v in req.values.items() if k not in ("impl", "timeout") and v is not None
            and v != options.default(k) and v != []]


def combination_problem(req: Request, kinds: list) -> Optional[str]:
    """What is wrong with the options given together (None: nothing): every option given is
    read by a kind asked for, what a kind needs is there, what it refuses is not."""
    for kind in kinds:
        for name in kind.requires:
            if req.get(name) is None:
                return kind.messages[name]
        for name, message in kind.refuses.items():
            if req.get(name) is not None:
                return message
        if not kind.claims and req.overrides:
            return kind.messages["claims"].format(", ".join(sorted(req.overrides)))
    for name in _given(req):
        if name in ("max_refs", "name") and (len(kinds) != 1 or not kinds[0].one):
            return (f"{options.OPTIONS[name].flag} describes one package.module:function implementation, "
                    "one --external program or one --http service; built-in adapters have their own")
        if not any(name in k.takes for k in kinds):
            owner = next((k for k in KINDS if name in k.takes), None)
            return (owner.messages.get(name) if owner and name in owner.messages
                    else f"{options.OPTIONS[name].flag} does not apply to this implementation")
    return None


def problem(values: dict, overrides: Optional[dict] = None) -> Optional[str]:
    """What is wrong with one configured implementation's options (``[[tool.chrf-audit.
    implementations]]``), in the words ``resolve`` would use, before anything starts."""
    req = Request(dict(values), dict(overrides or {}))
    if not named(req.values):
        keys = [options.OPTIONS[n].key for k in KINDS for n in k.selectors]
        keys = list(dict.fromkeys(keys))
        return f"needs {', '.join(keys[:-1])} or {keys[-1]}"
    if req.overrides:
        from .base import Claims

        try:
            Claims().replace(**req.overrides)
        except (TypeError, ValueError) as exc:
            return f"invalid claim: {exc}"
    return combination_problem(req, [k for k in KINDS if k.asked(req)])
