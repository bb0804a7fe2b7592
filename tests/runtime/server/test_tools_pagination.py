"""tools/list paging: one page up to TOOLS_PAGE_SIZE tools, opaque validated cursors beyond."""

from __future__ import annotations

import asyncio
import base64
from typing import Any

import pytest
from memory_transport import pair

from mcpgen.runtime import RpcError, Server, Session
from mcpgen.runtime.client.session import ClientSession
from mcpgen.runtime.server.server import TOOLS_PAGE_SIZE

MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
}


def build(count: int, **options: Any) -> Server:
    server = Server("many", "1.0", **options)

    async def echo(arguments: dict[str, Any], ctx: Any) -> dict[str, Any]:
        return {"content": [{"type": "text", "text": "ok"}]}

    for i in range(count):
        server.add_tool({"name": f"t{i:03d}", "inputSchema": {"type": "object"}}, echo)
    return server


async def client_for(server: Server, era: str) -> Session:
    a, b = pair()
    server.connection(b).session.start()
    client = Session(a)
    client.start()
    if era == "legacy":
        await client.request(
            "initialize",
            {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}},
        )
    return client


def params(era: str, cursor: Any = None) -> dict[str, Any]:
    out: dict[str, Any] = {"_meta": MODERN_META} if era == "modern" else {}
    if cursor is not None:
        out["cursor"] = cursor
    return out


def test_the_default_page_holds_at_least_100_tools() -> None:
    assert TOOLS_PAGE_SIZE >= 100


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_100_tools_come_in_one_page(era: str) -> None:
    async def main() -> None:
        client = await client_for(build(100), era)
        result = await client.request("tools/list", params(era))
        assert [t["name"] for t in result["tools"]] == [f"t{i:03d}" for i in range(100)]
        assert "nextCursor" not in result

    asyncio.run(main())


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_150_tools_come_in_two_pages_with_an_opaque_cursor(era: str) -> None:
    async def main() -> None:
        client = await client_for(build(150), era)
        first = await client.request("tools/list", params(era))
        assert len(first["tools"]) == TOOLS_PAGE_SIZE
        cursor = first["nextCursor"]
        assert isinstance(cursor, str) and not cursor.isdigit()
        second = await client.request("tools/list", params(era, cursor))
        assert "nextCursor" not in second
        names = [t["name"] for t in first["tools"] + second["tools"]]
        assert names == [f"t{i:03d}" for i in range(150)]

    asyncio.run(main())


def test_a_smaller_page_size_pages_through_everything() -> None:
    async def main() -> None:
        client = await client_for(build(150, tools_page_size=40), "legacy")
        names: list[str] = []
        cursor = None
        pages = 0
        while True:
            result = await client.request("tools/list", params("legacy", cursor))
            names += [t["name"] for t in result["tools"]]
            pages += 1
            cursor = result.get("nextCursor")
            if cursor is None:
                break
        assert pages == 4
        assert names == [f"t{i:03d}" for i in range(150)]

    asyncio.run(main())


@pytest.mark.parametrize("protocol", ["legacy", "2026-07-28"])
def test_the_runtime_client_follows_the_pages(protocol: str) -> None:
    async def main() -> None:
        a, b = pair()
        build(250).connection(b).session.start()
        async with ClientSession(a, timeout=10) as client:
            await client.connect(protocol)
            tools = await client.list_tools()
        assert [t["name"] for t in tools] == [f"t{i:03d}" for i in range(250)]

    asyncio.run(main())


def b64(text: str) -> str:
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


@pytest.mark.parametrize(
    "cursor",
    [
        "",
        "100",
        12,
        {"offset": 1},
        "!!!not base64!!!",
        b64("tools:0"),  # never issued: the first page has no cursor
        b64("tools:150"),  # past the end
        b64("tools:-5"),
        b64("tools:0100"),  # not the canonical form of an issued cursor
        b64("prompts:100"),
        b64("tools:100") + "==",  # padded: not what the server sends
        "A" * 200,
    ],
)
@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_invalid_cursors_are_invalid_params(era: str, cursor: Any) -> None:
    async def main() -> None:
        client = await client_for(build(150), era)
        with pytest.raises(RpcError, match=r"^\[-32602\] Invalid cursor$") as caught:
            await client.request("tools/list", params(era, cursor))
        assert caught.value.code == -32602
        # The session carries on.
        assert len((await client.request("tools/list", params(era)))["tools"]) == 100

    asyncio.run(main())


def test_page_size_must_be_positive() -> None:
    with pytest.raises(ValueError, match="tools_page_size must be at least"):
        Server("x", "1", tools_page_size=0)
