"""mcpgen runtime client <-> mcpgen runtime server (tests/peers/runtime_server.py) over stdio,
in every protocol mode: the pair that generated clients and servers will use together."""

from __future__ import annotations

from typing import Any

import pytest
from rt_support import PY, RUNTIME_SERVER, assert_process_gone, run, text_of, wait_until

from mcpgen.runtime import RequestTimeout, RpcError, connect_stdio

pytestmark = pytest.mark.timeout(120)

MODES = {
    "auto": ("modern", "2026-07-28"),
    "legacy": ("legacy", "2025-11-25"),
    "2026-07-28": ("modern", "2026-07-28"),
    "2025-06-18": ("legacy", "2025-06-18"),
    "2024-11-05": ("legacy", "2024-11-05"),
}


@pytest.mark.parametrize("protocol", list(MODES))
def test_runtime_pair(protocol: str) -> None:
    logs: list[dict[str, Any]] = []
    progress: list[float] = []

    async def main() -> int | None:
        async with connect_stdio(PY, [RUNTIME_SERVER], protocol=protocol, on_log=logs.append) as s:
            assert (s.era, s.protocol_version) == MODES[protocol]
            assert s.server_info["name"] == "runtime-test-server"
            assert s.instructions == "Test peer for mcpgen"
            assert "tools" in s.server_capabilities
            names = [t["name"] for t in await s.list_tools()]
            assert {"echo", "add", "slow", "progress", "log", "crash", "big", "weather"} <= set(names)

            assert text_of(await s.call_tool("echo", {"text": "round trip"})) == "round trip"
            assert (await s.call_tool("add", {"a": 1, "b": 2}))["structuredContent"] == {"result": 3}

            with pytest.raises(RpcError, match=r"^\[-32602\] Unknown tool: no-such-tool$") as info:
                await s.call_tool("no-such-tool", {})
            assert info.value.code == -32602

            bad = await s.call_tool("add", {"a": "one", "b": 2})
            assert bad["isError"] is True

            missing = await s.call_tool("add", {"a": 1})
            assert missing["isError"] is True

            with pytest.raises(RpcError, match=r"^\[-32601\] Method not found: no/such/method$") as info:
                await s.request("no/such/method", {})
            assert info.value.code == -32601

            await s.call_tool("progress", {"steps": 3}, progress=lambda p, t, m: progress.append(p))

            await s.set_logging_level("info")
            await s.call_tool("log", {"message": "pair log"})
            await wait_until(lambda: bool(logs), 5, "the log notification")

            await s.ping()
            with pytest.raises(RequestTimeout, match=r"^tools/call got no response within 0\.5s$"):
                await s.call_tool("slow", {"seconds": 30}, timeout=0.5)
            return s.process_pid

    assert_process_gone(run(main()))
    assert progress == [1, 2, 3]
    assert logs[0]["data"] == "pair log" and logs[0]["level"] == "info"


def test_modern_log_level_filters() -> None:
    """2026-07-28: the level rides in _meta; below it, nothing is sent."""
    logs: list[dict[str, Any]] = []

    async def main() -> None:
        async with connect_stdio(PY, [RUNTIME_SERVER], protocol="2026-07-28", on_log=logs.append) as s:
            await s.set_logging_level("error")
            await s.call_tool("log", {"message": "info is below error"})
            await s.set_logging_level("debug")
            await s.call_tool("log", {"message": "now it passes"})
            await wait_until(lambda: bool(logs), 5, "the second log notification")

    run(main())
    assert [m["data"] for m in logs] == ["now it passes"]
