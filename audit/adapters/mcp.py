"""Adapter for a tool of an MCP server behind its published contract (``--mcp URL --tool
NAME@VERSION``): the HTTP adapter's audit over the Model Context Protocol.

Everything but the transport is ``HttpAdapter``'s: the same contract, probes, batching (each
call carries up to ``max_segments`` segments; ``--http-concurrency`` calls in flight), judge
and findings.  The contract's request body is the tool call's ``input``
(``Contract.mcp_arguments``: ``execute`` with ``{id, version, input}``), and the answer is
read from the tool's result (``audit.http.mcp``).  ``--tool`` names the contract; ``--contract``
may give it from a file, a URL or the server's versioned contract path (``auto``).
"""

from __future__ import annotations

from typing import Optional

from ..errors import UsageError
from ..settings import options
from .http import HttpAdapter, contract_for
from .service_faults import BudgetedClient


class McpAdapter(HttpAdapter):
    """One tool of one MCP server held to one contract."""

    @classmethod
    def start(cls, url: str, tool: str, contract_spec: Optional[str] = None, *,
              timeout: float = options.default("timeout"), max_requests: Optional[int] = None,
              concurrency: int = options.default("http_concurrency"), retries: int = options.default("http_retries"),
              name: Optional[str] = None, environ=None) -> "McpAdapter":
        import os

        from ..contract import references
        from ..contract.spec import builtin_names
        from ..http.client import check_url, refusal
        from ..http.headers import ServiceHeaders
        from ..http.mcp import McpClient

        try:
            check_url(url)
        except UsageError as e:
            raise UsageError(str(e).replace("--http", "--mcp", 1)) from None
        tool = (tool or "").strip()
        if tool not in builtin_names() and not contract_spec:
            raise UsageError(f"--tool {tool!r}: no built-in contract of that name@version (built in: "
                             f"{', '.join(builtin_names())}); give its contract with --contract FILE|URL|auto")
        refused = refusal(url)  # at once: the SDK takes seconds to start before it would say so
        if refused:
            raise UsageError(f"--mcp {cls._shown(url)}: {refused}")
        credentials = ServiceHeaders.from_env(url, os.environ if environ is None else environ)
        contract, document = contract_for(contract_spec or tool, url, timeout=timeout, credentials=credentials,
                                          names=[tool] if tool in builtin_names() else None)
        if contract.id != tool:
            raise UsageError(f"--tool {tool}: the contract given is {contract.id}")
        env_headers = credentials.variables
        client = BudgetedClient(McpClient(url, contract.mcp_tool, contract.mcp_arguments, timeout=timeout,
                                          concurrency=concurrency, retries=retries, max_requests=max_requests,
                                          headers=credentials.for_url(url), secrets=credentials.secrets,
                                          schema_problem=references.problem), timeout)
        try:
            tools = client.tools()
            if contract.mcp_tool not in tools:
                raise UsageError(f"--mcp {cls._shown(url)}: the server has no tool {contract.mcp_tool!r} (its tools: "
                                 f"{', '.join(sorted(tools)[:20]) or 'none'})")
            adapter = cls(url, contract, client, name=name, env_headers=env_headers, document=document)
            adapter.preflight()
        except BaseException:
            client.close()
            raise
        return adapter

    @staticmethod
    def _shown(url: str) -> str:
        from ..http.client import public_url

        return public_url(url)

    def preflight(self) -> None:
        try:
            super().preflight()
        except UsageError as e:
            raise UsageError(str(e).replace("--http", "--mcp", 1)) from None

    def source_record(self, level: str) -> dict:
        return {"call": "mcp", "url": self._shown(self.url), "tool": self.contract.mcp_tool,
                "arguments": self.contract.doc.get("mcp", {}).get("arguments"), "contract": self.contract.id,
                "env_headers": list(self.env_headers)}



