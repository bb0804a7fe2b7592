"""Change notifications in both eras: resources/subscribe (handshake) and subscriptions/listen
(2026-07-28), with the same user code where the eras allow it.

- runtime client <-> tests/peers/listen_server.py (runtime server) over stdio and Streamable HTTP
- runtime client <-> tests/peers/sdk_listen_server.py (official SDK server, stdio)
- official SDK client <-> runtime HTTP server (Client.listen)
"""

from __future__ import annotations

import asyncio
import warnings
from collections.abc import AsyncIterator, Iterator
from contextlib import AbstractAsyncContextManager
from typing import Any

import pytest
from rt_support import PEERS, PY, run
from serving import serving

from mcpgen.runtime import ClientSession, ConnectionClosed, ProtocolError, connect_http, connect_stdio

pytestmark = pytest.mark.timeout(120)

LISTEN_SERVER = str(PEERS / "listen_server.py")
SDK_LISTEN_SERVER = str(PEERS / "sdk_listen_server.py")
MODERN = "2026-07-28"
WAIT = 5.0


@pytest.fixture(scope="module")
def http_url() -> Iterator[str]:
    with serving([PY, LISTEN_SERVER, "--http", "--port", "{port}"]) as url:
        yield url


def connect(transport: str, protocol: str, url: str) -> AbstractAsyncContextManager[ClientSession]:
    if transport == "http":
        return connect_http(url, protocol=protocol, timeout=10)
    return connect_stdio(PY, [LISTEN_SERVER], protocol=protocol, timeout=10)


async def next_uri(queue: asyncio.Queue[str]) -> str:
    return await asyncio.wait_for(queue.get(), WAIT)


async def subscribe_and_touch(session: ClientSession) -> list[str]:
    """The era-independent user code: subscribe, let a handler update resources, read updates."""
    updates = session.listen_resource_updates()
    await session.subscribe_resource("mem://a")
    await session.call_tool("touch", {"uri": "mem://b"})  # not subscribed: never delivered
    await session.call_tool("touch", {"uri": "mem://a"})
    await session.subscribe_resource("mem://b")
    await session.call_tool("touch", {"uri": "mem://b"})
    got = [await next_uri(updates), await next_uri(updates)]
    await session.unsubscribe_resource("mem://a")
    await session.call_tool("touch", {"uri": "mem://a"})
    await session.call_tool("touch", {"uri": "mem://b"})
    got.append(await next_uri(updates))
    assert updates.empty()
    return got


@pytest.mark.parametrize("transport", ["stdio", "http"])
@pytest.mark.parametrize("protocol", ["legacy", MODERN])
def test_subscribe_resource_works_the_same_in_both_eras(transport: str, protocol: str, http_url: str) -> None:
    async def main() -> None:
        async with connect(transport, protocol, http_url) as session:
            assert session.era == ("modern" if protocol == MODERN else "legacy")
            assert await subscribe_and_touch(session) == ["mem://a", "mem://b", "mem://b"]

    run(main())


async def events(subscription: AsyncIterator[Any], n: int) -> list[tuple[str, str | None]]:
    return [(e.kind, e.uri) for e in [await asyncio.wait_for(subscription.__anext__(), WAIT) for _ in range(n)]]


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_listen_delivers_only_what_was_asked_and_honored(transport: str, http_url: str) -> None:
    async def main() -> None:
        async with connect(transport, MODERN, http_url) as session:
            changes = await session.listen(tools_list_changed=True, resource_uris=["mem://b"])
            assert changes.honored == {"toolsListChanged": True, "resourceSubscriptions": ["mem://b"]}
            # prompts were not asked for (and this server has none); mem://a was not asked for.
            for kind in ("prompts", "resources", "tools"):
                await session.call_tool("change", {"kind": kind})
            await session.call_tool("touch", {"uri": "mem://a"})
            await session.call_tool("touch", {"uri": "mem://b"})
            assert await events(changes, 2) == [("tools", None), ("resource", "mem://b")]
            # The server ends every stream gracefully: iteration stops, no error.
            await session.call_tool("end_streams", {})
            assert [e async for e in changes] == []
            assert changes.closed

    run(main())


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_a_closed_listen_stream_gets_nothing_more(transport: str, http_url: str) -> None:
    async def main() -> None:
        async with connect(transport, MODERN, http_url) as session:
            first = await session.listen(resource_uris=["mem://a"])
            async with await session.listen(resource_uris=["mem://a"]) as second:
                await session.call_tool("touch", {"uri": "mem://a"})
                assert await events(second, 1) == [("resource", "mem://a")]
            await session.call_tool("touch", {"uri": "mem://a"})
            assert await events(first, 2) == [("resource", "mem://a")] * 2
            assert [e async for e in second] == []
            await first.aclose()

    run(main())


def test_listen_in_the_handshake_era_is_a_one_line_error() -> None:
    async def main() -> None:
        async with connect("stdio", "legacy", "") as session:
            with pytest.raises(ProtocolError, match="2026-07-28 method"):
                await session.listen(tools_list_changed=True)

    run(main())


def test_an_open_listen_fails_promptly_when_the_session_closes() -> None:
    async def main() -> None:
        async with connect("stdio", MODERN, "") as session:
            changes = await session.listen(tools_list_changed=True)
        with pytest.raises(ConnectionClosed, match="the session was closed"):
            await asyncio.wait_for(changes.__anext__(), WAIT)

    run(main())


def test_runtime_client_listens_to_the_official_sdk_server() -> None:
    async def main() -> None:
        async with connect_stdio(PY, [SDK_LISTEN_SERVER], protocol=MODERN, timeout=10) as session:
            updates = session.listen_resource_updates()
            await session.subscribe_resource("mem://a")
            await session.call_tool("touch", {"uri": "mem://a"})
            assert await next_uri(updates) == "mem://a"
            async with await session.listen(tools_list_changed=True) as changes:
                assert changes.honored == {"toolsListChanged": True}
                await session.call_tool("change_tools", {})
                assert await events(changes, 1) == [("tools", None)]

    run(main())


def test_official_sdk_client_listens_to_the_runtime_http_server(http_url: str) -> None:
    from mcp.client import Client

    warnings.simplefilter("ignore")

    async def main() -> None:
        async with Client(http_url, mode=MODERN) as client:
            async with client.listen(tools_list_changed=True, resource_subscriptions=["mem://a"]) as sub:
                assert sub.honored.tools_list_changed is True
                assert sub.honored.resource_subscriptions == ["mem://a"]
                await client.call_tool("touch", {"uri": "mem://b"})
                await client.call_tool("touch", {"uri": "mem://a"})
                await client.call_tool("change", {"kind": "tools"})
                seen = []
                async for event in sub:
                    seen.append(type(event).__name__ + ":" + str(getattr(event, "uri", "")))
                    if len(seen) == 2:
                        break
                assert seen == ["ResourceUpdated:mem://a", "ToolsListChanged:"]

    run(main())
