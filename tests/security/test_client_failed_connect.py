"""A connect that fails, however it fails, leaves no task behind: no "Task was destroyed but it
is pending" at exit (issue 34, minor). A real peer on 127.0.0.1 that breaks the handshake in
several ways; every HTTP client path (lean, httpx via auth=)."""

from __future__ import annotations

import asyncio
import gc
import json
import logging
from typing import Any

import pytest

from mcpgen.runtime import McpError, connect_http
from mcpgen.runtime.client.auth.provider import BearerToken

from ._inproc import canned_peer

pytestmark = pytest.mark.timeout(60)


class _Token:
    async def token(self) -> str | None:
        return "t"


def _initialize_answer(result: Any) -> Any:
    def answer(message: dict[str, Any]) -> tuple[int, dict[str, str], bytes]:
        body = json.dumps({"jsonrpc": "2.0", "id": message.get("id"), "result": result}).encode()
        return 200, {"content-type": "application/json"}, body

    return answer


FAILURES = {
    "unknown-version": {"protocolVersion": "1999-01-01", "capabilities": {}, "serverInfo": {"name": "x"}},
    "not-an-object": [1, 2, 3],
    "no-version": {"capabilities": {}},
}


@pytest.mark.parametrize("via", ["lean", "httpx"])
@pytest.mark.parametrize("failure", list(FAILURES))
def test_a_failed_connect_leaves_no_task_pending(via: str, failure: str, caplog: pytest.LogCaptureFixture) -> None:
    destroyed: list[str] = []

    async def main() -> tuple[int, int]:
        loop = asyncio.get_running_loop()
        loop.set_exception_handler(lambda _loop, context: destroyed.append(str(context.get("message"))))
        baseline = len(asyncio.all_tasks())
        extra: dict[str, Any] = {"auth": BearerToken(_Token())} if via == "httpx" else {}
        async with canned_peer(_initialize_answer(FAILURES[failure])) as base:
            with pytest.raises(McpError, match=r"."):
                async with connect_http(base + "/mcp", transport="streamable", timeout=10, **extra):
                    pass
        await asyncio.sleep(0)
        return baseline, len(asyncio.all_tasks())

    with caplog.at_level(logging.ERROR, logger="asyncio"):
        baseline, after = asyncio.run(main())
        gc.collect()
    assert after <= baseline, f"{after - baseline} tasks left behind"
    messages = destroyed + [r.getMessage() for r in caplog.records if r.name == "asyncio"]
    assert [m for m in messages if "destroyed" in m] == []
