"""The runtime client's 2026-07-28 HTTP duties against an in-process httpx mock server: a retried
first-choice version, Mcp-Param-* headers from known (generated) tool definitions, and tools with
an invalid x-mcp-header dropped from listings and refused when called."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest

from mcpgen.runtime import ClientSession, ProtocolError
from mcpgen.runtime.transports.http_client import StreamableHttpTransport

MODERN = "2026-07-28"
TOOLS = [
    {
        "name": "good",
        "inputSchema": {"type": "object", "properties": {"region": {"type": "string", "x-mcp-header": "Region"}}},
    },
    {"name": "bad", "inputSchema": {"type": "object", "properties": {"n": {"type": "number", "x-mcp-header": "N"}}}},
]


class MockServer:
    """Rejects the first request with -32022 (naming the version it was sent), then answers."""

    def __init__(self) -> None:
        self.requests: list[tuple[dict[str, Any], httpx.Headers]] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        self.requests.append((body, request.headers))
        if len(self.requests) == 1:
            error = {"code": -32022, "message": "Unsupported protocol version", "data": {"supported": [MODERN]}}
            return httpx.Response(400, json={"jsonrpc": "2.0", "id": body["id"], "error": error})
        results: dict[str, Any] = {
            "server/discover": {"supportedVersions": [MODERN], "capabilities": {"tools": {}}},
            "tools/list": {"tools": TOOLS, "ttlMs": 0, "cacheScope": "private"},
            "tools/call": {"content": [{"type": "text", "text": "ok"}]},
        }
        result = {"resultType": "complete", **results[body["method"]]}
        return httpx.Response(200, json={"jsonrpc": "2.0", "id": body["id"], "result": result})


async def _session(server: MockServer) -> ClientSession:
    client = httpx.AsyncClient(transport=httpx.MockTransport(server))
    session = ClientSession(StreamableHttpTransport("http://127.0.0.1:1/mcp", client=client), timeout=5)
    await session.connect(MODERN, connect_timeout=5)
    return session


def test_a_rejected_first_choice_is_retried_with_the_version_the_server_names() -> None:
    async def main() -> None:
        server = MockServer()
        session = await _session(server)
        try:
            assert session.protocol_version == MODERN
            assert [body["method"] for body, _ in server.requests] == ["server/discover", "server/discover"]
        finally:
            await session.aclose()

    asyncio.run(main())


def test_known_tools_give_param_headers_and_invalid_ones_are_refused() -> None:
    async def main() -> None:
        server = MockServer()
        session = await _session(server)
        try:
            session.know_tools(TOOLS)
            await session.call_tool("good", {"region": "eu west"})
            _, headers = server.requests[-1]
            assert headers["mcp-param-region"] == "eu west"
            assert headers["mcp-name"] == "good"
            with pytest.raises(ProtocolError, match="invalid x-mcp-header"):
                await session.call_tool("bad", {"n": 1})
            assert [t["name"] for t in await session.list_tools()] == ["good"]
            sent = len(server.requests)
            with pytest.raises(
                ProtocolError, match=r"^tool 'bad' has an invalid x-mcp-header annotation; it is not called over HTTP$"
            ):
                await session.call_tool("bad", {"n": 1})
            assert len(server.requests) == sent  # refused before anything went out
        finally:
            await session.aclose()

    asyncio.run(main())
