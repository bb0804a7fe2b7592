"""2026-07-28 request headers on the HTTP server: MCP-Protocol-Version, Mcp-Method and Mcp-Name are
required on requests, and Mcp-Param-* must mirror the called tool's `x-mcp-header` arguments
(against the generated conformance server, whose test_param_header mirrors `region`)."""

from __future__ import annotations

import asyncio
import base64
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from serving import serving

from mcpgen.runtime import connect_http

SERVER = Path(__file__).resolve().parents[3] / "examples/conformance/server.py"
MODERN = "2026-07-28"
META = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"},
}


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with serving([sys.executable, str(SERVER), "--port", "{port}"]) as url:
        yield url


def post(url: str, method: str, params: dict[str, Any], drop: tuple[str, ...] = (), **extra: str) -> httpx.Response:
    """A stateless request with the standard headers (minus `drop`) plus `extra`."""
    headers = {"accept": "application/json, text/event-stream", "mcp-protocol-version": MODERN, "mcp-method": method}
    if "name" in params:
        headers["mcp-name"] = params["name"]
    headers.update({k.replace("_", "-"): v for k, v in extra.items()})
    for name in drop:
        headers.pop(name)
    body = {"jsonrpc": "2.0", "id": 3, "method": method, "params": {**params, "_meta": META}}
    return httpx.post(url, json=body, headers=headers, timeout=10)


def region_call(region: Any = "us-west1") -> dict[str, Any]:
    return {"name": "test_param_header", "arguments": {"region": region}}


def b64(text: str) -> str:
    return "=?base64?" + base64.b64encode(text.encode()).decode() + "?="


@pytest.mark.parametrize(
    ("method", "params", "drop"),
    [
        ("tools/list", {}, ("mcp-method",)),
        ("tools/call", {"name": "test_simple_text", "arguments": {}}, ("mcp-name",)),
        ("tools/list", {}, ("mcp-protocol-version",)),
    ],
    ids=["no-method", "no-name", "no-version"],
)
def test_a_missing_standard_header_is_a_header_mismatch(
    url: str, method: str, params: dict[str, Any], drop: tuple[str, ...]
) -> None:
    r = post(url, method, params, drop)
    assert r.status_code == 400, r.text
    assert r.json()["error"]["code"] == -32020 and r.json()["id"] == 3


@pytest.mark.parametrize(
    ("region", "header"),
    [
        ("us-west1", "us-west1"),
        ("Hello", b64("Hello")),
        ("Hello, 世界", b64("Hello, 世界")),
        ("=?base64?SGk", "=?base64?SGk"),
    ],
    ids=["plain", "base64", "non-ascii", "literal-sentinel-prefix"],
)
def test_a_matching_param_header_is_accepted(url: str, region: str, header: str) -> None:
    r = post(url, "tools/call", region_call(region), mcp_param_region=header)
    assert r.status_code == 200, r.text
    assert r.json()["result"]["content"][0]["text"] == f"Region: {region}"


@pytest.mark.parametrize(
    ("region", "header"),
    [
        ("us-west1", None),
        ("us-west1", "eu-west1"),
        ("Hello", "=?base64?SGVsbG8?="),
        ("Hello", "=?base64?SGVs!!!bG8=?="),
        ("Hello", "=?base64?/w==?="),
        (None, "us-west1"),
    ],
    ids=["missing", "different", "bad-padding", "bad-characters", "not-utf8", "header-without-value"],
)
def test_a_missing_or_wrong_param_header_is_refused(url: str, region: str | None, header: str | None) -> None:
    call = region_call(region) if region is not None else {"name": "test_param_header", "arguments": {}}
    extra = {"mcp_param_region": header} if header is not None else {}
    r = post(url, "tools/call", call, **extra)
    assert r.status_code == 400, r.text
    assert r.json()["error"]["code"] == -32020


def test_the_runtime_client_mirrors_the_param_header(url: str) -> None:
    async def main() -> None:
        async with connect_http(url, protocol=MODERN) as s:
            await s.list_tools()
            result = await s.call_tool("test_param_header", {"region": " padded, ünïcode "})
            assert result["content"][0]["text"] == "Region:  padded, ünïcode "

    asyncio.run(asyncio.wait_for(main(), 60))
