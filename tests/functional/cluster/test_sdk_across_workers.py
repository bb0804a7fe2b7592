"""The official SDK client (and the runtime's) against two workers sharing a real Redis behind
a real nginx doing plain round-robin: consecutive requests of one session land on different
workers, so every piece of session state (the handshake, server->client requests and their
answers, progress streams, request state, subscriptions) must travel through the store."""

from __future__ import annotations

import asyncio
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mcpgen.runtime import connect_http
from tests.cluster import Cluster, RedisServer, cluster, needs_nginx, needs_redis

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180), needs_redis, needs_nginx]

REPO = Path(__file__).resolve().parents[3]
CONFORMANCE_SERVER = REPO / "examples/conformance/server.py"
LISTEN_SERVER = REPO / "tests/peers/listen_server.py"
SIMPLE = "This is a simple text response for testing."


@pytest.fixture(scope="module")
def redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    server = RedisServer(tmp_path_factory.mktemp("redis")).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def conformance(redis: RedisServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    argv = [sys.executable, str(CONFORMANCE_SERVER), "--port", "{port}", "--store", redis.url]
    with cluster(tmp_path_factory.mktemp("conformance"), argv) as running:
        yield running


@pytest.fixture(scope="module")
def listening(redis: RedisServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    argv = [sys.executable, str(LISTEN_SERVER), "--http", "--port", "{port}", "--store", redis.url]
    with cluster(tmp_path_factory.mktemp("listen"), argv) as running:
        yield running


def text_of(result: Any) -> str:
    return str(result.content[0].text)


async def elicit(ctx: Any, params: Any) -> Any:
    import mcp.types as types

    return types.ElicitResult(action="accept", content={"username": "ada", "email": "ada@example.com"})


def test_sdk_client_handshake_session_across_two_workers(conformance: Cluster) -> None:
    from mcp.client import Client

    warnings.simplefilter("ignore")
    progress: list[float] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append(value)

    async def main() -> None:
        async with Client(conformance.url, mode="legacy", elicitation_callback=elicit) as client:
            assert client.protocol_version == "2025-11-25"
            listed = await client.list_tools()
            assert "test_elicitation" in {tool.name for tool in listed.tools}
            for _ in range(50):
                assert text_of(await client.call_tool("test_simple_text", {})) == SIMPLE
            # The server asks on the stream of one worker; the answer's POST lands on the other.
            for _ in range(2):
                elicited = await client.call_tool("test_elicitation", {"message": "Who are you?"})
                assert "ada@example.com" in text_of(elicited)
            done = await client.call_tool("test_tool_with_progress", {}, progress_callback=on_progress)
            assert text_of(done) == "Tool with progress executed successfully"

    asyncio.run(asyncio.wait_for(main(), 120))
    assert progress == [0, 50, 100]
    conformance.assert_alive()


def test_sdk_client_modern_session_across_two_workers(conformance: Cluster) -> None:
    from mcp.client import Client

    warnings.simplefilter("ignore")

    async def main() -> None:
        async with Client(conformance.url, mode="2026-07-28", elicitation_callback=elicit) as client:
            for _ in range(20):
                assert text_of(await client.call_tool("test_simple_text", {})) == SIMPLE
            # input_required, then the retry (with the signed requestState) on the other worker
            for _ in range(2):
                elicited = await client.call_tool("test_elicitation", {"message": "Who are you?"})
                assert "ada@example.com" in text_of(elicited)

    asyncio.run(asyncio.wait_for(main(), 120))
    conformance.assert_alive()


def test_runtime_client_handshake_session_across_two_workers(conformance: Cluster) -> None:
    asked: list[str] = []

    async def on_elicitation(params: dict[str, Any]) -> dict[str, Any]:
        asked.append(params["message"])
        return {"action": "accept", "content": {"username": "grace", "email": "grace@example.com"}}

    async def main() -> None:
        async with connect_http(conformance.url, protocol="2025-11-25", on_elicitation=on_elicitation) as session:
            for _ in range(10):
                result = await session.call_tool("test_simple_text", {})
                assert result["content"][0]["text"] == SIMPLE
            elicited = await session.call_tool("test_elicitation", {"message": "And you?"})
            assert "grace@example.com" in elicited["content"][0]["text"]

    asyncio.run(asyncio.wait_for(main(), 120))
    assert asked == ["And you?"]


def test_sdk_listen_stream_hears_updates_raised_on_either_worker(listening: Cluster) -> None:
    from mcp.client import Client

    warnings.simplefilter("ignore")

    async def main() -> tuple[set[str], list[str]]:
        async with Client(listening.url, mode="2026-07-28") as client:
            async with client.listen(resource_subscriptions=["mem://a"]) as stream:
                events = aiter(stream)
                pids: set[str] = set()
                seen: list[str] = []
                # Round-robin sends consecutive calls to alternate workers: some of these updates
                # are raised by the worker that does not hold the listen stream. Each is read
                # before the next is raised (unread updates of one URI may be coalesced).
                for _ in range(4):
                    pids.add(text_of(await client.call_tool("nap", {"seconds": 0, "uri": "mem://a"})))
                    event = await asyncio.wait_for(anext(events), 10)
                    seen.append(str(getattr(event, "uri", "")))
                return pids, seen

    pids, seen = asyncio.run(asyncio.wait_for(main(), 60))
    assert len(pids) == 2, pids  # both workers raised updates
    assert seen == ["mem://a"] * 4
    listening.assert_alive()
