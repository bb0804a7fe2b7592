"""Interop with reference servers: npm ``@modelcontextprotocol/server-everything`` (TypeScript SDK,
legacy era only) and PyPI ``mcp-server-time``, both spawned over stdio by the runtime client."""

from __future__ import annotations

import asyncio
import json
import shutil
import time
from typing import Any

import pytest
from rt_support import EVERYTHING_JS, PY, assert_process_gone, run, text_of, wait_until
from serving import needs_peer

from mcpgen.runtime import RpcError, connect_stdio

pytestmark = [pytest.mark.timeout(120), pytest.mark.slow]

NODE = shutil.which("node")
needs_everything = needs_peer(NODE is None or not EVERYTHING_JS.exists(), "node or tests/peers/node_modules")
EVERYTHING_ARGS = [str(EVERYTHING_JS), "stdio"]


@needs_everything
@pytest.mark.parametrize("protocol", ["auto", "legacy"])
def test_everything_list_and_call(protocol: str) -> None:
    async def main() -> int | None:
        async with connect_stdio(NODE, EVERYTHING_ARGS, protocol=protocol) as s:  # type: ignore[arg-type]
            # The TypeScript server has no server/discover: "auto" must fall back to initialize.
            assert s.era == "legacy"
            assert s.protocol_version == "2025-11-25"
            assert s.server_info["name"] == "mcp-servers/everything"
            assert s.instructions
            tools = {t["name"]: t for t in await s.list_tools()}
            assert {"echo", "get-sum", "trigger-long-running-operation", "toggle-simulated-logging"} <= set(tools)

            assert text_of(await s.call_tool("echo", {"message": "héllo"})) == "Echo: héllo"
            assert "42" in text_of(await s.call_tool("get-sum", {"a": 40, "b": 2}))

            structured = await s.call_tool("get-structured-content", {"location": "New York"})
            assert isinstance(structured.get("structuredContent"), dict)

            # invalid arguments: the TS SDK answers with a tool error or a -32602; either is fine,
            # but it must come back as a result or an RpcError, not hang or kill the session
            try:
                bad = await s.call_tool("get-sum", {"a": "x"})
                assert bad.get("isError") is True
            except RpcError as e:
                assert e.code == -32602
            assert text_of(await s.call_tool("echo", {"message": "still ok"})) == "Echo: still ok"

            await s.ping()
            assert await s.list_prompts()
            assert await s.list_resources()
            return s.process_pid

    assert_process_gone(run(main()))


@needs_everything
def test_everything_progress() -> None:
    seen: list[tuple[float, float | None, str | None]] = []

    def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total, message))  # a plain (non-async) callback is allowed too

    async def main() -> None:
        async with connect_stdio(NODE, EVERYTHING_ARGS) as s:  # type: ignore[arg-type]
            result = await s.call_tool(
                "trigger-long-running-operation", {"duration": 1, "steps": 4}, progress=on_progress
            )
            assert "Steps: 4" in text_of(result)

    run(main())
    assert [p for p, _, _ in seen] == [1, 2, 3, 4], seen
    assert all(total == 4 for _, total, _ in seen)


@needs_everything
def test_everything_logging_notifications() -> None:
    logs: list[dict[str, Any]] = []

    async def main() -> None:
        async with connect_stdio(NODE, EVERYTHING_ARGS, on_log=logs.append) as s:  # type: ignore[arg-type]
            assert "logging" in s.server_capabilities
            await s.set_logging_level("debug")  # every level passes, so the random level is delivered
            await s.call_tool("toggle-simulated-logging", {})
            await wait_until(lambda: bool(logs), 10, "a simulated log message")
            await s.call_tool("toggle-simulated-logging", {})  # stop the 5 s timer

    run(main())
    assert logs[0]["level"] in {"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}
    assert "message" in str(logs[0]["data"]).lower()


@needs_everything
def test_everything_roots_request_and_list_changed() -> None:
    """With a roots callback the server registers extra tools after `initialized` (a
    tools/list_changed notification), asks us for roots (a server->client request), and
    logs what it got."""
    logs: list[dict[str, Any]] = []
    changed: list[str] = []
    roots_asked = asyncio.Event()

    async def on_roots() -> list[dict[str, Any]]:
        roots_asked.set()
        return [{"uri": "file:///tmp/mcpgen-root", "name": "mcpgen test root"}]

    async def main() -> None:
        async with connect_stdio(
            NODE,  # type: ignore[arg-type]
            EVERYTHING_ARGS,
            on_roots=on_roots,
            on_log=logs.append,
            on_list_changed=changed.append,
        ) as s:
            await asyncio.wait_for(roots_asked.wait(), 10)
            await wait_until(lambda: "tools" in changed, 10, "notifications/tools/list_changed")
            await wait_until(
                lambda: any("Roots updated: 1 root" in str(m.get("data")) for m in logs), 10, "the roots log message"
            )
            names = {t["name"] for t in await s.list_tools()}
            assert "get-roots-list" in names  # registered only for clients that declare roots
            listing = text_of(await s.call_tool("get-roots-list", {}))
            assert "file:///tmp/mcpgen-root" in listing

    run(main())


@needs_everything
def test_everything_sampling_request_routed_to_callback() -> None:
    asked: list[dict[str, Any]] = []

    async def on_sampling(params: dict[str, Any]) -> dict[str, Any]:
        asked.append(params)
        return {"role": "assistant", "content": {"type": "text", "text": "sampled reply"}, "model": "test-model"}

    async def main() -> None:
        changed: list[str] = []
        async with connect_stdio(
            NODE,
            EVERYTHING_ARGS,
            on_sampling=on_sampling,
            on_list_changed=changed.append,  # type: ignore[arg-type]
        ) as s:
            # registered after `initialized`, only for clients that declare sampling
            await wait_until(lambda: "tools" in changed, 10, "notifications/tools/list_changed")
            assert "trigger-sampling-request" in {t["name"] for t in await s.list_tools()}
            result = await s.call_tool("trigger-sampling-request", {"prompt": "say hi", "maxTokens": 10})
            assert "sampled reply" in text_of(result)

    run(main())
    assert len(asked) == 1
    assert "say hi" in asked[0]["messages"][0]["content"]["text"]
    assert asked[0]["maxTokens"] == 10


@needs_everything
def test_everything_elicitation_request_routed_to_callback() -> None:
    asked: list[dict[str, Any]] = []

    async def on_elicitation(params: dict[str, Any]) -> dict[str, Any]:
        asked.append(params)
        return {"action": "decline"}

    async def main() -> None:
        changed: list[str] = []
        async with connect_stdio(
            NODE,
            EVERYTHING_ARGS,
            on_elicitation=on_elicitation,
            on_list_changed=changed.append,  # type: ignore[arg-type]
        ) as s:
            await wait_until(lambda: "tools" in changed, 10, "notifications/tools/list_changed")
            assert "trigger-elicitation-request" in {t["name"] for t in await s.list_tools()}
            result = await s.call_tool("trigger-elicitation-request", {})
            assert "declined" in text_of(result)

    run(main())
    assert len(asked) == 1 and "requestedSchema" in asked[0]


@needs_everything
def test_everything_without_callbacks_hides_conditional_tools() -> None:
    """A client that declares no sampling/elicitation/roots capability gets no tools needing them."""

    async def main() -> None:
        async with connect_stdio(NODE, EVERYTHING_ARGS) as s:  # type: ignore[arg-type]
            names = {t["name"] for t in await s.list_tools()}
            assert not {"trigger-sampling-request", "trigger-elicitation-request", "get-roots-list"} & names

    run(main())


def test_mcp_server_time() -> None:
    async def main() -> int | None:
        async with connect_stdio(PY, ["-m", "mcp_server_time", "--local-timezone", "UTC"]) as s:
            assert s.server_info["name"] == "mcp-time"
            tools = {t["name"]: t for t in await s.list_tools()}
            assert {"get_current_time", "convert_time"} <= set(tools)
            assert "timezone" in tools["get_current_time"]["inputSchema"]["properties"]

            before = time.time()
            result = await s.call_tool("get_current_time", {"timezone": "UTC"})
            assert result.get("isError") in (None, False), result
            payload = result.get("structuredContent") or json.loads(text_of(result))
            assert payload["timezone"] == "UTC"
            assert payload["datetime"][:4] == time.strftime("%Y", time.gmtime(before))
            return s.process_pid

    assert_process_gone(run(main()))
