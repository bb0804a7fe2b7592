"""Cache hints (2026-07-28, SEP-2549): a Server gives each cacheable method the ttlMs/cacheScope
it was configured with, and a ClientSession answers from its bounded cache while they last,
until a list_changed or resources/updated makes an entry stale."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from mcpgen.runtime import CacheHint, RequestContext, Server, connect_memory
from mcpgen.runtime.client.result_cache import MAX_ENTRIES, ResultCache

CALLS: list[str] = []


async def readme(uri: str, ctx: RequestContext) -> dict[str, Any]:
    CALLS.append(uri)
    return {"contents": [{"uri": uri, "text": f"read {len(CALLS)}"}]}


def server(hints: dict[str, CacheHint] | None) -> Server:
    made = Server("cached", "1", cache_hints=hints)
    made.add_tool({"name": "t1", "inputSchema": {"type": "object"}}, lambda a, c: {"content": []})
    made.add_resource({"uri": "test://readme", "name": "readme"}, readme)
    return made


def test_the_server_gives_each_method_its_configured_hint() -> None:
    hints = {"tools/list": CacheHint(ttl_ms=60_000), "resources/read": CacheHint(ttl_ms=5_000, scope="private")}

    async def main() -> tuple[Any, ...]:
        async with connect_memory(server(hints), protocol="2026-07-28", cache_results=False) as session:
            tools = await session.request("tools/list")
            read = await session.read_resource("test://readme")
            resources = await session.request("resources/list")
            return tools, read, resources

    tools, read, resources = asyncio.run(main())
    assert (tools["ttlMs"], tools["cacheScope"]) == (60_000, "public")
    assert (read["ttlMs"], read["cacheScope"]) == (5_000, "private")
    assert (resources["ttlMs"], resources["cacheScope"]) == (0, "public")  # the default: ask again


@pytest.mark.parametrize(
    ("hints", "problem"),
    [
        ({"tools/call": CacheHint(ttl_ms=1)}, "cacheable are"),
        ({"tools/list": {"ttlMs": 1}}, "must be a CacheHint"),
    ],
)
def test_a_hint_for_what_cannot_be_cached_is_refused(hints: dict[str, Any], problem: str) -> None:
    with pytest.raises((ValueError, TypeError), match=problem):
        Server("x", "1", cache_hints=hints)


def test_a_hint_out_of_range_is_refused() -> None:
    with pytest.raises(ValueError, match="ttl_ms must be an integer"):
        CacheHint(ttl_ms=-1)
    with pytest.raises(ValueError, match="scope must be"):
        CacheHint(scope="shared")  # type: ignore[arg-type]


def test_the_client_answers_from_its_cache_until_the_server_says_it_changed() -> None:
    CALLS.clear()

    async def main() -> list[str]:
        hints = {"resources/read": CacheHint(ttl_ms=600_000), "tools/list": CacheHint(ttl_ms=600_000)}
        made = server(hints)
        texts: list[str] = []
        async with connect_memory(made, protocol="2026-07-28") as session:
            for _ in range(3):
                read = await session.read_resource("test://readme")
                texts.append(read["contents"][0]["text"])
            read["contents"].clear()  # what a caller does to its copy never reaches the cache
            texts.append((await session.read_resource("test://readme"))["contents"][0]["text"])
            stream = await session.listen(resource_uris=["test://readme"], tools_list_changed=True)
            queue = session.listen_resource_updates()
            await made.subscriptions.publish("notifications/resources/updated", {"uri": "test://readme"})
            await asyncio.wait_for(queue.get(), 10)
            texts.append((await session.read_resource("test://readme"))["contents"][0]["text"])
            assert len(session.cache) == 1
            await session.list_tools()
            assert len(session.cache) == 2
            session.cache.list_changed("tools")
            assert len(session.cache) == 1
            await stream.aclose()
        return texts

    assert asyncio.run(main()) == ["read 1", "read 1", "read 1", "read 1", "read 2"]


def test_no_hint_no_cache_and_legacy_never_caches() -> None:
    CALLS.clear()

    async def main(protocol: str, hints: dict[str, CacheHint] | None) -> int:
        async with connect_memory(server(hints), protocol=protocol) as session:
            for _ in range(2):
                await session.read_resource("test://readme")
            return len(session.cache)

    assert asyncio.run(main("2026-07-28", None)) == 0 and len(CALLS) == 2
    assert asyncio.run(main("legacy", {"resources/read": CacheHint(ttl_ms=60_000)})) == 0 and len(CALLS) == 4


def test_the_cache_is_bounded() -> None:
    cache = ResultCache()
    for i in range(MAX_ENTRIES + 50):
        key = cache.key("resources/read", {"uri": f"test://{i}"})
        assert key is not None
        cache.put(key, {"ttlMs": 10**12, "contents": []})
    assert len(cache) == MAX_ENTRIES
    first = cache.key("resources/read", {"uri": "test://0"})
    last = cache.key("resources/read", {"uri": f"test://{MAX_ENTRIES + 49}"})
    assert first is not None and last is not None
    assert cache.get(first) is None and cache.get(last) is not None  # the oldest went first
    huge = cache.key("resources/read", {"uri": "test://huge"})
    assert huge is not None
    cache.put(huge, {"ttlMs": 1000, "contents": [{"text": "x" * (2 * 1024 * 1024)}]})
    assert cache.get(huge) is None
    for bad in (True, "60000", -5, None):
        cache.put(huge, {"ttlMs": bad})
        assert cache.get(huge) is None
    assert cache.key("tools/call", {"name": "x"}) is None
