"""Interop with the official Python SDK (PyPI ``mcp`` 2.x) over stdio, both directions, both eras.

- mcpgen runtime client  ->  tests/peers/sdk_server.py      (MCPServer)
- official SDK client    ->  tests/peers/runtime_server.py  (mcpgen.runtime.Server)
"""

from __future__ import annotations

import asyncio
import json
import warnings
from pathlib import Path
from typing import Any

import pytest
from rt_support import (
    PY,
    RUNTIME_SERVER,
    SDK_SERVER,
    assert_process_gone,
    read_lines,
    run,
    slow_events,
    text_of,
    wait_until,
)

from mcpgen.runtime import ClientSession, ConnectionClosed, RequestTimeout, connect_stdio

pytestmark = pytest.mark.timeout(120)

EXPECTED_TOOLS = {"echo", "add", "slow", "progress", "log", "crash", "big", "weather"}
# protocol= argument -> (session.era, session.protocol_version) expected against a dual-era server
ERAS = {
    "legacy": ("legacy", "2025-11-25"),
    "2026-07-28": ("modern", "2026-07-28"),
    "auto": ("modern", "2026-07-28"),  # the SDK server answers server/discover, so no fallback
}


# --------------------------------------------------------------------------------------------
# mcpgen runtime client <-> official SDK server
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("protocol", list(ERAS))
def test_runtime_client_lists_and_calls_sdk_server(protocol: str) -> None:
    async def main() -> int | None:
        async with connect_stdio(PY, [SDK_SERVER], protocol=protocol) as s:
            assert isinstance(s, ClientSession)
            assert (s.era, s.protocol_version) == ERAS[protocol]
            assert s.server_info.get("name") == "sdk-test-server"
            assert "tools" in s.server_capabilities
            tools = {t["name"]: t for t in await s.list_tools()}
            assert EXPECTED_TOOLS <= set(tools)
            assert tools["add"]["inputSchema"]["required"] == ["a", "b"]
            assert tools["weather"]["outputSchema"]["properties"]["conditions"]["type"] == "string"

            echoed = await s.call_tool("echo", {"text": 'héllo "wörld"\nline2'})
            assert echoed.get("isError") in (None, False)
            assert text_of(echoed) == 'héllo "wörld"\nline2'

            added = await s.call_tool("add", {"a": 2, "b": 40})
            assert added["structuredContent"] == {"result": 42}

            report = await s.call_tool("weather", {"city": "Oslo"})
            assert report["structuredContent"] == {"city": "Oslo", "temperature_c": 21.5, "conditions": "sunny"}
            assert json.loads(text_of(report)) == report["structuredContent"]  # the SDK mirrors it as text

            # The SDK server reports an unknown tool as a tool error result, not a protocol error.
            unknown = await s.call_tool("no-such-tool", {})
            assert unknown["isError"] is True
            return s.process_pid

    assert_process_gone(run(main()))


@pytest.mark.parametrize("protocol", list(ERAS))
def test_runtime_client_progress_from_sdk_server(protocol: str) -> None:
    seen: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total, message))

    async def main() -> None:
        async with connect_stdio(PY, [SDK_SERVER], protocol=protocol) as s:
            result = await s.call_tool("progress", {"steps": 4}, progress=on_progress)
            assert text_of(result) == "done 4"

    run(main())
    assert [p for p, _, _ in seen] == [1, 2, 3, 4], seen
    assert all(total == 4 for _, total, _ in seen)
    assert seen[-1][2] == "step 4"


@pytest.mark.parametrize("protocol", list(ERAS))
def test_runtime_client_receives_sdk_server_log(protocol: str) -> None:
    logs: list[dict[str, Any]] = []

    async def main() -> None:
        async with connect_stdio(PY, [SDK_SERVER], protocol=protocol, on_log=logs.append) as s:
            # Modern (2026-07-28): the level must ride in every request's _meta
            # (io.modelcontextprotocol/logLevel) or the SDK server sends no log at all. Legacy:
            # logging/setLevel, but the SDK's MCPServer does not declare `logging` (its setLevel
            # answers -32601) and sends every level unasked.
            if s.era == "modern" or "logging" in s.server_capabilities:
                await s.set_logging_level("debug")
            await s.call_tool("log", {"message": "hello from the tool"})
            await wait_until(lambda: bool(logs), 5, "notifications/message from the log tool")

    run(main())
    assert logs[0]["level"] == "info"
    assert logs[0]["data"] == "hello from the tool"
    assert logs[0].get("logger") == "test"


@pytest.mark.parametrize("protocol", ["legacy", "2026-07-28"])
def test_runtime_client_timeout_cancels_sdk_handler(protocol: str, tmp_path: Path) -> None:
    cancel_log = tmp_path / "cancelled.txt"

    async def main() -> None:
        async with connect_stdio(PY, [SDK_SERVER, "--cancel-log", str(cancel_log)], protocol=protocol) as s:
            with pytest.raises(RequestTimeout, match=r"^tools/call got no response within 1s$"):
                await s.call_tool("slow", {"seconds": 30}, timeout=1.0)
            # notifications/cancelled reached the server, which cancelled the handler
            await wait_until(
                lambda: bool(slow_events(cancel_log, "cancelled")), 10, "the SDK server to record the cancellation"
            )
            # the session is still usable afterwards
            assert text_of(await s.call_tool("echo", {"text": "still here"})) == "still here"

    run(main())


def test_runtime_client_task_cancellation_cancels_sdk_handler(tmp_path: Path) -> None:
    cancel_log = tmp_path / "cancelled.txt"

    async def main() -> None:
        async with connect_stdio(PY, [SDK_SERVER, "--cancel-log", str(cancel_log)], protocol="legacy") as s:
            task = asyncio.ensure_future(s.call_tool("slow", {"seconds": 30}))
            await wait_until(lambda: bool(slow_events(cancel_log, "started")), 10, "slow to start on the server")
            task.cancel()
            with pytest.raises(asyncio.CancelledError, match=r"^$"):
                await task
            await wait_until(
                lambda: bool(slow_events(cancel_log, "cancelled")), 10, "the SDK server to record the cancellation"
            )
            assert text_of(await s.call_tool("echo", {"text": "after cancel"})) == "after cancel"

    run(main())


def test_runtime_client_ping_and_wire_log(tmp_path: Path) -> None:
    wire = tmp_path / "wire.jsonl"

    async def main() -> None:
        async with connect_stdio(PY, [SDK_SERVER], protocol="legacy", wire_log=str(wire)) as s:
            await s.ping()
            await s.call_tool("echo", {"text": "wired"})

    run(main())
    lines = read_lines(wire)
    entries = [json.loads(line) for line in lines]  # one JSON object per line
    assert all(isinstance(e, dict) for e in entries)
    blob = "\n".join(lines)
    for needle in ("initialize", "notifications/initialized", "ping", "tools/call", "wired"):
        assert needle in blob, f"{needle!r} missing from the wire log"


def test_runtime_client_sdk_server_crash_mid_call() -> None:
    async def main() -> int | None:
        async with connect_stdio(PY, [SDK_SERVER], protocol="auto") as s:
            with pytest.raises(ConnectionClosed, match=r"^server '.+' (closed its stdout|exited with code -?\d+)"):
                await s.call_tool("crash", {}, timeout=30)
            with pytest.raises(ConnectionClosed, match=r"^server '.+' (closed its stdout|exited with code -?\d+)"):
                await s.call_tool("echo", {"text": "after crash"}, timeout=30)
            return s.process_pid

    assert_process_gone(run(main()))


def test_runtime_client_big_result_from_sdk_server() -> None:
    async def main() -> None:
        async with connect_stdio(PY, [SDK_SERVER], protocol="legacy") as s:
            result = await s.call_tool("big", {"mb": 20}, timeout=60)
            assert len(text_of(result)) == 20 * 1024 * 1024

    run(main(), timeout=90)


# --------------------------------------------------------------------------------------------
# official SDK client <-> mcpgen runtime server
# --------------------------------------------------------------------------------------------

SDK_MODES = {"legacy": "2025-11-25", "2026-07-28": "2026-07-28", "auto": "2026-07-28"}


def _sdk_client(mode: str, *args: str, **kw: Any) -> Any:
    from mcp.client import Client
    from mcp.client.stdio import StdioServerParameters

    warnings.simplefilter("ignore")  # the SDK flags logging as deprecated at 2026-07-28
    params = StdioServerParameters(command=PY, args=[RUNTIME_SERVER, *args])
    return Client(params, mode=mode, **kw)


@pytest.mark.parametrize("mode", list(SDK_MODES))
def test_sdk_client_lists_and_calls_runtime_server(mode: str) -> None:
    from mcp.shared.exceptions import MCPError

    async def main() -> None:
        async with _sdk_client(mode) as c:
            assert c.protocol_version == SDK_MODES[mode]
            if mode == "legacy" or c.server_info is not None:
                assert c.server_info.name == "runtime-test-server"
            if mode != "2026-07-28":  # a pinned mode adopts a synthesized DiscoverResult, no probe
                assert c.server_capabilities.tools is not None
            listed = await c.list_tools()
            tools = {t.name: t for t in listed.tools}
            assert EXPECTED_TOOLS <= set(tools)
            assert tools["weather"].output_schema is not None

            r = await c.call_tool("echo", {"text": "ünïcode\nand newline"})
            assert not r.is_error
            assert r.content[0].text == "ünïcode\nand newline"

            r = await c.call_tool("add", {"a": 20, "b": 22})
            assert r.structured_content == {"result": 42}

            # The SDK client validates structured content against the listed outputSchema.
            r = await c.call_tool("weather", {"city": "Lima"})
            assert r.structured_content == {"city": "Lima", "temperature_c": 21.5, "conditions": "sunny"}

            # Unknown tool: a protocol error (-32602), per the spec's tools page.
            with pytest.raises(MCPError, match="Unknown tool: no-such-tool") as info:
                await c.call_tool("no-such-tool", {})
            assert info.value.code == -32602

            # Arguments that fail inputSchema: a tool execution error (isError), not a protocol error (SEP-1303).
            r = await c.call_tool("add", {"a": "not a number", "b": 1})
            assert r.is_error

    run(main())


@pytest.mark.parametrize("mode", list(SDK_MODES))
def test_sdk_client_progress_from_runtime_server(mode: str) -> None:
    seen: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total, message))

    async def main() -> None:
        async with _sdk_client(mode) as c:
            r = await c.call_tool("progress", {"steps": 3}, progress_callback=on_progress)
            assert r.content[0].text == "done 3"

    run(main())
    assert seen == [(1, 3, "step 1"), (2, 3, "step 2"), (3, 3, "step 3")]


@pytest.mark.parametrize("mode", list(SDK_MODES))
def test_sdk_client_receives_runtime_server_log(mode: str) -> None:
    logs: list[Any] = []

    async def on_log(params: Any) -> None:
        logs.append(params)

    async def main() -> None:
        # log_level stamps io.modelcontextprotocol/logLevel on modern requests; legacy uses setLevel.
        async with _sdk_client(mode, logging_callback=on_log, log_level="debug") as c:
            if c.protocol_version == "2025-11-25":
                await c.set_logging_level("debug")
            await c.call_tool("log", {"message": "runtime says hi"})
            await wait_until(lambda: bool(logs), 5, "notifications/message from the runtime server")

    run(main())
    assert logs[0].level == "info"
    assert logs[0].data == "runtime says hi"
    assert logs[0].logger == "test"


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
def test_sdk_client_timeout_cancels_runtime_handler(mode: str, tmp_path: Path) -> None:
    from mcp.shared.exceptions import MCPError

    cancel_log = tmp_path / "cancelled.txt"

    async def main() -> None:
        async with _sdk_client(mode, "--cancel-log", str(cancel_log)) as c:
            with pytest.raises(MCPError, match=r"^Request 'tools/call' timed out$"):
                await c.call_tool("slow", {"seconds": 30}, read_timeout_seconds=1)
            await wait_until(
                lambda: bool(slow_events(cancel_log, "cancelled")), 10, "the runtime server to record the cancellation"
            )
            r = await c.call_tool("echo", {"text": "still alive"})
            assert r.content[0].text == "still alive"

    run(main())


def test_sdk_client_ping_runtime_server() -> None:
    from mcp import types

    async def main() -> None:
        async with _sdk_client("legacy") as c:
            # An error answer would raise; the SDK parses a success into an EmptyResult.
            assert isinstance(await c.send_ping(), types.EmptyResult)
            r = await c.call_tool("echo", {"text": "after ping"})
            assert r.content[0].text == "after ping"  # type: ignore[union-attr]

    run(main())
