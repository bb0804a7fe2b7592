"""Task status notifications (SEP-2663 `notifications/tasks` on a `subscriptions/listen` stream),
server side: sent on every change of status to the streams that named the task, the full
DetailedTask up to a size, one pending per task per stream (bounded), never to a handshake-era
connection (where Tasks are not defined at all), and refused (-32021) to a client that did not declare the extension."""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any

import pytest

from mcpgen.runtime import RpcError, Server
from mcpgen.runtime.core.jsonrpc import METHOD_NOT_FOUND, MISSING_CLIENT_CAPABILITY
from mcpgen.runtime.core.protocol import EXTENSION_TASKS, META_CLIENT_CAPABILITIES, META_PROTOCOL_VERSION
from mcpgen.runtime.server.server import RequestContext, ServerConnection
from mcpgen.runtime.server.subscriptions import MAX_BACKLOG, ListenStream
from mcpgen.runtime.server.tasks import NOTIFY_INLINE_BYTES, TaskRecord
from mcpgen.runtime.transports.memory import MemoryTransport, memory_pair

TASKS_CAPS = {"elicitation": {}, "extensions": {EXTENSION_TASKS: {}}}


def meta(caps: dict[str, Any] = TASKS_CAPS) -> dict[str, Any]:
    return {META_PROTOCOL_VERSION: "2026-07-28", META_CLIENT_CAPABILITIES: caps}


def make_server(gate: asyncio.Event | None = None) -> Server:
    """A task tool that waits for `gate` (once the test listens), asks, then answers."""

    async def asks_then_answers(args: dict[str, Any], ctx: RequestContext) -> dict[str, Any]:
        if gate is not None:
            await gate.wait()
        await ctx.request_elicitation({"message": "Go?", "requestedSchema": {"type": "object"}}, key="go")
        size = int(args.get("size", 10))
        return {"content": [{"type": "text", "text": "x" * size}]}

    server = Server("notify", "1.0")
    definition = {"name": "job", "inputSchema": {"type": "object"}, "execution": {"taskSupport": "required"}}
    server.add_tool(definition, asks_then_answers)
    return server


def connect(server: Server) -> tuple[ServerConnection, MemoryTransport]:
    wire, end = memory_pair()
    return server.connection(end), wire


async def frame(wire: MemoryTransport) -> dict[str, Any]:
    raw = await asyncio.wait_for(wire.receive(), 10)
    assert raw is not None
    message: dict[str, Any] = json.loads(raw)
    return message


def test_each_change_of_status_reaches_the_stream_that_named_the_task_with_the_detailed_task() -> None:
    async def main() -> None:
        gate = asyncio.Event()
        server = make_server(gate)
        conn, wire = connect(server)
        started = await conn.handle_request("tools/call", {"name": "job", "arguments": {}, "_meta": meta()}, 1)
        big = await conn.handle_request(
            "tools/call", {"name": "job", "arguments": {"size": NOTIFY_INLINE_BYTES}, "_meta": meta()}, 2
        )
        task_id, big_id = started["taskId"], big["taskId"]
        listen = asyncio.ensure_future(
            conn.handle_request(
                "subscriptions/listen", {"notifications": {"taskIds": [task_id, big_id]}, "_meta": meta()}, 3
            )
        )
        ack = await frame(wire)
        assert ack["params"]["notifications"] == {"taskIds": [task_id, big_id]}
        gate.set()
        seen: dict[str, list[dict[str, Any]]] = {task_id: [], big_id: []}
        while not all(events and events[-1]["status"] == "input_required" for events in seen.values()):
            note = await frame(wire)
            assert note["method"] == "notifications/tasks"
            assert note["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"] == 3
            seen[note["params"]["taskId"]].append(note["params"])
        assert seen[task_id][-1]["inputRequests"]["go"]["method"] == "elicitation/create"
        answer = {"go": {"action": "accept", "content": {}}}
        for tid in (task_id, big_id):
            await conn.handle_request("tasks/update", {"taskId": tid, "inputResponses": answer, "_meta": meta()}, 4)
        done: dict[str, dict[str, Any]] = {}
        while len(done) < 2:
            params = (await frame(wire))["params"]
            if params["status"] == "completed":
                done[params["taskId"]] = params
        # Identical to what tasks/get answers (less the listen tag); a too-large result is left to tasks/get.
        got = await conn.handle_request("tasks/get", {"taskId": task_id, "_meta": meta()}, 5)
        assert done[task_id]["result"] == got["result"]
        assert {k: v for k, v in done[task_id].items() if k != "_meta"} == {
            k: v for k, v in got.items() if k not in ("_meta", "resultType")
        }
        assert "result" not in done[big_id] and done[big_id]["status"] == "completed"
        listen.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await listen

    asyncio.run(asyncio.wait_for(main(), 30))


def test_a_client_without_the_extension_is_refused_and_a_handshake_connection_never_hears_tasks() -> None:
    async def main() -> None:
        server = make_server()
        conn, _wire = connect(server)
        with pytest.raises(RpcError, match="task status notifications needs the client capability") as refused:
            await conn.handle_request(
                "subscriptions/listen", {"notifications": {"taskIds": ["a" * 24]}, "_meta": meta({})}, 1
            )
        assert refused.value.code == MISSING_CLIENT_CAPABILITY
        # A handshake-era connection, though it names the extension: Tasks are not defined there.
        legacy, legacy_wire = connect(server)
        hello = {"protocolVersion": "2025-11-25", "capabilities": TASKS_CAPS, "clientInfo": {"name": "c"}}
        welcome = await legacy.handle_request("initialize", hello, 1)
        assert EXTENSION_TASKS not in welcome["capabilities"].get("extensions", {})
        await legacy._on_notification("notifications/initialized", {})
        with pytest.raises(RpcError, match="2026-07-28 only: this connection speaks 2025-11-25") as required:
            await legacy.handle_request("tools/call", {"name": "job", "arguments": {}}, 2)
        assert required.value.code == MISSING_CLIENT_CAPABILITY
        # A task of a 2026-07-28 client, going input_required: the handshake connection cannot
        # reach it (tasks/* is not a method there) and hears nothing about it.
        started = await conn.handle_request("tools/call", {"name": "job", "arguments": {}, "_meta": meta()}, 2)
        for method in ("tasks/get", "tasks/update", "tasks/cancel"):
            with pytest.raises(RpcError, match=f"Method not found: {method} .*2026-07-28 only") as unknown:
                await legacy.handle_request(method, {"taskId": started["taskId"], "inputResponses": {}}, 3)
            assert unknown.value.code == METHOD_NOT_FOUND
        for _ in range(100):
            got = await conn.handle_request("tasks/get", {"taskId": started["taskId"], "_meta": meta()}, 4)
            if got["status"] == "input_required":
                break
            await asyncio.sleep(0.02)
        assert got["status"] == "input_required"
        await server.list_changed("tools")  # a change event a handshake connection does hear
        assert (await frame(legacy_wire))["method"] == "notifications/tools/list_changed"
        assert legacy_wire.inbox.empty()

    asyncio.run(asyncio.wait_for(main(), 30))


def test_a_stream_holds_one_pending_status_per_task_whatever_the_rate() -> None:
    async def main() -> None:
        stream = ListenStream({"taskIds": ["t" * 24]})
        for n in range(MAX_BACKLOG * 3):
            record = TaskRecord("t" * 24, status="working", message=f"step {n}")
            stream.offer("notifications/tasks", record.notification())
        stream.offer("notifications/tasks", TaskRecord("u" * 24).notification())  # not named: dropped
        assert stream.queue.qsize() == 1 and list(stream.task_status) == ["t" * 24]
        assert stream.task_status["t" * 24]["statusMessage"] == f"step {MAX_BACKLOG * 3 - 1}"

    asyncio.run(main())
