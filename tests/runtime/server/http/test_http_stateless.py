"""2026-07-28 requests served by the ASGI app directly (no uvicorn): each is answered in the task
that reads it; what its handler sends first goes out as SSE events, a client that leaves stops the
handler (found by the watch task an app outside serve_http relies on), and a stateless
notification reaches no request, whoever sent it."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from mcpgen.runtime.core import jsonrpc
from mcpgen.runtime.core.protocol import META_CLIENT_CAPABILITIES, META_PROTOCOL_VERSION
from mcpgen.runtime.server.http.app import StreamableHttpApp
from mcpgen.runtime.server.server import RequestContext, Server

MODERN = "2026-07-28"
JSON_AND_SSE = "application/json, text/event-stream"


class Client:
    """One POST: the body, then either a connected client or one that leaves after `leave_after`."""

    def __init__(self, body: bytes, leave_after: float | None = None) -> None:
        self.body: bytes | None = body
        self.leave_after = leave_after
        self.status = 0
        self.headers: dict[str, str] = {}
        self.chunks: list[bytes] = []
        self.ended = asyncio.Event()

    async def receive(self) -> dict[str, Any]:
        if self.body is not None:
            body, self.body = self.body, None
            return {"type": "http.request", "body": body, "more_body": False}
        if self.leave_after is None:
            await asyncio.Event().wait()
        await asyncio.sleep(self.leave_after)
        return {"type": "http.disconnect"}

    async def send(self, message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            self.status = message["status"]
            self.headers = {k.decode(): v.decode() for k, v in message["headers"]}
            return
        self.chunks.append(message.get("body", b""))
        if not message.get("more_body"):
            self.ended.set()


def call(request_id: int, tool: str, arguments: dict[str, Any], meta: dict[str, Any] | None = None) -> bytes:
    params = {
        "name": tool,
        "arguments": arguments,
        "_meta": {META_PROTOCOL_VERSION: MODERN, META_CLIENT_CAPABILITIES: {}, **(meta or {})},
    }
    return jsonrpc.encode({"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params})


async def post(app: StreamableHttpApp, client: Client, *, tool: str = "", accept: str = JSON_AND_SSE) -> None:
    headers = {
        "host": "127.0.0.1:8000",
        "accept": accept,
        "content-type": "application/json",
        "mcp-protocol-version": MODERN,
        "mcp-method": "tools/call" if tool else "notifications/cancelled",
    }
    if tool:
        headers["mcp-name"] = tool
    scope = {
        "type": "http",
        "method": "POST",
        "path": "/mcp",
        "headers": [(k.encode(), v.encode()) for k, v in headers.items()],
    }
    await app(scope, client.receive, client.send)


def server_with(events: list[str], gate: asyncio.Event) -> Server:
    server = Server("t", "1")

    async def slow(arguments: dict[str, Any], ctx: RequestContext) -> dict[str, Any]:
        events.append("started")
        try:
            await gate.wait()
        except asyncio.CancelledError:
            events.append("cancelled")
            raise
        events.append("finished")
        return {"content": [{"type": "text", "text": "done"}]}

    async def steps(arguments: dict[str, Any], ctx: RequestContext) -> dict[str, Any]:
        for step in (1, 2):
            await ctx.report_progress(step, 2)
        return {"content": [{"type": "text", "text": "stepped"}]}

    server.add_tool({"name": "slow", "inputSchema": {"type": "object"}}, slow)
    server.add_tool({"name": "steps", "inputSchema": {"type": "object"}}, steps)
    return server


def events_of(chunks: list[bytes]) -> list[tuple[str, dict[str, Any]]]:
    """(id, message) of each SSE event in a response body."""
    found = []
    for block in b"".join(chunks).decode().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line)
        if "data" in lines:
            found.append((lines.get("id", ""), json.loads(lines["data"])))
    return found


def test_a_client_that_leaves_stops_the_handler_and_gets_nothing() -> None:
    async def main() -> None:
        events: list[str] = []
        app = StreamableHttpApp(server_with(events, asyncio.Event()))
        client = Client(call(1, "slow", {}), leave_after=0.1)
        await asyncio.wait_for(post(app, client, tool="slow"), 5)
        assert events == ["started", "cancelled"]
        assert client.status == 0 and client.chunks == []
        # The cancellation was the request's own business: the task serving it goes on uncancelled.
        current = asyncio.current_task()
        assert current is not None and getattr(current, "cancelling", lambda: 0)() == 0

    asyncio.run(main())


def test_a_quick_answer_is_one_json_body_and_the_task_is_not_left_cancelled() -> None:
    async def main() -> None:
        events: list[str] = []
        gate = asyncio.Event()
        gate.set()
        app = StreamableHttpApp(server_with(events, gate))
        client = Client(call(3, "slow", {}), leave_after=0.01)
        task = asyncio.ensure_future(post(app, client, tool="slow"))
        await asyncio.wait_for(task, 5)
        assert events == ["started", "finished"]
        assert client.status == 200 and client.headers["content-type"] == "application/json"
        reply = json.loads(b"".join(client.chunks))
        assert reply["id"] == 3 and reply["result"]["content"][0]["text"] == "done"
        assert getattr(task, "cancelling", lambda: 0)() == 0

    asyncio.run(main())


def test_progress_goes_out_as_sse_events_before_the_answer() -> None:
    async def main() -> None:
        app = StreamableHttpApp(server_with([], asyncio.Event()))
        client = Client(call(7, "steps", {}, {"progressToken": "p"}))
        await asyncio.wait_for(post(app, client, tool="steps"), 5)
        assert client.status == 200 and client.headers["content-type"] == "text/event-stream"
        sent = events_of(client.chunks)
        assert [event_id for event_id, _ in sent] == ["7-1", "7-2", "7-3"]
        assert [m.get("method") for _, m in sent[:2]] == ["notifications/progress"] * 2
        assert [m["params"]["progress"] for _, m in sent[:2]] == [1, 2]
        assert sent[2][1]["id"] == 7 and sent[2][1]["result"]["content"][0]["text"] == "stepped"

    asyncio.run(main())


def test_a_client_that_takes_json_only_gets_the_answer_alone() -> None:
    async def main() -> None:
        app = StreamableHttpApp(server_with([], asyncio.Event()), json_response=True)
        client = Client(call(8, "steps", {}, {"progressToken": "p"}))
        await asyncio.wait_for(post(app, client, tool="steps", accept="application/json"), 5)
        assert client.status == 200 and client.headers["content-type"] == "application/json"
        reply = json.loads(b"".join(client.chunks))
        assert reply["id"] == 8 and reply["result"]["content"][0]["text"] == "stepped"

    asyncio.run(main())


def test_a_stateless_cancel_reaches_no_running_request() -> None:
    # Request ids are the client's own: another client's notifications/cancelled naming the same id
    # must not stop this one (stateless requests share one connection on the server).
    async def main() -> None:
        events: list[str] = []
        gate = asyncio.Event()
        app = StreamableHttpApp(server_with(events, gate))
        running = Client(call(5, "slow", {}))
        task = asyncio.ensure_future(post(app, running, tool="slow"))
        while events != ["started"]:
            await asyncio.sleep(0.01)
        cancel = {
            "method": "notifications/cancelled",
            "params": {"requestId": 5, "_meta": {META_PROTOCOL_VERSION: MODERN}},
        }
        other = Client(jsonrpc.encode({"jsonrpc": "2.0", **cancel}))
        await asyncio.wait_for(post(app, other), 5)
        assert other.status == 202
        gate.set()
        await asyncio.wait_for(task, 5)
        assert events == ["started", "finished"]
        assert json.loads(b"".join(running.chunks))["result"]["content"][0]["text"] == "done"

    asyncio.run(main())
