"""The Tasks ownership rule over Streamable HTTP in the handshake era: a task belongs to the
`Mcp-Session-Id` that created it, on every worker (two apps sharing one store), and another
session gets exactly the unknown-task error for it (task_owner.py; sessions.py gives a session's
connection its key on whichever worker restores it)."""

from __future__ import annotations

import asyncio
from typing import Any

from mcpgen.runtime.core.protocol import EXTENSION_TASKS
from mcpgen.runtime.server.http.app import StreamableHttpApp
from mcpgen.runtime.server.server import RequestContext, Server
from mcpgen.runtime.server.store import MemoryStore
from tests.security._asgi import post, rpc, sync

VERSION = "2025-11-25"
HELLO = {"protocolVersion": VERSION, "capabilities": {"extensions": {EXTENSION_TASKS: {}}}, "clientInfo": {"name": "t"}}


def worker(store: MemoryStore) -> StreamableHttpApp:
    server = Server("owned", "1")

    async def forever(arguments: dict[str, Any], ctx: RequestContext) -> dict[str, Any]:
        await asyncio.Event().wait()
        return {"content": []}

    definition = {"name": "forever", "inputSchema": {"type": "object"}, "execution": {"taskSupport": "required"}}
    server.add_tool(definition, forever)
    return StreamableHttpApp(server, json_response=True, store=store)


async def call(app: StreamableHttpApp, session: str, request_id: int, method: str, params: dict[str, Any]) -> Any:
    """The JSON-RPC answer, with the HTTP status under "status" (an oracle could hide there too)."""
    headers = {"mcp-session-id": session, "mcp-protocol-version": VERSION}
    exchange = await post(app, rpc(request_id, method, params), headers=headers)
    return {**exchange.reply.json(), "status": exchange.reply.status}


async def open_session(app: StreamableHttpApp) -> str:
    exchange = await post(app, rpc(1, "initialize", HELLO))
    assert exchange.reply.status == 200, exchange.reply.body
    return exchange.reply.headers["mcp-session-id"]


@sync
async def test_a_sessions_task_is_unknown_to_another_session_on_every_worker() -> None:
    store = MemoryStore()
    first, second = worker(store), worker(store)
    mine, theirs = await open_session(first), await open_session(second)
    created = await call(first, mine, 2, "tools/call", {"name": "forever", "arguments": {}})
    task_id = created["result"]["taskId"]
    for app in (first, second):
        # The owner session reaches it through either worker.
        got = await call(app, mine, 3, "tasks/get", {"taskId": task_id})
        assert got["result"]["status"] == "working", got
        for method in ("tasks/get", "tasks/update", "tasks/cancel"):
            params: dict[str, Any] = {"taskId": task_id, "inputResponses": {}}
            refused = await call(app, theirs, 4, method, params)
            unknown = await call(app, theirs, 4, method, {**params, "taskId": "n" * len(task_id)})
            assert refused["error"]["code"] == -32602 and refused["status"] == unknown["status"]
            assert refused["error"]["message"].replace(task_id, "n" * len(task_id)) == unknown["error"]["message"]
    assert await store.task_inbox(task_id) == []
    await call(second, mine, 5, "tasks/cancel", {"taskId": task_id})
