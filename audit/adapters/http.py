"""Adapter for a scoring service behind its published contract (``--http URL --contract C``).

The audit's calls become requests of the contract: a sentence-level batch of N inputs is
sent as ceil(N / max_segments) requests (fewer when the byte limit needs it), each scoring
up to ``max_segments`` segments at once, and every input's score is read from
``segment_scores``; nothing is sent one input at a time that the contract lets us batch.
The search runs at the sentence level only: there the contract's metric and the
reference's ``sacrebleu`` definition are the same (audit.contract.definition), while the
corpus score is held to the contract's own definition by the contract checks
(``audit.contract.checks``, given ``service()``, scheduled after the search by
``audit.collect.service_contract``).

Scores come as decimals with the contract's places, so the comparison with the exact
reference allows one unit in the last place (``resolution``: a score rounded any way, half to
even, half up or truncated, is within it); whether that last place is *right* (half to even)
is a contract check, exact, and named so (a truncating service is ``contract-score-rounding``,
not a precision bug of the metric).  A request that fails costs the inputs
it carried an outcome each (refused: ``exception``, 5xx or dropped: ``crash``, no answer:
``timeout``, not the contract's answer: ``invalid``), never the audit.  Requests meet the fault
budget callables have (``service_faults``): three faults in a row stop them, but for probes.
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Optional

from ..settings import options
from ..contract.checks import Service
from ..contract.judge import error_answer
from ..contract.probes import groups
from ..render._text import terminal_line
from ..http.client import HttpClient, Reply, check_header, check_url, public_url
from ..http.headers import ServiceHeaders
from .base import Adapter, AdapterError, Claims, Support
from .faults import Presumed
from .service_faults import BudgetedClient

#: a score as a decimal string (whole string: no trailing newline), at most 100 places
_DECIMAL = re.compile(r"[0-9]{1,3}\.[0-9]{1,100}")


class HttpAdapter(Adapter):
    """One service endpoint held to one contract."""

    accepts = frozenset({"lowercase"})  # beta is a contract check: the search's swarm draws 0.5

    def __init__(self, url: str, contract, client: HttpClient, *, name: Optional[str] = None,
                 env_headers: tuple = (), claims: Optional[Claims] = None, document: Optional[dict] = None):
        self.url = url
        self.contract = contract
        self.client = client
        self.env_headers = env_headers  # which variables supplied headers (never their values)
        self.document = document  # where the contract came from, and how it differs from the built-in one
        self.name = name or public_url(url)
        self.version = contract.id
        m = contract.metric
        lo, hi, beta = contract.beta_range
        self.claims = claims or Claims(char_order=m.char_order, word_order=m.word_order, beta=beta,
                                       lowercase=contract.lowercase_default, whitespace=False,
                                       definition="sacrebleu", scale=100)
        self.supports = Support(sentence=True, corpus=False, multi_reference=False, max_refs=1)
        self.accepts_surrogates = contract.limits.get("lone_surrogates") == "accepted"
        #: a unit in the last decimal place (however the service rounds), and a hair for float
        #: subtraction near 100
        self.resolution = 10.0 ** -contract.decimals + 1e-11
        self._closed = False
        self._owner = True

    @classmethod
    def start(cls, url: str, contract_spec: str, *, timeout: float = options.default("timeout"), max_requests: Optional[int] = None,
              concurrency: int = options.default("http_concurrency"), retries: int = options.default("http_retries"), name: Optional[str] = None, environ=None) -> "HttpAdapter":
        import os

        check_url(url)
        credentials = ServiceHeaders.from_env(url, os.environ if environ is None else environ)
        contract, document = contract_for(contract_spec, url, timeout=timeout, credentials=credentials)
        headers = dict(contract.doc["request"].get("headers") or {})
        for k, v in headers.items():
            check_header(k, v, f"{contract.origin}: request.headers")
        headers.update(credentials.for_url(url))
        env_headers = credentials.variables
        client = BudgetedClient(HttpClient(url, method=contract.doc["request"]["method"], timeout=timeout,
                                           concurrency=concurrency, retries=retries, max_requests=max_requests,
                                           headers=headers, secrets=credentials.secrets), timeout)
        adapter = cls(url, contract, client, name=name, env_headers=env_headers, document=document)
        try:
            adapter.preflight()
        except BaseException:
            client.close()
            raise
        return adapter

    def preflight(self) -> None:
        """One request (the contract's example) before the audit: a service that cannot be
        reached is a one-line error, not a report full of ``crash`` findings."""
        ex = self.contract.doc.get("example", {}).get("request") or {"hypotheses": ["a"], "references": ["a"]}
        reply = self.client.send(self.contract.body(ex["hypotheses"], ex["references"]))
        if reply.kind in ("dropped", "timeout"):
            raise AdapterError(f"--http {public_url(self.url)}: {reply.detail}")

    # -- Adapter ------------------------------------------------------------------------------
    def with_claims(self, claims: Claims) -> "HttpAdapter":
        v = type(self)(self.url, self.contract, self.client, name=self.name, env_headers=self.env_headers,
                       claims=claims, document=self.document)
        v._owner = False  # the client stays this adapter's to close
        return v

    def service(self) -> Service:
        """The service as its contract checks see it (``audit.contract.checks``)."""
        return Service(self.name, self.contract, self.client, self.claims, self.signature,
                       self.source_record("corpus"), self.document)

    def request_body(self, level: str, inputs: dict, claims: Optional[dict] = None):
        """The request that scores one search input (the repro of a search finding)."""
        claims = claims or self.claims.to_dict()
        if level == "sentence":
            hyps, refs = [inputs["hypothesis"]], [inputs["references"][0]]
        else:
            hyps, refs = list(inputs["hypotheses"]), [r[0] for r in inputs["references"]]
        return self.contract.body(hyps, refs, **self._params(claims))

    def _params(self, claims: dict) -> dict:
        """The optional parameters to send: those that differ from the contract's defaults."""
        lo, hi, default = self.contract.beta_range
        out = {}
        if self.contract.takes("beta") and claims.get("beta", default) != default:
            out["beta"] = int(claims["beta"])
        if self.contract.takes("lowercase") and bool(claims.get("lowercase")) != self.contract.lowercase_default:
            out["lowercase"] = bool(claims["lowercase"])
        return out

    def batches(self, items: list) -> list[list[int]]:
        """Indices of ``items`` grouped into requests within the contract's limits."""
        return groups(self.contract, [(h, refs[0]) for h, refs in items])

    def _score(self, op: str, items: list) -> list[tuple]:
        if op != "sentence":  # pragma: no cover - supports.corpus is False
            raise NotImplementedError("corpus scores of a service are contract checks")
        params = self._params(self.claims.to_dict())
        groups = self.batches(items)
        bodies = [self.contract.body([items[i][0] for i in g], [items[i][1][0] for i in g], **params) for g in groups]
        results: list = [None] * len(items)
        for g, reply in zip(groups, self.client.map(bodies)):
            for k, i in enumerate(g):
                result = self.segment_result(reply, k, len(g))
                # a reply the fault budget presumed (the request was not sent, or outlived a derived
                # limit): never evidence (audit.adapters.service_faults)
                results[i] = Presumed(result, reply.presumed) if reply.presumed else result
        return results

    def segment_result(self, reply: Reply, k: int, n: int) -> tuple:
        """The worker-style result (``base.outcome_from_result``) of segment ``k`` of ``n``."""
        if reply.kind == "timeout":
            return ("timeout", reply.detail)
        if reply.kind in ("dropped", "server-error"):
            return ("crash", reply.detail)
        if reply.kind == "refused":
            return ("exception", f"refused: {reply.detail}")
        if reply.kind == "garbage":
            return ("invalid", reply.text[:200] or None, reply.detail)
        body = reply.body
        if error_answer(self.contract, body):
            member = (self.contract.doc.get("errors") or {}).get("member", "error")
            return ("exception", f"error response: {str(body[member])[:200]}")
        if reply.duplicates:
            return ("invalid", reply.text[:200], f"the answer repeats the key {reply.duplicates[0]!r} in one object")
        try:
            scores = self.contract.field(body, "segment_scores")
        except (KeyError, TypeError):
            return ("invalid", reply.text[:200], "the response has no segment_scores")
        if not isinstance(scores, list) or len(scores) != n:
            return ("invalid", reply.text[:200],
                    f"segment_scores is not a list of {n} scores (got {type(scores).__name__}"
                    + (f" of {len(scores)}" if isinstance(scores, list) else "") + ")")
        s = scores[k]
        if not isinstance(s, str) or not _DECIMAL.fullmatch(s):
            return ("invalid", repr(s)[:200], f"segment_scores[{k}] is not a decimal string")
        return ("value", float(Decimal(s)), s)

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            if self._owner:
                self.client.close()

    # -- what reports need --------------------------------------------------------------------
    def source_record(self, level: str) -> dict:
        return {"call": "http", "url": public_url(self.url), "method": self.contract.doc["request"]["method"],
                "contract": self.contract.id, "env_headers": list(self.env_headers)}


def contract_for(spec: str, url: str, *, timeout: float, credentials: Optional[ServiceHeaders] = None,
                 names: Optional[list] = None, say=None) -> tuple:
    """(the contract ``--contract SPEC`` names, a record of the document it came from or None).

    ``NAME@VERSION``: built in.  ``FILE``: a contract file.  ``URL``: the document a service
    publishes there.  ``auto``: the document at the versioned contract path of the service
    at ``url`` (the ``machine_readable`` path of each built-in contract, or of ``names``, the
    first one answered).  A document or file is compared with the built-in contract of its
    name@version and the differences are printed (``say``, default stderr) before the audit;
    they are in the record (and so in the report).  ``credentials``: the user's headers, sent
    only to the service's own origin (``ServiceHeaders.for_url``)."""
    import sys

    from ..contract import document as D
    from ..contract.spec import builtin_names, load
    from ..errors import UsageError
    from ..http.fetch import NotServed, get_text

    spec = (spec or "").strip()
    if spec == "auto":
        origin = httpx_origin(url)
        last = None
        for name in names or builtin_names():
            path = load(name).doc.get("machine_readable")
            if not path:
                continue
            try:
                text = get_text(origin + path, timeout=timeout, credentials=credentials)
            except UsageError as e:
                last = e
                continue
            contract, diffs, used = D.read(text, public_url(origin + path))
            break
        else:
            hint = ""
            if isinstance(last, NotServed):  # the service answered: it publishes no contract there
                hint = (f"; the service publishes no contract at its versioned path: give --contract NAME@VERSION "
                        f"(built in: {', '.join(names or builtin_names())}), a contract file or the document's URL")
            raise UsageError(f"--contract auto: {last or 'no built-in contract names a machine-readable path'}{hint}")
    elif spec.startswith(("http://", "https://")):
        contract, diffs, used = D.read(get_text(spec, timeout=timeout, credentials=credentials),
                                       public_url(spec))
    else:
        contract = load(spec)
        if spec in builtin_names():
            return contract, None
        builtin = load(contract.id) if contract.id in builtin_names() else None
        diffs, used = (D.differences(contract.doc, builtin.doc) if builtin else []), "document"
    record = {"from": contract.origin if used == "document" else public_url(spec) if spec != "auto" else
              public_url(httpx_origin(url) + (contract.doc.get("machine_readable") or "")),
              "audited": contract.id if used == "built-in" else "the document", "differences": diffs,
              "builtin": contract.id in builtin_names()}
    if diffs:
        say = say or (lambda line: print(terminal_line(line), file=sys.stderr))  # its keys are the document's
        say(f"contract {record['from']}: {len(diffs)} difference{'s' * (len(diffs) != 1)} from the built-in "
            f"{contract.id} ({'the built-in contract' if used == 'built-in' else 'the document'} is audited):")
        for line in diffs:
            say(f"  {line}")
    return contract, record


def httpx_origin(url: str) -> str:
    """scheme://host:port of ``url`` (no path, no credentials)."""
    import httpx

    u = httpx.URL(url)
    host = f"[{u.host}]" if ":" in u.host else u.host
    return f"{u.scheme}://{host}{f':{u.port}' if u.port else ''}"
