"""Task status notifications across workers: a listen stream held by one worker hears the
status changes of a task another worker runs (both apps on one real Redis, its pub/sub relaying
`notifications/tasks`), the completed one with its result inlined."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from mcpgen.runtime.core import jsonrpc
from mcpgen.runtime.core.protocol import EXTENSION_TASKS, META_CLIENT_CAPABILITIES, META_PROTOCOL_VERSION
from mcpgen.runtime.server.http.app import StreamableHttpApp
from mcpgen.runtime.server.server import RequestContext, Server
from mcpgen.runtime.server.store import open_store
from tests.cluster import needs_redis
from tests.security._asgi import post
from tests.stores import redis_url

__all__ = ["redis_url"]  # the fixture this module uses

pytestmark = [pytest.mark.slow, needs_redis]
MODERN = "2026-07-28"
META = {META_PROTOCOL_VERSION: MODERN, META_CLIENT_CAPABILITIES: {"extensions": {EXTENSION_TASKS: {}}}}


def worker(url: str, gate: asyncio.Event) -> StreamableHttpApp:
    server = Server("relayed", "1")

    async def gated(arguments: dict[str, Any], ctx: RequestContext) -> dict[str, Any]:
        await gate.wait()
        return {"content": [{"type": "text", "text": "relayed"}]}

    definition = {"name": "gated", "inputSchema": {"type": "object"}, "execution": {"taskSupport": "required"}}
    server.add_tool(definition, gated)
    return StreamableHttpApp(server, store=open_store(url))


def request(request_id: int, method: str, params: dict[str, Any]) -> tuple[bytes, dict[str, str]]:
    body = jsonrpc.encode({"jsonrpc": "2.0", "id": request_id, "method": method, "params": {**params, "_meta": META}})
    headers = {"mcp-protocol-version": MODERN, "mcp-method": method}
    if method == "tools/call":
        headers["mcp-name"] = params["name"]
    return body, headers


def frames(body: bytes) -> list[dict[str, Any]]:
    """The JSON-RPC messages of an SSE body (or of a plain JSON one)."""
    text = body.decode()
    if text.lstrip().startswith("{"):
        return [json.loads(text)]
    return [json.loads(line[5:]) for line in text.splitlines() if line.startswith("data:") and line[5:].strip()]


def test_a_listen_stream_on_one_worker_hears_a_task_another_worker_runs(redis_url: str) -> None:
    async def main() -> None:
        gate = asyncio.Event()
        running, listening = worker(redis_url, gate), worker(redis_url, gate)
        try:
            await relayed(running, listening, gate)
        finally:
            await running.store.close()
            await listening.store.close()

    asyncio.run(asyncio.wait_for(main(), 60))


async def relayed(running: StreamableHttpApp, listening: StreamableHttpApp, gate: asyncio.Event) -> None:
    """A task started on `running`, heard completing on a listen stream of `listening`."""
    body, headers = request(1, "tools/call", {"name": "gated", "arguments": {}})
    created = await post(running, body, headers=headers)
    task_id = frames(created.reply.body)[-1]["result"]["taskId"]
    body, headers = request(2, "subscriptions/listen", {"notifications": {"taskIds": [task_id]}})
    stream = await post(listening, body, headers=headers, wait=False)
    while not any(f.get("method", "").endswith("acknowledged") for f in frames(stream.reply.body)):
        await asyncio.sleep(0.02)
    acked = [f for f in frames(stream.reply.body) if f.get("method", "").endswith("acknowledged")][0]
    assert acked["params"]["notifications"] == {"taskIds": [task_id]}
    gate.set()
    while not any(f.get("method") == "notifications/tasks" for f in frames(stream.reply.body)):
        await asyncio.sleep(0.02)
    note = [f for f in frames(stream.reply.body) if f.get("method") == "notifications/tasks"][-1]
    assert note["params"]["taskId"] == task_id and note["params"]["status"] == "completed"
    assert note["params"]["result"]["content"][0]["text"] == "relayed"
