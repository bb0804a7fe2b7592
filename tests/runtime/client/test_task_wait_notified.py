"""ToolTask.wait() with status notifications: it listens for the task's `notifications/tasks`
and each one wakes it at once. Polling is made an hour long here, so a wait() that returns (or
answers an input request) can only have been woken by a notification."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from mcpgen.runtime import RequestTimeout, Server, TaskLimits, connect_memory
from mcpgen.runtime.client import tasks as client_tasks
from mcpgen.runtime.server.server import RequestContext

HOUR = 3600.0


def make_server(gate: asyncio.Event) -> Server:
    async def gated(args: dict[str, Any], ctx: RequestContext) -> dict[str, Any]:
        await gate.wait()
        if args.get("ask"):
            answer = await ctx.request_elicitation({"message": "Go?", "requestedSchema": {"type": "object"}}, key="go")
            return {"content": [{"type": "text", "text": f"asked: {answer['action']}"}]}
        return {"content": [{"type": "text", "text": "done"}]}

    server = Server("notified", "1.0")
    server.tasks.limits = TaskLimits(poll_interval_ms=int(HOUR * 1000))
    definition = {"name": "gated", "inputSchema": {"type": "object"}, "execution": {"taskSupport": "required"}}
    server.add_tool(definition, gated)
    return server


async def accept(params: dict[str, Any]) -> dict[str, Any]:
    return {"action": "accept", "content": {}}


@pytest.fixture(autouse=True)
def hour_long_polls(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(client_tasks, "POLL_BOUNDS", (0.05, HOUR))


async def once_listening(server: Server) -> None:
    while not server.subscriptions._streams:
        await asyncio.sleep(0.01)


async def streams_closed(server: Server) -> bool:
    """Whether the server's listen streams all ended (the client's cancellation reached it)."""
    for _ in range(500):
        if not server.subscriptions._streams:
            return True
        await asyncio.sleep(0.01)
    return False


@pytest.mark.parametrize("ask", [False, True], ids=["completes", "asks-then-completes"])
def test_a_status_notification_wakes_wait_at_once(ask: bool) -> None:
    async def main() -> None:
        gate = asyncio.Event()
        server = make_server(gate)
        async with connect_memory(server, protocol="2026-07-28", on_elicitation=accept) as client:
            task = await client.start_tool("gated", {"ask": ask})
            assert task.poll_interval == HOUR
            waiting = asyncio.ensure_future(task.wait(timeout=HOUR))
            await asyncio.wait_for(once_listening(server), 20)
            gate.set()
            result = await asyncio.wait_for(waiting, 30)
            assert result["content"][0]["text"] == ("asked: accept" if ask else "done")
            assert await streams_closed(server)  # once the task ended

    asyncio.run(asyncio.wait_for(main(), 60))


@pytest.mark.parametrize("notifications", [True, False])
def test_a_wait_that_times_out_leaves_no_stream_and_notifications_false_opens_none(notifications: bool) -> None:
    async def main() -> None:
        server = make_server(asyncio.Event())  # never set: the task runs on
        async with connect_memory(server, protocol="2026-07-28") as client:
            opened: list[list[str]] = []
            watch = client.watch_tasks

            async def spy(task_ids: list[str], meta: dict[str, Any], wake: asyncio.Event) -> Any:
                opened.append(list(task_ids))
                return await watch(task_ids, meta, wake)

            client.watch_tasks = spy
            task = await client.start_tool("gated", {})
            with pytest.raises(RequestTimeout, match="did not end within"):
                await task.wait(timeout=0.3, notifications=notifications)
            assert opened == ([[task.task_id]] if notifications else [])
            assert await streams_closed(server)
            await task.cancel()

    asyncio.run(asyncio.wait_for(main(), 60))
