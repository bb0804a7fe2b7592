"""Tasks over Streamable HTTP exist in the 2026-07-28 era only (tasks.py `tasks_refusal`): a
handshake-era session that names the extension at initialize is not offered it, its call of a
tool that runs only as a task is refused with the reason, and tasks/* answers it "Method not
found" on every worker, for a live task's id exactly as for one that never was (no oracle). The
2026-07-28 client that created the task still reaches it through either worker."""

from __future__ import annotations

import asyncio
from typing import Any

from mcpgen.runtime.core.jsonrpc import METHOD_NOT_FOUND, MISSING_CLIENT_CAPABILITY
from mcpgen.runtime.core.protocol import EXTENSION_TASKS, META_CLIENT_CAPABILITIES, META_PROTOCOL_VERSION
from mcpgen.runtime.server.http.app import StreamableHttpApp
from mcpgen.runtime.server.server import RequestContext, Server
from mcpgen.runtime.server.store import MemoryStore
from tests.security._asgi import post, rpc, sync

HANDSHAKE = "2025-11-25"
MODERN = "2026-07-28"
TASKS_CAPS = {"extensions": {EXTENSION_TASKS: {}}}
HELLO = {"protocolVersion": HANDSHAKE, "capabilities": TASKS_CAPS, "clientInfo": {"name": "t"}}
TASK_METHODS = ("tasks/get", "tasks/update", "tasks/cancel")


def worker(store: MemoryStore) -> StreamableHttpApp:
    server = Server("owned", "1")

    async def forever(arguments: dict[str, Any], ctx: RequestContext) -> dict[str, Any]:
        await asyncio.Event().wait()
        return {"content": []}

    definition = {"name": "forever", "inputSchema": {"type": "object"}, "execution": {"taskSupport": "required"}}
    server.add_tool(definition, forever)
    return StreamableHttpApp(server, json_response=True, store=store)


def _params(method: str, params: dict[str, Any]) -> dict[str, Any]:
    params = {**params}
    if method == "tasks/update":
        params["inputResponses"] = {}
    return params


async def handshake(app: StreamableHttpApp, session: str, method: str, params: dict[str, Any]) -> Any:
    """The JSON-RPC answer, with the HTTP status under "status" (an oracle could hide there too)."""
    headers = {"mcp-session-id": session, "mcp-protocol-version": HANDSHAKE}
    exchange = await post(app, rpc(7, method, _params(method, params)), headers=headers)
    return {**exchange.reply.json(), "status": exchange.reply.status}


async def modern(app: StreamableHttpApp, method: str, params: dict[str, Any]) -> Any:
    meta = {META_PROTOCOL_VERSION: MODERN, META_CLIENT_CAPABILITIES: TASKS_CAPS}
    headers = {"mcp-protocol-version": MODERN, "mcp-method": method}
    if method == "tools/call":
        headers["mcp-name"] = params["name"]
    exchange = await post(app, rpc(8, method, {**_params(method, params), "_meta": meta}), headers=headers)
    return exchange.reply.json()


@sync
async def test_a_handshake_session_is_offered_no_tasks_and_reaches_none_on_any_worker() -> None:
    store = MemoryStore()
    first, second = worker(store), worker(store)
    opened = await post(first, rpc(1, "initialize", HELLO))
    assert opened.reply.status == 200, opened.reply.body
    assert EXTENSION_TASKS not in opened.reply.json()["result"]["capabilities"].get("extensions", {})
    session = opened.reply.headers["mcp-session-id"]
    refused = await handshake(second, session, "tools/call", {"name": "forever", "arguments": {}})
    assert refused["error"]["code"] == MISSING_CLIENT_CAPABILITY, refused
    assert "2026-07-28 only: this connection speaks 2025-11-25" in refused["error"]["message"]
    created = await modern(first, "tools/call", {"name": "forever", "arguments": {}})
    task_id = created["result"]["taskId"]
    never = "n" * len(task_id)
    for app in (first, second):
        for method in TASK_METHODS:
            live = await handshake(app, session, method, {"taskId": task_id})
            unknown = await handshake(app, session, method, {"taskId": never})
            assert live["error"]["code"] == METHOD_NOT_FOUND, live
            assert live == unknown
        got = await modern(app, "tasks/get", {"taskId": task_id})
        assert got["result"]["status"] == "working", got
    assert await store.task_inbox(task_id) == []
    await modern(second, "tasks/cancel", {"taskId": task_id})
