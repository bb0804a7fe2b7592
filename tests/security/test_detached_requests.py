"""In a handshake-era session, a request whose client disconnected mid-stream runs on, logged,
so that the client can resume it (GET + Last-Event-ID, on any worker). That must not become a
way to pile up running handlers: past MAX_DETACHED_REQUESTS per worker, a disconnect cancels
the request as it does outside a session."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from mcpgen.runtime.server.http import resumption
from mcpgen.runtime.server.http.app import StreamableHttpApp
from mcpgen.runtime.server.server import RequestContext, Server

from ._asgi import ACCEPT, app, open_session, rpc

CAP = 4


class Streaming:
    """A tool that sends one progress event (so its answer is an SSE stream), then waits."""

    def __init__(self) -> None:
        self.running = 0
        self.gate = asyncio.Event()

    def server(self) -> Server:
        server = Server("t", "1")

        async def hold(arguments: dict[str, Any], ctx: RequestContext) -> dict[str, Any]:
            self.running += 1
            try:
                await ctx.report_progress(1, 2)
                await self.gate.wait()
                return {"content": [{"type": "text", "text": "done"}]}
            finally:
                self.running -= 1

        server.add_tool({"name": "hold", "inputSchema": {"type": "object"}}, hold)
        return server


async def call_and_leave(target: StreamableHttpApp, session: str, request_id: int) -> None:
    """POST a streamed call, read its first event, then disconnect."""
    body = rpc(request_id, "tools/call", {"name": "hold", "arguments": {}, "_meta": {"progressToken": request_id}})
    first_event = asyncio.Event()
    sent_body = False

    async def receive() -> dict[str, Any]:
        nonlocal sent_body
        if not sent_body:
            sent_body = True
            return {"type": "http.request", "body": body, "more_body": False}
        await first_event.wait()
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.body" and message.get("body"):
            first_event.set()

    headers = {
        "host": "127.0.0.1:8000",
        "accept": ACCEPT,
        "content-type": "application/json",
        "content-length": str(len(body)),
        "mcp-session-id": session,
        "mcp-protocol-version": "2025-11-25",
    }
    scope = {
        "type": "http",
        "method": "POST",
        "path": "/mcp",
        "headers": [(k.encode(), v.encode()) for k, v in headers.items()],
    }
    asyncio.ensure_future(target(scope, receive, send))
    await asyncio.wait_for(first_event.wait(), 10)


def test_requests_left_by_their_clients_are_capped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(resumption, "MAX_DETACHED_REQUESTS", CAP)
    asyncio.run(asyncio.wait_for(leave_many(), 30))


async def leave_many() -> None:
    tool = Streaming()
    target = app(tool.server())
    session = await open_session(target)
    for request_id in range(10, 10 + 3 * CAP):
        await call_and_leave(target, session, request_id)
    # The disconnects are seen (later on a loaded machine: waited for, up to a deadline); the
    # requests past the cap are cancelled, so the count falls from 3 * CAP to CAP and stays.
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 20
    while tool.running != CAP or target.logs.detached != CAP:
        assert loop.time() < deadline, (tool.running, target.logs.detached)
        await asyncio.sleep(0.05)
    assert tool.running == CAP
    tool.gate.set()  # the detached ones finish (into their logs) and give their places back
    deadline = loop.time() + 20
    while (tool.running or target.logs.detached) and loop.time() < deadline:
        await asyncio.sleep(0.05)
    assert (tool.running, target.logs.detached) == (0, 0)
