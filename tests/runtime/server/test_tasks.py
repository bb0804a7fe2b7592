"""The Tasks extension end to end in one process: a runtime Server whose tools say
`execution.taskSupport`, driven by the runtime client's ToolTask (connect_memory, 2026-07-28)."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from mcpgen.runtime import RpcError, Server, TaskFailed, TaskLimits, ToolTask, connect_memory
from mcpgen.runtime.client.tasks import task_meta
from mcpgen.runtime.core.jsonrpc import INTERNAL_ERROR, INVALID_PARAMS, MISSING_CLIENT_CAPABILITY
from mcpgen.runtime.server.server import RequestContext
from mcpgen.runtime.server.store import MemoryStore
from mcpgen.runtime.server.tasks import TaskRecord

Handler = Callable[[dict[str, Any], RequestContext], Awaitable[dict[str, Any]]]


def text(value: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": value}]}


def tool(name: str, support: str | None = "optional") -> dict[str, Any]:
    definition: dict[str, Any] = {"name": name, "inputSchema": {"type": "object"}}
    if support is not None:
        definition["execution"] = {"taskSupport": support}
    return definition


async def sleepy(args: dict[str, Any], ctx: RequestContext) -> dict[str, Any]:
    await ctx.report_progress(1, 2, "half way")
    await asyncio.sleep(float(args.get("seconds", 0.1)))
    return text(f"slept {args.get('seconds', 0.1)}")


async def asks(args: dict[str, Any], ctx: RequestContext) -> dict[str, Any]:
    answer = await ctx.request_elicitation({"message": "Sure?", "requestedSchema": {"type": "object"}}, key="sure")
    return text(f"answer: {answer.get('action')}")


async def breaks(args: dict[str, Any], ctx: RequestContext) -> dict[str, Any]:
    raise RpcError(INTERNAL_ERROR, "broke down", {"why": "test"})


async def huge(args: dict[str, Any], ctx: RequestContext) -> dict[str, Any]:
    return text("x" * 5000)


def make_server(limits: TaskLimits | None = None) -> Server:
    server = Server("tasks-test", "1.0")
    if limits is not None:
        server.tasks.limits = limits
    server.add_tool(tool("sleepy"), sleepy)
    server.add_tool(tool("only_task", "required"), sleepy)
    server.add_tool(tool("asks"), asks)
    server.add_tool(tool("breaks"), breaks)
    server.add_tool(tool("huge"), huge)
    server.add_tool(tool("plain", None), sleepy)
    return server


async def accept(params: dict[str, Any]) -> dict[str, Any]:
    return {"action": "accept", "content": {}}


def run(body: Callable[..., Awaitable[None]], server: Server | None = None, **options: Any) -> None:
    async def main() -> None:
        async with connect_memory(server or make_server(), protocol="2026-07-28", **options) as client:
            await body(client)

    asyncio.run(asyncio.wait_for(main(), 30))


def test_a_task_runs_in_the_background_and_wait_returns_the_plain_calls_result() -> None:
    async def body(client: Any) -> None:
        seen: list[str] = []
        task = await client.start_tool("sleepy", {"seconds": 0.3})
        assert task.task_id is not None and task.status == "working"
        result = await task.wait(on_status=lambda t: seen.append(f"{t.status}:{t.status_message}"))
        assert result["content"] == text("slept 0.3")["content"]
        assert task.status == "completed" and not result.get("isError")
        assert seen[-1].startswith("completed")
        assert (await client.call_tool("sleepy", {"seconds": 0}))["content"] == text("slept 0")["content"]
        # A plain tool never becomes a task: the handle is completed from the start.
        plain = await client.start_tool("plain", {"seconds": 0})
        assert plain.task_id is None and plain.done and plain.result()["content"] == text("slept 0")["content"]

    run(body)


def test_progress_becomes_the_status_message_tasks_get_shows() -> None:
    async def body(client: Any) -> None:
        task = await client.start_tool("sleepy", {"seconds": 1})
        for _ in range(50):
            await task.refresh()
            if task.status_message:
                break
            await asyncio.sleep(0.05)
        assert task.status_message == "1/2 half way"
        await task.cancel()

    run(body)


def test_a_required_task_tool_is_refused_without_the_extension() -> None:
    async def body(client: Any) -> None:
        with pytest.raises(RpcError, match="runs only as a task") as refused:
            await client.call_tool("only_task", {})
        assert refused.value.code == MISSING_CLIENT_CAPABILITY
        assert refused.value.data == {"requiredCapabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}}}
        with pytest.raises(RpcError, match="needs the client capability") as gated:
            await client.request("tasks/get", {"taskId": "a" * 24})
        assert gated.value.code == MISSING_CLIENT_CAPABILITY
        assert (await (await client.start_tool("only_task", {"seconds": 0})).wait())["content"]

    run(body)


def test_input_requests_park_the_task_and_the_handle_answers_them() -> None:
    asked: list[dict[str, Any]] = []

    async def elicit(params: dict[str, Any]) -> dict[str, Any]:
        asked.append(params)
        return {"action": "accept", "content": {}}

    async def body(client: Any) -> None:
        task = await client.start_tool("asks", {})
        assert (await task.wait())["content"] == text("answer: accept")["content"]

    run(body, on_elicitation=elicit)
    assert [a["message"] for a in asked] == ["Sure?"]


def test_cancel_and_failures_raise_task_failed_with_the_status() -> None:
    async def body(client: Any) -> None:
        task = await client.start_tool("sleepy", {"seconds": 60})
        await task.cancel()
        with pytest.raises(TaskFailed, match="cancelled") as cancelled:
            await task.wait()
        assert cancelled.value.status == "cancelled"
        broken = await client.start_tool("breaks", {})
        with pytest.raises(TaskFailed, match="broke down") as failed:
            await broken.wait()
        assert (failed.value.status, failed.value.code, failed.value.data) == (
            "failed",
            INTERNAL_ERROR,
            {"why": "test"},
        )

    run(body)


def test_the_bounds_hold_result_size_and_running_tasks() -> None:
    limits = TaskLimits(max_result_bytes=1000, max_running=1)

    async def body(client: Any) -> None:
        with pytest.raises(TaskFailed, match="larger than 1000 bytes"):
            await (await client.start_tool("huge", {})).wait()
        running = await client.start_tool("sleepy", {"seconds": 60})
        with pytest.raises(RpcError, match="too many tasks running"):
            await client.start_tool("sleepy", {"seconds": 60})
        await running.cancel()

    run(body, make_server(limits))


def test_unknown_and_garbled_tasks_are_unknown_and_a_dead_workers_task_fails() -> None:
    store = MemoryStore()
    server = make_server(TaskLimits(heartbeat=0.1, lease=0.5))
    server.tasks.use_store(store)

    async def body(client: Any) -> None:
        meta = {"_meta": task_meta(client)}
        for task_id in ["nope", "a" * 24, 7, "../" * 10]:
            with pytest.raises(RpcError, match="Unknown task") as unknown:
                await client.session.request("tasks/get", {"taskId": task_id, **meta})
            assert unknown.value.code == INVALID_PARAMS
        assert await store.create_task("g" * 24, b'{"status": "working"}', 60, 10)
        with pytest.raises(RpcError, match="Unknown task"):
            await client.session.request("tasks/get", {"taskId": "g" * 24, **meta})
        # A task another worker ran, whose heartbeat stopped: failed, with the reason.
        orphan = TaskRecord("o" * 24, ttl_ms=60_000, poll_ms=50, beat=time.time() - 5)
        assert await store.create_task(orphan.task_id, orphan.encode(), 60, 10)
        task = ToolTask(client, "sleepy", orphan.task_id)
        with pytest.raises(TaskFailed, match="worker running this task stopped"):
            await task.wait(timeout=5)

    run(body, server)


@pytest.mark.parametrize(
    "field, value",
    [
        ("status", "sleeping"),
        ("id", 1),
        ("created", None),
        ("ttl", "1"),
        ("beat", "x"),
        ("inputs", []),
        ("result", "r"),
        ("owner", None),
        ("owner", "root"),
        ("owner", "A" * 64),
    ],
)
def test_a_task_record_read_back_is_checked_field_by_field(field: str, value: Any) -> None:
    good = json.loads(TaskRecord("t" * 24, ttl_ms=1, poll_ms=1).encode())
    assert TaskRecord.decode(json.dumps(good).encode()) is not None
    assert TaskRecord.decode(json.dumps({**good, field: value}).encode()) is None


async def gathers_then_returns(args: dict[str, Any], ctx: RequestContext) -> dict[str, Any]:
    answer = await ctx.request_elicitation({"message": "Name?", "requestedSchema": {"type": "object"}}, key="name")
    await ctx.continue_as_task()
    return text(f"done for {answer.get('action')}")  # ends right after the task exists


def test_an_input_first_tool_asks_in_plain_rounds_then_runs_as_a_task_that_may_end_at_once() -> None:
    server = Server("tasks-test", "1.0")
    server.tasks.limits = TaskLimits(max_running=1)
    server.add_tool(tool("gathers", "required"), gathers_then_returns)
    server.task_input_first.add("gathers")

    async def body(client: Any) -> None:
        for _ in range(3):  # a task that ended leaves no running slot taken
            task = await client.start_tool("gathers", {})
            assert task.task_id is not None
            assert (await task.wait(timeout=10))["content"] == text("done for accept")["content"]
        assert server.tasks._running == {}

    run(body, server, on_elicitation=accept)


@pytest.mark.parametrize("method", ["tasks/get", "tasks/update", "tasks/cancel"])
def test_mcp_name_on_tasks_methods_must_match_the_task_id_when_sent(method: str) -> None:
    from mcpgen.runtime.core.jsonrpc import HEADER_MISMATCH
    from mcpgen.runtime.server.http.mirrored_headers import header_problem

    message = {"jsonrpc": "2.0", "id": 1, "method": method, "params": {"taskId": "t" * 24}}
    server = make_server()
    sent = {"mcp-method": method}
    assert header_problem(server, message, {**sent, "mcp-name": "t" * 24}) is None
    mismatch = header_problem(server, message, {**sent, "mcp-name": "other"})
    assert mismatch == (HEADER_MISMATCH, "Mcp-Name header does not match the body")
    # Missing: tolerated (the official SDK's client sends none on tasks/* yet); tools/call still needs it.
    assert header_problem(server, message, sent) is None
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "sleepy"}}
    assert header_problem(server, call, {"mcp-method": "tools/call"}) == (HEADER_MISMATCH, "Missing Mcp-Name header")


def test_the_extension_is_declared_with_a_task_tool_beside_any_other_extension() -> None:
    plain = Server("plain", "1.0")
    plain.add_tool(tool("plain", None), sleepy)
    assert "extensions" not in plain.capabilities()
    assert "tasks/get" not in plain._methods
    mixed = Server("mixed", "1.0", capabilities={"extensions": {"io.modelcontextprotocol/ui": {}}})
    mixed.add_tool(tool("sleepy"), sleepy)
    assert mixed.capabilities()["extensions"] == {"io.modelcontextprotocol/ui": {}, "io.modelcontextprotocol/tasks": {}}
