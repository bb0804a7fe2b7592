"""The in-memory transport: a ClientSession and a Server in one event loop, both eras."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from mcpgen.runtime import ConnectionClosed, RequestContext, Server, connect_memory
from mcpgen.runtime.core.protocol import ERA_LEGACY, ERA_MODERN
from mcpgen.runtime.transports.memory import MemoryLink, memory_pair

SEEN: list[dict[str, Any]] = []


async def echo(arguments: dict[str, Any], ctx: RequestContext) -> dict[str, Any]:
    SEEN.append(arguments)
    return {"content": [{"type": "text", "text": arguments["text"]}], "structuredContent": {"list": [1]}}


def server() -> Server:
    made = Server("memory", "1")
    made.add_tool({"name": "echo", "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}}}, echo)
    return made


@pytest.mark.parametrize(("protocol", "era"), [("auto", ERA_MODERN), ("legacy", ERA_LEGACY)])
def test_a_session_talks_to_a_server_in_either_era(protocol: str, era: str) -> None:
    async def main() -> tuple[str, list[str], dict[str, Any]]:
        async with connect_memory(server(), protocol=protocol) as session:
            tools = await session.list_tools()
            result = await session.call_tool("echo", {"text": "hi"})
            return session.era, [t["name"] for t in tools], result

    got_era, names, result = asyncio.run(main())
    assert got_era == era
    assert names == ["echo"]
    assert result["content"] == [{"type": "text", "text": "hi"}]


def test_messages_cross_as_json_so_nothing_is_shared() -> None:
    SEEN.clear()

    async def main() -> None:
        async with connect_memory(server()) as session:
            arguments = {"text": "x"}
            first = await session.call_tool("echo", arguments)
            first["structuredContent"]["list"].append(2)
            second = await session.call_tool("echo", arguments)
            assert second["structuredContent"] == {"list": [1]}
            assert SEEN[0] is not arguments

    asyncio.run(main())


def test_closing_the_client_ends_the_server_connection_and_sends_fail() -> None:
    async def main() -> None:
        link = MemoryLink(server())
        connection = link._connection
        await link.close()
        await asyncio.wait_for(connection.session.wait_closed(), 2)
        with pytest.raises(ConnectionClosed, match="in-memory client closed"):
            await link.client.send({"jsonrpc": "2.0", "method": "ping", "id": 1})

    asyncio.run(main())


def test_a_closed_peer_refuses_sends_and_the_reader_sees_the_end() -> None:
    async def main() -> None:
        client, served = memory_pair()
        await served.close()
        with pytest.raises(ConnectionClosed, match="the in-memory client closed"):
            await client.send({"jsonrpc": "2.0", "method": "ping", "id": 1})
        assert await client.receive() is None

    asyncio.run(main())
