"""An HTTP error whose JSON body is no JSON-RPC answer (RFC 6750's `{"error":"invalid_token"}`,
a 500 or even a 200 with `{"error": ...}`) fails the call at once with the status, instead of
leaving it to wait for its whole timeout (issue 34, moderate). Both HTTP clients (the lean one
and httpx, which serves every `auth=` connection), against a real peer on 127.0.0.1."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from mcpgen.runtime import HttpError, connect_http
from mcpgen.runtime.client.auth.provider import BearerToken

from ._inproc import canned_peer, jsonrpc_answer

pytestmark = pytest.mark.timeout(90)


class _Token:
    async def token(self) -> str | None:
        return "t"


BODIES = [
    (401, {"error": "invalid_token", "error_description": "expired"}),
    (403, {"error": "insufficient_scope"}),
    (500, {"error": "boom"}),
    (200, {"error": "not json-rpc"}),
    (200, {"id": 1, "error": "a string, not an error object"}),
    (400, {"jsonrpc": "2.0", "id": None, "something": "else"}),
]


@pytest.mark.parametrize("via", ["lean", "httpx"])
@pytest.mark.parametrize(("status", "body"), BODIES)
def test_a_non_jsonrpc_error_body_fails_the_call_with_its_status(via: str, status: int, body: Any) -> None:
    payload = json.dumps(body).encode()
    answer = jsonrpc_answer(lambda _id: (status, {"content-type": "application/json"}, payload))

    async def main() -> None:
        extra: dict[str, Any] = {"auth": BearerToken(_Token())} if via == "httpx" else {}
        async with canned_peer(answer) as base:
            # Every request after initialize gets the body (the first is the connect's own
            # tools/list). A request that waited for its timeout would raise RequestTimeout.
            with pytest.raises(HttpError, match=f"HTTP {status}"):
                async with connect_http(base + "/mcp", transport="streamable", timeout=20, **extra) as session:
                    await session.call_tool("echo", {}, timeout=20)

    asyncio.run(main())


@pytest.mark.parametrize(("status", "body"), [(404, b""), (502, b"<html>bad gateway</html>"), (200, b"{not json")])
def test_a_body_that_is_not_json_fails_the_call_with_its_status(status: int, body: bytes) -> None:
    answer = jsonrpc_answer(lambda _id: (status, {"content-type": "text/html"}, body))

    async def main() -> None:
        async with canned_peer(answer) as base:
            with pytest.raises(HttpError, match=f"HTTP {status}: (empty|text/html|invalid)"):
                async with connect_http(base + "/mcp", transport="streamable", timeout=20) as session:
                    await session.call_tool("echo", {}, timeout=20)

    asyncio.run(main())
