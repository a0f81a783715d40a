"""From user flags to adapters: ``resolve(impl, corpus_impl=..., external=..., overrides=...)``
(``audit.adapters.resolve``; the module is not named after the function, which the package
exports under that name).

One small factory per adapter kind (``audit.adapters.kinds``: built-in libraries, a Python
callable, an external program, a scoring service); this module turns the keywords into one
checked ``Request``, asks each kind whether it is wanted, holds the options given to the kinds
that take them and starts the kinds' adapters (closing the ones started when a later one
fails); each kind gives its adapters their claims, with the overrides, and how to make them
again in another process (``--jobs``), at construction.

The keywords are the option table's implementation options (``audit.settings.options``: the
``implementation`` and ``http`` groups, ``timeout`` among them), each checked by its row, so a
new option of a new kind is one row there and one ``Kind`` in ``kinds``.
"""

from __future__ import annotations

from typing import Optional

from ..errors import UsageError
from ..settings import options
from .base import CLAIM_FIELDS, Adapter, AdapterError, Claims, with_overrides
from .kinds import KINDS, Request, builtin_names, combination_problem

__all__ = ["resolve", "builtin_names", "check_overrides", "with_overrides", "KEYWORDS"]

#: resolve()'s keywords beyond ``impl``: the table's implementation options
KEYWORDS = options.IMPLEMENTATION


def check_overrides(overrides: Optional[dict]) -> dict:
    overrides = {k: v for k, v in (overrides or {}).items() if v is not None}
    unknown = sorted(set(overrides) - set(CLAIM_FIELDS))
    if unknown:
        raise AdapterError(f"unknown claim(s) {', '.join(unknown)}; known: {', '.join(CLAIM_FIELDS)}")
    try:
        options.validate(overrides)  # the table's checks: --definition, the orders' limits, ...
    except UsageError as e:
        raise AdapterError(str(e)) from None
    try:
        Claims().replace(**overrides)
    except (TypeError, ValueError) as e:
        raise AdapterError(f"invalid claim: {e}") from None
    return overrides


def _request(impl, given: dict, overrides, isolate: bool, backend_options) -> Request:
    unknown = sorted(set(given) - set(KEYWORDS))
    if unknown:
        raise TypeError(f"resolve() got an unexpected keyword argument {unknown[0]!r}")
    values = {**{k: options.default(k) for k in KEYWORDS}, "impl": impl,
              **{k: v for k, v in given.items() if v is not None}}  # not given: the table's default
    values = {k: (v.strip() or None) if isinstance(v, str) and k in ("impl", "corpus_impl") else v
              for k, v in values.items()}
    try:
        values = options.validate(values)
    except AdapterError:
        raise
    except UsageError as e:
        raise AdapterError(str(e)) from None
    return Request(values, check_overrides(overrides), isolate, dict(backend_options or {}))


def resolve(impl: Optional[str] = None, *, overrides: Optional[dict] = None, isolate: bool = True,
            backend_options: Optional[dict] = None, **given) -> list[Adapter]:
    """Adapters for the given specs (README "Auditing your own implementation", docs/http.md).

    * nothing given: the default audit, nltk and the four sacreBLEU adapters;
    * ``impl``: ``nltk``, ``sacrebleu`` (the four), one sacreBLEU adapter by name, a comma
      list of those, or ``package.module:function`` (sentence level);
    * ``corpus_impl``: ``package.module:function`` (corpus level); with a callable ``impl``
      ONE implementation with two entry points;
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
    or external program given.  ``timeout``: per call, seconds.  ``backend_options``:
    keywords of the built-in libraries' backend classes (a patched copy's opt-in behaviour,
    ``Upstream.patch_options``).  Callables and programs are loaded eagerly: a bad spec
    raises AdapterError (one line).
    """
    req = _request(impl, given, overrides, isolate, backend_options)
    kinds = [k for k in KINDS if k.asked(req)]
    wrong = combination_problem(req, kinds)
    if wrong:
        raise AdapterError(wrong)
    adapters: list[Adapter] = []
    try:
        for kind in kinds:
            adapters.extend(kind.start(req))
    except BaseException:
        for a in adapters:
            a.close()
        raise
    return adapters

