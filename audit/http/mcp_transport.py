"""The HTTP client under ``--mcp``'s session (the SDK's streamable HTTP transport runs on
``httpx2``): JSON written as ASCII, an answer cut at ``MAX_BODY`` bytes, no redirect followed,
no proxy from the environment."""

from __future__ import annotations

import contextvars

from .client import MAX_BODY

#: what a call's transport saw (set per call: the SDK runs a request's POST in its context)
CALL: contextvars.ContextVar = contextvars.ContextVar("chrf_audit_mcp_call", default=None)


def http_client(timeout: float, headers: dict):
    """An ``httpx2.AsyncClient`` that writes JSON as ASCII (a lone surrogate is an escape, not
    an encoding error) and cuts an answer at ``MAX_BODY`` bytes."""
    import httpx2

    class _Cut(httpx2.AsyncByteStream):
        def __init__(self, stream):
            self._stream = stream

        async def __aiter__(self):
            seen = 0
            async for chunk in self._stream:
                seen += len(chunk)
                if seen > MAX_BODY:
                    state = CALL.get()
                    if state is not None:
                        state["oversized"] = True
                    raise httpx2.ReadError(f"the answer is larger than {MAX_BODY} bytes")
                yield chunk

        async def aclose(self):
            await self._stream.aclose()

    class _Transport(httpx2.AsyncHTTPTransport):
        async def handle_async_request(self, request):
            response = await super().handle_async_request(request)
            response.stream = _Cut(response.stream)
            return response

    class _Client(httpx2.AsyncClient):
        def build_request(self, method, url, *, json=None, content=None, headers=None, **kw):
            if json is not None and content is None:
                import json as _json

                content = _json.dumps(json, ensure_ascii=True, separators=(",", ":")).encode("ascii")
                headers = {**dict(headers or {}), "Content-Type": "application/json"}
                json = None
            return super().build_request(method, url, json=json, content=content, headers=headers, **kw)

    return _Client(timeout=httpx2.Timeout(timeout), headers=headers, transport=_Transport(retries=0),
                   follow_redirects=False, trust_env=False)
